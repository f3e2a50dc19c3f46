"""Isolation beyond `retrieve()` (property-based): timelines, as-of answers, supersession lists, merges, merge
candidates, rejected pairs, spot-check samples, stored queues and verdicts, and corrections never show anything
from another deal, and an admin action aimed at another deal's records is refused without writing.

Three deals of our own (the shared "demo" is never touched): two copies of the demo deal seeded under other
group ids (same text, so only a uuid can tell their facts apart: a leak cannot hide behind different wording)
and the BEIR mini fixture. Deal A alone gets a correction, a manual merge and a rejected pair. What each deal
owns is computed from the source files with `stable_uuid`, not read back from the graph under test.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.audit import audit_log
from pipeline.corrections.actions import (
    Correction,
    CorrectionRefused,
    CorrectionRequest,
    correct_fact,
    list_corrections,
    undo_correction,
)
from pipeline.history.repo import save_run
from pipeline.ingest.beir import import_beir, read_corpus
from pipeline.ingest.demo.seed import DEAL_FILE, seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.merges.actions import MergeRefused, merge_entities, reject_pair, rejected_pairs, undo_merge
from pipeline.merges.candidates import find_candidates
from pipeline.merges.records import MergeRecord, list_merges
from pipeline.merges.repo import Rejection
from pipeline.retrieval.retrieve import retrieve
from pipeline.spotcheck.queue import build_queue, collect_drafts
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import list_queues, queue_items
from pipeline.spotcheck.repo_answers import verdict_rows
from pipeline.spotcheck.sampling import sample_items
from pipeline.spotcheck.verdicts import record_verdict, verdict_judgments
from pipeline.temporal.records import FactSelection
from pipeline.temporal.timeline import as_of, load_facts, supersession_report, timeline
from tests.conftest import FIXTURES
from tests.support.dump import dump_deal

A, B, C = "iso_more_a", "iso_more_b", "iso_more_beir"  # A and B: demo copies; C: BEIR mini
DEALS = (A, B, C)
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_FILE = ROOT / "artifacts" / "isolation-more.json"

DEMO = json.loads(DEAL_FILE.read_text(encoding="utf-8"))
PASSAGES = read_corpus(FIXTURES / "beir_mini" / "corpus.jsonl")
SUPERSESSIONS = sum(1 for f in DEMO["facts"] if f.get("supersedes"))
CASH_KEY = "f216"  # "Halcyon's cash balance was $1.6 million at February 28, 2026." (current)
NEW_TEXT = "Halcyon's cash balance was $1.45 million at March 31, 2026, after the litigation settlement."
ALIAS_KEY, CANONICAL_KEY = "greyfield_vp", "greyfield"


@dataclass
class Owned:
    facts: set[str]
    episodes: set[str]
    entities: set[str]
    merges: set[str] = field(default_factory=set)


def _demo_owned(group: str) -> Owned:
    return Owned(
        facts={stable_uuid(group, "fact", f["id"]) for f in DEMO["facts"]},
        episodes={stable_uuid(group, "episode", e["id"]) for e in DEMO["episodes"]},
        entities={stable_uuid(group, "entity", e["id"]) for e in DEMO["entities"]},
        merges={stable_uuid(group, "merge", m["alias"]) for m in DEMO["merges"]},
    )


def _beir_owned(group: str) -> Owned:
    docs = {p.doc_name for p in PASSAGES}
    return Owned(
        facts={stable_uuid(group, "fact", p.id) for p in PASSAGES},
        episodes={stable_uuid(group, "episode", p.id) for p in PASSAGES},
        entities={stable_uuid(group, "entity", f"doc:{d}") for d in docs}
        | {stable_uuid(group, "entity", f"passage:{p.id}") for p in PASSAGES},
    )


OWNED = {A: _demo_owned(A), B: _demo_owned(B), C: _beir_owned(C)}
ALL_ENTITIES = sorted(set().union(*(o.entities for o in OWNED.values())))
RELATIONS = sorted({f["relation"] for f in DEMO["facts"]} | {"CONTAINS_PASSAGE", "NO_SUCH_RELATION"})
VOCAB = ["Halcyon", "cash", "revenue", "ARR", "EBITDA", "Northwind", "net sales", "margin", "CEO", "lawsuit"]
VOCAB += ["Greyfield", "audit", "customer", "churn", "fiscal 2024", "balance"]
queries = st.one_of(
    st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5).map(" ".join),
    st.text(min_size=1, max_size=60).filter(lambda s: s.strip() and s.isprintable()),
    st.just(NEW_TEXT),  # deal A's corrected statement: must never surface in B or C
)
moments = st.datetimes(min_value=datetime(2015, 1, 1), max_value=datetime(2026, 11, 1), timezones=st.just(UTC))
EXAMPLES: Counter[str] = Counter()
BOUNDED = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@dataclass(frozen=True)
class World:
    correction: Correction  # in A
    merge: MergeRecord  # in A
    rejection: Rejection  # in A
    queues: dict[str, int]  # a stored spot-check queue per deal


def owned(deal: str) -> Owned:
    return OWNED[deal]


@pytest.fixture(scope="module", autouse=True)
def count_examples() -> Iterator[None]:
    """Write how many hypothesis examples each test ran (scripts/reliability.sh reports the total)."""
    EXAMPLES.clear()
    yield
    EXAMPLES_FILE.parent.mkdir(exist_ok=True)
    EXAMPLES_FILE.write_text(json.dumps({"examples": dict(EXAMPLES), "total": sum(EXAMPLES.values())}, indent=2))


@pytest.fixture(scope="module")
async def world(lab: Lab) -> AsyncIterator[World]:
    data_dir = lab.settings.resolved_data_dir
    for group in (A, B):
        await seed_demo(lab.backend, lab.embedder, data_dir, group_id=group, force=True)
    await import_beir(lab.backend, lab.embedder, data_dir, FIXTURES / "beir_mini", C)

    # deal A alone is changed by an admin: a correction, a merge, a rejected candidate pair
    correction = await correct_fact(
        lab,
        A,
        CorrectionRequest(
            stable_uuid(A, "fact", CASH_KEY), NEW_TEXT, "qa_response", "Dana Whitfield (CFO)", date(2026, 4, 2)
        ),
        actor="Ana",
    )
    OWNED[A].facts.add(correction.new_uuid)
    OWNED[A].episodes.add(correction.episode_uuid)
    merge = await merge_entities(
        lab, A, stable_uuid(A, "entity", ALIAS_KEY), stable_uuid(A, "entity", CANONICAL_KEY), "Ana"
    )
    OWNED[A].merges.add(merge.uuid)
    pair = (await find_candidates(lab, A)).candidates[0]
    rejection = await reject_pair(lab, A, pair.canonical.uuid, pair.alias.uuid, "Ana")

    # every deal gets a recorded run and a stored spot-check queue (the "past runs" source reads runs)
    queues = {}
    for group in DEALS:
        query = "Halcyon cash balance" if group != C else "Northwind net sales"
        save_run(lab.store, await retrieve(lab, query, group, 20, 5, "local"), "cli")
        spec = QueueSpec(f"iso {group}", group, "fact_sample", 10, 7, "random", "Ana")
        queues[group] = (await build_queue(lab, spec)).id
    [item, *_] = queue_items(lab.store, queues[A])
    record_verdict(lab.store, item.id, "Ana", "not_supported")
    yield World(correction, merge, rejection, queues)


def assert_owned(deal: str, facts: set[str] = frozenset(), episodes: set[str] = frozenset(), **more: set[str]) -> None:
    mine = owned(deal)
    assert facts <= mine.facts, f"facts from another deal in {deal}: {facts - mine.facts}"
    assert episodes <= mine.episodes, f"episodes from another deal in {deal}: {episodes - mine.episodes}"
    for kind, uuids in more.items():
        theirs = getattr(mine, kind)
        assert uuids <= theirs, f"{kind} from another deal in {deal}: {uuids - theirs}"


# --- timelines, as-of answers, supersession lists ------------------------------------------------------------

selections = st.one_of(
    st.builds(FactSelection, st.just("entity"), st.sampled_from(ALL_ENTITIES)),
    st.builds(FactSelection, st.just("relation"), st.sampled_from(RELATIONS)),
    st.builds(FactSelection, st.just("query"), queries),
)


@BOUNDED
@given(deal=st.sampled_from(DEALS), selection=selections, when=moments)
async def test_timelines_and_as_of_answers_hold_only_the_deals_own_facts(
    lab: Lab, world: World, deal: str, selection: FactSelection, when: datetime
) -> None:
    EXAMPLES["timeline_and_as_of"] += 1
    tl = await timeline(lab, deal, selection)
    shown = {f.uuid for f in tl.facts}
    assert_owned(deal, shown, {e for f in tl.facts for e in f.episodes})
    assert {u for link in tl.links for u in (link.old, link.new)} <= shown
    if selection.kind == "entity" and selection.value not in owned(deal).entities:
        assert not tl.facts  # another deal's entity has no timeline here
    answer = await as_of(lab, deal, selection, when)
    then = {f.uuid for f in answer.then}
    diff = {r.fact.uuid for r in answer.diff} | {r.replaced_by.uuid for r in answer.diff if r.replaced_by}
    assert_owned(deal, then | diff)


@pytest.mark.parametrize("deal", DEALS)
async def test_supersession_lists_and_fact_lists_are_per_deal(lab: Lab, world: World, deal: str) -> None:
    rows, counts = await supersession_report(lab, deal)
    assert_owned(deal, {u for r in rows for u in (r.old.uuid, r.new.uuid)})
    facts = await load_facts(lab, deal)
    assert_owned(deal, {f.uuid for f in facts}, {e for f in facts for e in f.episodes})
    expected = {A: SUPERSESSIONS + 1, B: SUPERSESSIONS, C: 0}[deal]  # A's correction is one more, in A only
    assert counts.links == expected
    corrected = any(r.new.uuid == world.correction.new_uuid for r in rows)
    assert corrected == (deal == A)


# --- retrieval with the temporal options test_isolation.py leaves out ------------------------------------------


@BOUNDED
@given(deal=st.sampled_from(DEALS), query=queries, superseded=st.booleans(), when=st.none() | moments)
async def test_superseded_and_as_of_retrieval_never_crosses_deals(
    lab: Lab, world: World, deal: str, query: str, superseded: bool, when: datetime | None
) -> None:
    EXAMPLES["retrieve_temporal"] += 1
    run = await retrieve(lab, query, deal, 30, 5, "none", include_superseded=superseded, as_of=when)
    assert_owned(deal, {c.uuid for c in run.candidates}, {c.episode_uuid for r in run.results for c in r.citations})
    assert {c.source_uuid for c in run.candidates} | {c.target_uuid for c in run.candidates} <= owned(deal).entities


# --- merges, candidates, rejected pairs ----------------------------------------------------------------------


@BOUNDED
@given(deal=st.sampled_from(DEALS), min_score=st.floats(0.5, 1.0), search=st.sampled_from(["", "Greyfield", "a"]))
async def test_merges_and_merge_candidates_are_per_deal(
    lab: Lab, world: World, deal: str, min_score: float, search: str
) -> None:
    EXAMPLES["merges_and_candidates"] += 1
    views = await list_merges(lab, deal, search)
    assert_owned(
        deal,
        {f.uuid for v in views for f in v.facts},
        merges={v.record.uuid for v in views},
        entities={u for v in views for u in (v.record.alias_uuid, v.record.canonical_uuid)},
    )
    if deal != A:
        assert world.merge.uuid not in {v.record.uuid for v in views}
    report = await find_candidates(lab, deal, min_score=min_score)
    assert_owned(deal, entities={u for c in report.candidates for u in (c.canonical.uuid, c.alias.uuid)})
    assert report.rejected_hidden == (1 if deal == A and world.rejection.score >= min_score else 0)


async def test_a_rejected_pair_in_one_deal_is_still_suggested_in_its_twin(lab: Lab, world: World) -> None:
    assert [(r.uuid_a, r.uuid_b) for r in rejected_pairs(lab, A)] == [(world.rejection.uuid_a, world.rejection.uuid_b)]
    assert rejected_pairs(lab, B) == [] and rejected_pairs(lab, C) == []
    key = {stable_uuid(A, "entity", e["id"]): e["id"] for e in DEMO["entities"]}
    twin = frozenset(stable_uuid(B, "entity", key[u]) for u in (world.rejection.uuid_a, world.rejection.uuid_b))
    pairs_b = {frozenset((c.canonical.uuid, c.alias.uuid)) for c in (await find_candidates(lab, B)).candidates}
    assert twin in pairs_b


# --- spot-check samples, stored queues, verdicts --------------------------------------------------------------

spot_specs = st.one_of(
    st.tuples(st.just("fact_sample"), st.sampled_from(["random", "disagreement"]), st.none()),
    st.tuples(st.just("runs"), st.sampled_from(["random", "disagreement", "lowest_score"]), st.none()),
    st.tuples(st.just("query_set"), st.sampled_from(["random", "disagreement", "lowest_score"]), st.integers(1, 2)),
)


@BOUNDED
@given(deal=st.sampled_from(DEALS), spec=spot_specs, size=st.integers(1, 40), seed=st.integers(0, 2**32))
async def test_spot_check_samples_are_per_deal(
    lab: Lab, world: World, deal: str, spec: tuple[str, str, int | None], size: int, seed: int
) -> None:
    EXAMPLES["spotcheck_samples"] += 1
    source, priority, query_limit = spec
    qs = QueueSpec("sample", deal, source, size, seed, priority, "Ana", reranker="none", query_limit=query_limit)  # type: ignore[arg-type]
    items = sample_items(await collect_drafts(lab, qs), size, seed, priority)  # type: ignore[arg-type]
    assert items
    assert_owned(deal, {i.fact_uuid for i in items}, {i.citation.episode_uuid for i in items})


@pytest.mark.parametrize("deal", DEALS)
async def test_stored_queues_and_verdicts_are_per_deal(lab: Lab, world: World, deal: str) -> None:
    queues = list_queues(lab.store, deal)
    assert [q.id for q in queues] == [world.queues[deal]]
    items = [i for q in queues for i in queue_items(lab.store, q.id)]
    assert_owned(deal, {i.fact_uuid for i in items}, {i.citation.episode_uuid for i in items})
    rows = verdict_rows(lab.store, deal)
    assert len(rows) == (1 if deal == A else 0)
    assert_owned(deal, {r.fact_uuid for r in rows}, {r.episode_uuid for r in rows})
    assert verdict_judgments(lab.store, deal) == {}  # fact samples carry no query: no judgments anywhere


# --- corrections -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("deal", DEALS)
async def test_a_correction_shows_only_in_its_own_deal(lab: Lab, world: World, deal: str) -> None:
    records = list_corrections(lab.store, deal)
    assert [r.id for r in records] == ([world.correction.id] if deal == A else [])
    run = await retrieve(lab, NEW_TEXT, deal, 50, 10, "none", include_superseded=True)
    found = world.correction.new_uuid in {c.uuid for c in run.candidates}
    assert found == (deal == A)
    assert_owned(deal, {c.uuid for c in run.candidates})
    audit = audit_log(lab.store, deal, "fact.")
    assert len(audit) == (1 if deal == A else 0)


# --- admin actions aimed across deals: refused, nothing written --------------------------------------------------


async def test_admin_actions_on_another_deals_records_are_refused_and_write_nothing(lab: Lab, world: World) -> None:
    before = {d: await dump_deal(lab.backend, d) for d in (A, B)}
    audits = {d: len(audit_log(lab.store, d)) for d in (A, B)}
    a_fact, a_alias = stable_uuid(A, "fact", "f001"), stable_uuid(A, "entity", "halcyon")
    attempts = [
        correct_fact(lab, B, CorrectionRequest(a_fact, "Changed.", "qa_response", "Eve", date(2026, 5, 1)), "Eve"),
        undo_correction(lab, B, world.correction.id, "Eve"),
        merge_entities(lab, B, a_alias, stable_uuid(A, "entity", CANONICAL_KEY), "Eve"),
        undo_merge(lab, B, world.merge.uuid, "Eve"),
        undo_merge(lab, B, stable_uuid(A, "merge", DEMO["merges"][0]["alias"]), "Eve"),
        reject_pair(lab, B, world.rejection.uuid_a, world.rejection.uuid_b, "Eve"),
    ]
    for attempt in attempts:
        with pytest.raises((CorrectionRefused, MergeRefused)) as refused:
            await attempt
        assert "\n" not in str(refused.value)
    assert {d: await dump_deal(lab.backend, d) for d in (A, B)} == before
    assert {d: len(audit_log(lab.store, d)) for d in (A, B)} == audits
    assert not list_corrections(lab.store, A)[0].undone  # A's correction was not undone through B
