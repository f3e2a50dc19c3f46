"""Import a query set for any deal of the graph, graphiti-written ones included: queries and judgments read by
one of `formats`' readers (BEIR-style `queries.jsonl` + `qrels.tsv`, TREC, Quepid, or a query log without
judgments), whose corpus ids are uuids of the deal.

A corpus-id is a fact uuid (a `RELATES_TO` of the deal), or an episode uuid: then every fact whose `episodes`
list cites that episode is judged with the line's grade. A fact judged directly keeps its own grade; a fact
reached through several judged episodes of one query takes the highest of their grades.

Everything is checked before anything is written: ids that are neither a fact nor an episode of the deal are
refused with one line (the count and the first few); queries without a judgment are only warned about (a set
without any judgment is stored too: an unjudged set, to be judged later). The set is stored whole (one
transaction); the same content again changes nothing; a different set under a name the deal already uses needs
`replace`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import DataFileError
from pipeline.query_sets.files import query_files
from pipeline.query_sets.formats import read_beir
from pipeline.query_sets.logs import SetRead
from pipeline.query_sets.records import QuerySet, SaveResult
from pipeline.query_sets.sets import clean_set_name, save_query_set

if TYPE_CHECKING:
    from pipeline.lab import Lab  # annotations only: Lab stands above the features

SHOW_IDS = 3  # how many unknown ids the error names


@dataclass(frozen=True)
class ImportReport:
    saved: SaveResult
    facts_judged_directly: int  # (query, fact) judgments from a fact uuid
    facts_via_episodes: int  # (query, fact) judgments that came only through an episode uuid
    episodes: int  # distinct episode uuids in the qrels
    episodes_citing_nothing: tuple[str, ...]  # episode uuids no fact cites (they judge nothing)
    unjudged_queries: tuple[str, ...]
    judgments_file: str = "the judgments"

    @property
    def warnings(self) -> list[str]:
        out = []
        if self.unjudged_queries and self.saved.judgments:  # a set judged nowhere is unjudged by design
            n, first = len(self.unjudged_queries), ", ".join(self.unjudged_queries[:SHOW_IDS])
            out.append(f"{n} queries have no judgment (imported, but not scorable), e.g. {first}")
        if self.episodes_citing_nothing:
            n, first = len(self.episodes_citing_nothing), ", ".join(self.episodes_citing_nothing[:SHOW_IDS])
            out.append(f"{n} episodes in {self.judgments_file} are cited by no fact (they judge nothing), e.g. {first}")
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
    """A BEIR-style folder (`queries.jsonl` + `qrels.tsv`) as the deal's set `name` (default: the folder's name)."""
    query_files(folder)  # one line naming a missing file
    name = name if name is not None else folder.resolve().name
    return await import_query_set(lab, group_id, read_beir(folder), name, replace, created_by)


async def import_query_set(
    lab: Lab,
    group_id: str,
    read: SetRead,
    name: str,
    replace: bool = False,
    created_by: str = "import-queries",
) -> ImportReport:
    """Queries and judgments read from files (or History) as the deal's set `name`, source "import": corpus ids
    checked against the deal, episodes resolved to the facts citing them, then stored whole or not at all."""
    await lab.deal(group_id)  # an unknown deal (or one this deployment may not show) is refused here
    name = clean_set_name(name)
    qrels = read.qrels
    ids = sorted({corpus_id for judged in qrels.values() for corpus_id in judged})
    cypher = lab.backend.cypher
    facts = await cypher.facts_by_uuids(group_id, ids) if ids else set()
    episodes = await cypher.episodes_by_uuids(group_id, [i for i in ids if i not in facts]) if ids else set()
    unknown = [i for i in ids if i not in facts and i not in episodes]
    if unknown:
        raise DataFileError(
            f"{read.judgments_file}: {len(unknown)} corpus ids are neither a fact nor an episode of deal "
            f"{group_id!r}, e.g. {', '.join(unknown[:SHOW_IDS])}; nothing was imported."
        )
    citing = await cypher.facts_citing_episodes(group_id, sorted(episodes)) if episodes else {}
    resolved, via_episodes = resolve_judgments(qrels, facts, citing)
    query_set = QuerySet(group_id, read.queries, resolved, name, "import")
    saved = save_query_set(lab.store, query_set, created_by, replace)
    return ImportReport(
        saved=saved,
        facts_judged_directly=sum(1 for judged in qrels.values() for u in judged if u in facts),
        facts_via_episodes=via_episodes,
        episodes=len(episodes),
        episodes_citing_nothing=tuple(sorted(episodes - set(citing))),
        unjudged_queries=query_set.unjudged,
        judgments_file=Path(read.judgments_file).name if read.judgments_file else "the judgments",
    )
