"""Import a labelled set for any deal of the graph, graphiti-written ones included: BEIR-style
`queries.jsonl` + `qrels.tsv` whose corpus-ids are uuids of the deal.

A corpus-id is a fact uuid (a `RELATES_TO` of the deal), or an episode uuid: then every fact whose `episodes`
list cites that episode is judged with the line's grade. A fact judged directly keeps its own grade; a fact
reached through several judged episodes of one query takes the highest of their grades.

Everything is checked before anything is written: ids that are neither a fact nor an episode of the deal are
refused with one line (the count and the first few); queries without a judgment are only warned about. The
set is stored whole (one transaction); the same content again changes nothing; a different set under a name
the deal already uses needs `replace`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import DataFileError
from pipeline.lab import Lab
from pipeline.query_sets.files import check_query_ids, query_files, read_qrels, read_queries
from pipeline.query_sets.records import QuerySet, SaveResult
from pipeline.query_sets.sets import clean_set_name, save_query_set

SHOW_IDS = 3  # how many unknown ids the error names


@dataclass(frozen=True)
class ImportReport:
    saved: SaveResult
    facts_judged_directly: int  # (query, fact) judgments from a fact uuid
    facts_via_episodes: int  # (query, fact) judgments that came only through an episode uuid
    episodes: int  # distinct episode uuids in the qrels
    episodes_citing_nothing: tuple[str, ...]  # episode uuids no fact cites (they judge nothing)
    unjudged_queries: tuple[str, ...]

    @property
    def warnings(self) -> list[str]:
        out = []
        if self.unjudged_queries:
            n, first = len(self.unjudged_queries), ", ".join(self.unjudged_queries[:SHOW_IDS])
            out.append(f"{n} queries have no judgment (imported, but not scorable), e.g. {first}")
        if self.episodes_citing_nothing:
            n, first = len(self.episodes_citing_nothing), ", ".join(self.episodes_citing_nothing[:SHOW_IDS])
            out.append(f"{n} episodes in qrels.tsv are cited by no fact (they judge nothing), e.g. {first}")
        return out


def resolve_judgments(
    qrels: dict[str, dict[str, int]], facts: set[str], citing: dict[str, set[str]]
) -> tuple[dict[str, dict[str, int]], int]:
    """query id -> corpus id -> grade  =>  query id -> fact uuid -> grade (pure; the rules in the module doc).
    Also returns how many (query, fact) judgments came only through episodes."""
    resolved: dict[str, dict[str, int]] = {}
    via_episodes = 0
    for query_id, judged in qrels.items():
        direct = {u: g for u, g in judged.items() if u in facts}
        derived: dict[str, int] = {}
        for corpus_id, grade in judged.items():
            for fact in citing.get(corpus_id, ()):
                derived[fact] = max(grade, derived.get(fact, grade))
        via_episodes += len(set(derived) - set(direct))
        merged = {**derived, **direct}
        if merged:
            resolved[query_id] = dict(sorted(merged.items()))
    return resolved, via_episodes


async def import_query_files(
    lab: Lab,
    folder: Path,
    group_id: str,
    name: str | None = None,
    replace: bool = False,
    created_by: str = "import-queries",
) -> ImportReport:
    await lab.deal(group_id)  # an unknown deal (or one this deployment may not show) is refused here
    name = clean_set_name(name if name is not None else folder.resolve().name)
    queries_file, qrels_file = query_files(folder)
    queries, qrels = read_queries(queries_file), read_qrels(qrels_file)
    check_query_ids(queries, qrels, str(folder))

    ids = sorted({corpus_id for judged in qrels.values() for corpus_id in judged})
    cypher = lab.backend.cypher
    facts = await cypher.facts_by_uuids(group_id, ids) if ids else set()
    episodes = await cypher.episodes_by_uuids(group_id, [i for i in ids if i not in facts]) if ids else set()
    unknown = [i for i in ids if i not in facts and i not in episodes]
    if unknown:
        raise DataFileError(
            f"{qrels_file}: {len(unknown)} corpus ids are neither a fact nor an episode of deal {group_id!r}, "
            f"e.g. {', '.join(unknown[:SHOW_IDS])}; nothing was imported."
        )
    citing = await cypher.facts_citing_episodes(group_id, sorted(episodes)) if episodes else {}
    resolved, via_episodes = resolve_judgments(qrels, facts, citing)
    query_set = QuerySet(group_id, tuple(queries), resolved, name, "import")
    saved = save_query_set(lab.store, query_set, created_by, replace)
    return ImportReport(
        saved=saved,
        facts_judged_directly=sum(1 for judged in qrels.values() for u in judged if u in facts),
        facts_via_episodes=via_episodes,
        episodes=len(episodes),
        episodes_citing_nothing=tuple(sorted(episodes - set(citing))),
        unjudged_queries=query_set.unjudged,
    )
