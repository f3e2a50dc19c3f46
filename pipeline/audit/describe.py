"""An audit entry as a person reads it: the action's name, what it touched, the state before and after, and
which record an undo would start from (a correction or a merge), from the details each action writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pipeline.audit.records import AuditEntry
from pipeline.text import one_line

WHAT_CHARS = 60

ACTION_LABELS = {
    "fact.correct": "Fact corrected",
    "fact.undo_correct": "Correction undone",
    "merge": "Entities merged",
    "merge.undo": "Merge undone",
    "merge.reject": "Pair rejected",
    "deal.reset_demo": "Demo deal reset",
    "deal.replace": "Deal replaced",
    "deal.read_only": "Deal set read-only",
    "deal.writable": "Deal set writable",
    "admin.unlock_failed": "Wrong admin secret",
    "journal.rollback": "Interrupted action rolled back",
    "journal.complete": "Interrupted action completed",
    "spotcheck.queue_created": "Spot-check queue created",
    "spotcheck.adjudicated": "Disagreement adjudicated",
    "vector_index.create": "Vector index created",
    "judge.graded": "Pool graded by the LLM judge",
}

UndoKind = Literal["correction", "merge"]


@dataclass(frozen=True)
class Described:
    label: str
    what: str
    before: str
    after: str
    undo: tuple[UndoKind, str] | None  # the record an undo starts from, when the action has one


def action_label(action: str) -> str:
    return ACTION_LABELS.get(action, action)


def _plural(n: Any, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _quoted(text: Any) -> str:
    """A fact named by its words, not its uuid: short enough for the "What" column."""
    return f"“{one_line(text, WHAT_CHARS)}”" if text else "a fact"


def _correct(d: dict[str, Any]) -> tuple[str, str, str]:
    source = " · ".join(str(x) for x in (d.get("channel"), d.get("author")) if x)
    return (
        _quoted(d.get("old_fact")),
        str(d.get("old_fact", "")),
        f"{d.get('new_fact', '')} (valid from {str(d.get('valid_at', ''))[:10]}; {source})",
    )


def _undo_correct(d: dict[str, Any]) -> tuple[str, str, str]:
    return f"correction of {_quoted(d.get('old_fact'))}", str(d.get("new_fact", "")), str(d.get("old_fact", ""))


def _merge(d: dict[str, Any]) -> tuple[str, str, str]:
    alias, canonical = d.get("alias_name", ""), d.get("canonical_name", "")
    moved = _plural(d.get("facts_moved", len(d.get("moved_facts", []))), "fact")
    return f"{alias} → {canonical}", f"{moved} on {alias}", f"{moved} on {canonical} ({d.get('method', '')})"


def _merge_undo(d: dict[str, Any]) -> tuple[str, str, str]:
    m = d.get("merge", {})
    alias, canonical = m.get("alias_name", ""), m.get("canonical_name", "")
    missing = len(d.get("facts_missing", []))
    after = f"{_plural(d.get('facts_restored', 0), 'fact')} back on {alias}" + (f"; {missing} gone" if missing else "")
    return f"{alias} → {canonical}", f"merged into {canonical}", after


def _reject(d: dict[str, Any]) -> tuple[str, str, str]:
    return (
        f"{d.get('name_a', '')} / {d.get('name_b', '')}",
        f"candidate pair (score {d.get('score', '')})",
        ("never suggested again"),
    )


def _reset(d: dict[str, Any]) -> tuple[str, str, str]:
    return "demo deal", "as changed by admins", f"rebuilt: {_plural(d.get('facts'), 'fact')}, {d.get('merges')} merges"


def _replace(d: dict[str, Any]) -> tuple[str, str, str]:
    before = (
        f"{d.get('source')}: {_plural(d.get('facts'), 'fact')}, {_plural(d.get('corrections'), 'open correction')}, "
        f"{_plural(d.get('merges'), 'admin merge')}"
    )
    return "deal", before, f"rebuilt from {d.get('new_source')}"


def _unlock_failed(d: dict[str, Any]) -> tuple[str, str, str]:
    return "admin secret", f"{d.get('failures_in_a_row')} failure(s) in a row", f"next try after {d.get('wait_s')} s"


def _adjudicated(d: dict[str, Any]) -> tuple[str, str, str]:
    previous = d.get("previous")
    note = f" ({d['note']})" if d.get("note") else ""
    return (
        f"item {d.get('position', '?')} of queue #{d.get('queue_id', '?')}",
        f"final {d.get('question', '')} answer {previous}" if previous is not None else "split between reviewers",
        f"final {d.get('question', '')} answer {d.get('answer', '')}{note}",
    )


def _queue_created(d: dict[str, Any]) -> tuple[str, str, str]:
    return "", "", f"{_plural(d.get('items', 0), 'item')} from {d.get('source', '')} (seed {d.get('seed', '')})"


def _judged(d: dict[str, Any]) -> tuple[str, str, str]:
    after = f"{d.get('graded', 0)} of {_plural(d.get('pairs', 0), 'pair')} graded by {d.get('model', '')}"
    after += f", {d.get('requests', 0)} requests, ${d.get('cost_usd', 0)}"
    return "", "", after + (f"; stopped: {d['failure']}" if d.get("failure") else "")


def _vector_index(d: dict[str, Any]) -> tuple[str, str, str]:
    return "facts' vector index", "no index", f"{d.get('index', '')} ({d.get('dimension', '')}-d)"


def _journal(d: dict[str, Any]) -> tuple[str, str, str]:
    steps = ", ".join(d.get("steps_done", [])) or "none"
    return f"{action_label(d.get('kind', ''))} by {d.get('requested_by', '')}", f"steps done: {steps}", ""


DESCRIBERS: dict[str, Callable[[dict[str, Any]], tuple[str, str, str]]] = {
    "fact.correct": _correct,
    "fact.undo_correct": _undo_correct,
    "merge": _merge,
    "merge.undo": _merge_undo,
    "merge.reject": _reject,
    "deal.reset_demo": _reset,
    "deal.replace": _replace,
    "admin.unlock_failed": _unlock_failed,
    "journal.rollback": _journal,
    "journal.complete": _journal,
    "spotcheck.adjudicated": _adjudicated,
    "spotcheck.queue_created": _queue_created,
    "judge.graded": _judged,
    "vector_index.create": _vector_index,
}


def describe(entry: AuditEntry) -> Described:
    """The entry's action name, what / before / after as plain text (data stays text: the caller escapes it),
    and the record an undo would start from."""
    d = entry.details
    how = DESCRIBERS.get(entry.action)
    try:
        what, before, after = how(d) if how else (entry.target, "", _compact(d))
        what = what or entry.target
    except (AttributeError, TypeError):  # an entry written by an older version with other details
        what, before, after = entry.target, "", _compact(d)
    undo: tuple[UndoKind, str] | None = None
    if entry.action == "fact.correct" and d.get("correction_id"):
        undo = ("correction", str(d["correction_id"]))
    elif entry.action == "merge" and d.get("uuid"):
        undo = ("merge", str(d["uuid"]))
    return Described(action_label(entry.action), what, before, after, undo)


def _compact(details: dict[str, Any]) -> str:
    return "; ".join(f"{k}: {v}" for k, v in sorted(details.items()))
