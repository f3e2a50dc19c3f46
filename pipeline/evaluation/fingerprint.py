"""A run's fingerprint (issue 17): what an experiment's numbers depend on besides its settings, so two experiments
can be told apart when they ran on different data.

- graph: the deal's fact counts, its newest admin change (audit entry and time) and the hash of everything the first
  stage reads (`cache.graph_fingerprint`, which also keys the pool cache), as the sweep started;
- judgments: the source and name of the query set, and a hash of its queries and graded judgments (the whole set,
  so an edited label or an added verdict is a new version, whatever split or limit the sweep took);
- settings: the sweep's spec;
- manifest: the software and models it ran with (`manifest.py`), added by the sweep.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from pipeline.audit.describe import action_label
from pipeline.audit.repo import graph_changes
from pipeline.evaluation.judgments import EvalSet
from pipeline.evaluation.manifest import manifest_differences
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.repo import audit_entry_time
from pipeline.store.db import Store


def judgments_version(eval_set: EvalSet) -> dict[str, Any]:
    content = {
        "queries": sorted((q.id, q.text, q.type, q.split) for q in eval_set.queries),
        "qrels": {q: dict(sorted(j.items())) for q, j in sorted(eval_set.qrels.items())},
    }
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "source": eval_set.source,
        "name": eval_set.label,
        "queries": len(eval_set.queries),
        "judgments": eval_set.judgments,
        "hash": digest,
    }


def graph_version(store: Store, group_id: str, state: tuple[object, ...], content: str) -> dict[str, Any]:
    """From the sweep's graph stamp (`sweep.graph_state`: sorted counts, then the newest audit id)."""
    *counts, audit_id = state
    numbers = dict(counts)  # type: ignore[arg-type]
    return {
        "facts": numbers.get("facts"),
        "current_facts": numbers.get("current_facts"),
        "entities": numbers.get("entities"),
        "audit_id": audit_id,
        "latest_change": audit_entry_time(store, int(audit_id)) if audit_id else None,  # type: ignore[call-overload]
        "content": content,
    }


def run_fingerprint(
    store: Store, spec: SweepSpec, state: tuple[object, ...], content: str, eval_set: EvalSet
) -> dict[str, Any]:
    return {
        "graph": graph_version(store, spec.group_id, state, content),
        "judgments": judgments_version(eval_set),
        "settings": json.loads(json.dumps(asdict(spec))),  # as it reads back from an experiment
    }


def describe_graph(graph: dict[str, Any]) -> str:
    change = f", last admin change {graph['latest_change']}" if graph.get("latest_change") else ""  # none: unsaid
    return f"{graph.get('facts')} facts{change}, content {str(graph.get('content', ''))[:8]}"


def describe_judgments(judgments: dict[str, Any]) -> str:
    return f"{judgments.get('name')} ({judgments.get('judgments')} judgments, version {judgments.get('hash', '')[:8]})"


def admin_changes_between(store: Store, group_id: str, ga: dict[str, Any], gb: dict[str, Any]) -> str:
    """'2 x Fact corrected, 1 x Entities merged': this tool's changes to the graph between two runs' newest admin
    changes ("" when none; writes made outside this tool are not in the audit log)."""
    low, high = sorted(int(g.get("audit_id") or 0) for g in (ga, gb))
    if low == high:
        return ""
    everything = graph_changes(store, group_id, datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC))
    counts = Counter(action_label(e.action) for e in everything if low < e.id <= high)
    return ", ".join(f"{n} x {label}" for label, n in counts.most_common())


def fingerprint_warnings(
    a: dict[str, Any], b: dict[str, Any], store: Store | None = None, group_id: str | None = None
) -> list[str]:
    """One line per way the two runs' data differed (nothing when they ran on the same graph, judgments and
    software); with the store, a changed graph names the admin changes made between the two runs."""
    if not a or not b:
        which = " and ".join(n for n, f in (("A", a), ("B", b)) if not f)
        return [f"Experiment {which} was saved without a fingerprint: whether both ran on the same data is unknown."]
    out = []
    ga, gb = a["graph"], b["graph"]
    if ga.get("content") != gb.get("content"):
        changes = admin_changes_between(store, group_id, ga, gb) if store is not None and group_id else ""
        out.append(
            f"Different graph states: A ran on {describe_graph(ga)}, B on {describe_graph(gb)}"
            + (f" (changed between them: {changes})" if changes else "")
            + "; part of the difference may come from the data, not the settings."
        )
    out.extend(manifest_differences(a.get("manifest", {}), b.get("manifest", {})))
    ja, jb = a["judgments"], b["judgments"]
    if (ja.get("source"), ja.get("hash")) != (jb.get("source"), jb.get("hash")):
        out.append(
            f"Different judgments: A used {describe_judgments(ja)}, B {describe_judgments(jb)}; "
            "the same ranking can score differently."
        )
    return out
