"""Reading the audit log for the Audit log page: filters by deal, action and person (any of each, all when
empty), the facets they offer, a restricted deployment's log (its deals and entries of no deal only), and an
entry described as a person reads it, with the record an undo starts from."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.audit import AuditFilter, audit_facets, describe, filtered_audit_log, record_audit
from pipeline.deals.access import scoped_store
from pipeline.store import Store, open_store


def _log(tmp_path: Path) -> Store:
    store = open_store(tmp_path)
    record_audit(store, "Ana", "fact.correct", "a", "f1", {"correction_id": "c1", "old_fact": "old", "new_fact": "new"})
    record_audit(store, "Bo", "merge", "a", "e1", {"uuid": "m1", "alias_name": "X", "canonical_name": "Y"})
    record_audit(store, "Ana", "merge.undo", "b", "e2", {"merge": {"alias_name": "P", "canonical_name": "Q"}})
    record_audit(store, "Mallory", "admin.unlock_failed", "", "admin", {"failures_in_a_row": 1, "wait_s": 1.0})
    return store


def _actions(store: Store, where: AuditFilter) -> list[str]:
    return [e.action for e in filtered_audit_log(store, where)]


def test_filters_combine_and_each_takes_any_of_its_values(tmp_path: Path) -> None:
    store = _log(tmp_path)
    assert _actions(store, AuditFilter()) == ["admin.unlock_failed", "merge.undo", "merge", "fact.correct"]
    assert _actions(store, AuditFilter(deals=["a"])) == ["merge", "fact.correct"]
    assert _actions(store, AuditFilter(deals=["a", "b"], actors=["Ana"])) == ["merge.undo", "fact.correct"]
    assert _actions(store, AuditFilter(actions=["merge", "merge.undo"], actors=["Bo"])) == ["merge"]
    assert _actions(store, AuditFilter(deals=["a"], actions=["admin.unlock_failed"])) == []
    assert audit_facets(store) == {
        "deals": ["", "a", "b"],
        "actions": ["admin.unlock_failed", "fact.correct", "merge", "merge.undo"],
        "actors": ["Ana", "Bo", "Mallory"],
    }


def test_a_restricted_deployment_reads_its_deals_and_entries_of_no_deal(tmp_path: Path) -> None:
    _log(tmp_path)
    scoped = scoped_store(tmp_path, ["b"])
    assert _actions(scoped, AuditFilter()) == ["admin.unlock_failed", "merge.undo"]
    assert _actions(scoped, AuditFilter(deals=["a"])) == []
    assert audit_facets(scoped)["deals"] == ["", "b"] and "Bo" not in audit_facets(scoped)["actors"]


def test_entries_are_described_with_their_undo(tmp_path: Path) -> None:
    fix, merge, undo, failed = reversed(filtered_audit_log(_log(tmp_path), AuditFilter()))
    described = describe(fix)
    assert (described.label, described.before, described.undo) == ("Fact corrected", "old", ("correction", "c1"))
    assert describe(fix).after.startswith("new (valid from")
    assert (describe(merge).what, describe(merge).undo) == ("X → Y", ("merge", "m1"))
    assert (describe(undo).label, describe(undo).what, describe(undo).undo) == ("Merge undone", "P → Q", None)
    assert describe(failed).label == "Wrong admin secret" and describe(failed).undo is None


def test_every_action_the_code_records_reads_as_words() -> None:
    """Each action the code records has a label on the Audit log: the literal ones passed to `record_audit`, and the
    named ones (journal kinds are audit actions)."""
    from pipeline.admin import unlock
    from pipeline.audit import ACTION_LABELS
    from pipeline.corrections import records as corrections
    from pipeline.deals import replace as deals
    from pipeline.ingest.demo import seed
    from pipeline.merges import actions as merges
    from pipeline.retrieval.vector_index import build as vector_index

    root = Path(__file__).resolve().parents[2] / "pipeline"
    source = "\n".join(p.read_text() for p in root.rglob("*.py"))
    recorded = set(re.findall(r'record_audit\([^)]*?"([a-z_]+\.[a-z_.]+)"', source, re.S))
    assert {"spotcheck.adjudicated", "spotcheck.queue_created", "judge.graded"} <= recorded
    named = {unlock.AUDIT_ACTION, corrections.ACTION_CORRECT, corrections.ACTION_UNDO, deals.ACTION_REPLACE}
    named |= {seed.KIND_RESET, merges.KIND_MERGE, merges.KIND_UNDO, merges.KIND_REJECT, vector_index.ACTION}
    assert recorded | named <= set(ACTION_LABELS)


def test_a_correction_is_named_by_its_words_not_its_uuid(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    old = "Halcyon's FY2025 subscription revenue was $4.2 million, per the CIM's page 12 summary table."
    details = {"correction_id": "c1", "old_uuid": "9f1c2d3e-uuid", "old_fact": old, "new_fact": "new"}
    record_audit(store, "Ana", "fact.correct", "a", "9f1c2d3e-uuid", details)
    record_audit(store, "Ana", "fact.undo_correct", "a", "c1", details)
    undo, fix = filtered_audit_log(store, AuditFilter())
    assert describe(fix).what.startswith("“Halcyon's FY2025 subscription revenue") and "uuid" not in describe(fix).what
    assert describe(undo).what.startswith("correction of “Halcyon's") and "c1" not in describe(undo).what
    adjudicated = {"queue_id": 4, "position": 2, "question": "relevance", "answer": 3, "previous": None, "note": ""}
    record_audit(store, "Cy", "spotcheck.adjudicated", "a", "item 2 of queue #4", adjudicated)
    entry = filtered_audit_log(store, AuditFilter())[0]
    assert (describe(entry).label, describe(entry).after) == ("Disagreement adjudicated", "final relevance answer 3")
