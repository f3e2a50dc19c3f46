"""The allow-list applied in one place (pipeline/deals/access.py), on a store holding two deals' runs,
experiments, queues, verdicts, query sets and audit entries (no graph needed): a store scoped to one deal
lists, counts and opens only that deal's rows and refuses the other's ids as unknown; the unscoped store
(an unrestricted deployment) sees both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.audit import audit_log, record_audit
from pipeline.deals.access import DealAccess, ScopedStore, access_of, scoped_store
from pipeline.errors import InvalidInput, RetrievalLabError, UnknownDeal
from pipeline.evaluation.repo import experiment_heads, experiment_rows, insert_experiment
from pipeline.history.records import RunFilter
from pipeline.history.repo import count_runs, filter_choices, list_runs, load_run, save_run, stage_rows
from pipeline.query_sets.records import LabelledQuery, QuerySet
from pipeline.query_sets.repo import delete_set, get_set, list_sets, save_set
from pipeline.spotcheck import repo as spot
from pipeline.spotcheck import repo_answers as spot_answers
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.sampling import ItemDraft
from pipeline.store.db import DB_NAME, Store, open_store
from tests.unit.test_runs_store import make_run
from tests.unit.test_spotcheck_sampling import draft as sampling_draft

MINE, THEIRS = "deal_a", "deal_b"


def experiment_head(group_id: str, name: str) -> dict[str, object]:
    return {
        "name": name,
        "group_id": group_id,
        "created_at": "2026-11-02T10:00:00+00:00",
        "judgments": "labelled",
        "queries": 1,
        "duration_s": 1.0,
        "spec": json.dumps({"group_id": group_id}),
        "payload": "{}",
    }


def draft(i: int) -> ItemDraft:
    return sampling_draft(i)


@pytest.fixture
def stores(tmp_path: Path) -> tuple[Store, Store, dict[str, dict[str, int]]]:
    """(unscoped store, store scoped to MINE, ids per deal) over one file holding both deals."""
    base = open_store(tmp_path)
    ids: dict[str, dict[str, int]] = {}
    for group in (MINE, THEIRS):
        run_id = save_run(base, make_run(query=f"{group} revenue?", group_id=group), "cli")
        exp_id = insert_experiment(base, experiment_head(group, "same name on both deals"), [], [])
        spec = QueueSpec("queue", group, "fact_sample", 2, 1, "random", "ana")
        queue = spot.insert_queue(base, spec, [draft(1), draft(2)], "queue", "ana")
        item = spot.queue_items(base, queue.id)[0].id
        spot_answers.save_verdict(base, item, "ana", "supported", "")
        save_set(
            base, QuerySet(group, (LabelledQuery("q", f"{group} q", "fact"),), {"q": {"f1": 1}}, name="set"), "ana"
        )
        record_audit(base, "ana", "fact.correct", group, "f1", {})
        ids[group] = {"run": run_id, "experiment": exp_id, "queue": queue.id, "item": item}
    return base, scoped_store(tmp_path, [MINE]), ids


def test_access_rules() -> None:
    everyone, one = DealAccess.of(None), DealAccess.of([MINE])
    assert everyone.permits(THEIRS) and not everyone.restricted and everyone.sql("g") == ("1 = 1", {})
    assert one.permits(MINE) and not one.permits(THEIRS) and not one.permits(None)
    assert one.sql("r.group_id") == ("r.group_id IN (:allowed_0)", {"allowed_0": MINE})
    assert one.visible([MINE, THEIRS]) == [MINE]
    with pytest.raises(UnknownDeal, match=r"No deal named 'deal_b' in this deployment \(seed-demo\)"):
        one.require(THEIRS, "seed-demo")
    assert DealAccess.of([]).sql("g") == ("0 = 1", {})


def test_the_unscoped_store_sees_both_deals(stores: tuple[Store, Store, dict[str, dict[str, int]]]) -> None:
    base, _, _ = stores
    assert access_of(base) == DealAccess() and scoped_store(base.path.parent, None) is base
    assert count_runs(base) == 2 and {r.group_id for r in list_runs(base)} == {MINE, THEIRS}
    assert len(experiment_heads(base)) == 2  # the same name on two deals is allowed (migration 0010)
    assert {e.group_id for e in audit_log(base)} == {MINE, THEIRS}


def test_a_scoped_store_shows_and_opens_only_its_deal(stores: tuple[Store, Store, dict[str, dict[str, int]]]) -> None:
    _, mine, ids = stores
    assert isinstance(mine, ScopedStore) and mine.path.name == DB_NAME
    # runs: lists, counts, filter choices, latency rows, and opening by id
    assert [r.group_id for r in list_runs(mine)] == [MINE]
    assert count_runs(mine) == 1 and count_runs(mine, RunFilter(group_id=THEIRS)) == 0
    assert filter_choices(mine).group_ids == (MINE,)
    assert [row[0] for row in stage_rows(mine)] == [ids[MINE]["run"]]
    assert load_run(mine, ids[MINE]["run"]).summary.group_id == MINE
    with pytest.raises(InvalidInput, match=rf"^No stored run #{ids[THEIRS]['run']}\.$"):
        load_run(mine, ids[THEIRS]["run"])
    # experiments
    assert [h["group_id"] for h in experiment_heads(mine)] == [MINE]
    assert experiment_heads(mine, THEIRS) == []
    with pytest.raises(InvalidInput, match="No experiment"):
        experiment_rows(mine, ids[THEIRS]["experiment"])
    # spot-check queues, items, verdicts
    assert [q.group_id for q in spot.list_queues(mine, MINE)] == [MINE]
    assert len(spot_answers.verdict_rows(mine, MINE)) == 1
    for call in (
        lambda: spot.get_queue(mine, ids[THEIRS]["queue"]),
        lambda: spot.queue_items(mine, ids[THEIRS]["queue"]),
        lambda: spot_answers.progress(mine, ids[THEIRS]["queue"], "ana"),
        lambda: spot_answers.reviewer_verdicts(mine, ids[THEIRS]["queue"], "ana"),
        lambda: spot_answers.save_verdict(mine, ids[THEIRS]["item"], "mallory", "unsupported", ""),
        lambda: spot.list_queues(mine, THEIRS),
        lambda: spot_answers.verdict_rows(mine, THEIRS),
    ):
        with pytest.raises(RetrievalLabError):
            call()
    # query sets
    assert [s.group_id for s in list_sets(mine, MINE)] == [MINE]
    assert get_set(mine, MINE) is not None
    for call in (
        lambda: list_sets(mine, THEIRS),
        lambda: get_set(mine, THEIRS),
        lambda: delete_set(mine, THEIRS, "set"),
    ):
        with pytest.raises(UnknownDeal):
            call()
    # the audit log
    assert {e.group_id for e in audit_log(mine)} == {MINE}
    assert audit_log(mine, THEIRS) == []


def test_a_scoped_store_writes_nothing_for_another_deal(
    stores: tuple[Store, Store, dict[str, dict[str, int]]],
) -> None:
    base, mine, _ = stores
    before = {t: base.query(f"SELECT COUNT(*) FROM {t}")[0][0] for t in ("runs", "experiments", "spotcheck_queues")}
    with pytest.raises(UnknownDeal):
        save_run(mine, make_run(group_id=THEIRS), "cli")
    with pytest.raises(UnknownDeal):
        insert_experiment(mine, experiment_head(THEIRS, "x"), [], [])
    with pytest.raises(UnknownDeal):
        spot.insert_queue(mine, QueueSpec("q2", THEIRS, "fact_sample", 1, 1, "random", "m"), [draft(1)], "q2", "m")
    with pytest.raises(UnknownDeal):
        save_set(mine, QuerySet(THEIRS, (LabelledQuery("q", "x", "fact"),), {"q": {"f1": 1}}, name="evil"), "m")
    after = {t: base.query(f"SELECT COUNT(*) FROM {t}")[0][0] for t in before}
    assert after == before
    with pytest.raises(InvalidInput, match="already exists on deal 'deal_a'"):
        insert_experiment(mine, experiment_head(MINE, "same name on both deals"), [], [])
