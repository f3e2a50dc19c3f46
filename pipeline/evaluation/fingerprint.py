"""A run's fingerprint (issue 17): what an experiment's numbers depend on besides its settings, so two experiments
can be told apart when they ran on different data.

- graph: the deal's fact counts, its newest admin change (audit entry and time) and the hash of everything the first
  stage reads (`cache.graph_fingerprint`, which also keys the pool cache), as the sweep started;
- judgments: the source and name of the query set, and a hash of its queries and graded judgments (the whole set,
  so an edited label or an added verdict is a new version, whatever split or limit the sweep took);
- settings: the sweep's spec.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

from pipeline.evaluation.judgments import EvalSet
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


def fingerprint_warnings(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """One line per way the two runs' data differed (nothing when they ran on the same graph and judgments)."""
    if not a or not b:
        which = " and ".join(n for n, f in (("A", a), ("B", b)) if not f)
        return [f"Experiment {which} was saved without a fingerprint: whether both ran on the same data is unknown."]
    out = []
    ga, gb = a["graph"], b["graph"]
    if ga.get("content") != gb.get("content"):
        out.append(
            f"Different graph states: A ran on {describe_graph(ga)}, B on {describe_graph(gb)}; "
            "part of the difference may come from the data, not the settings."
        )
    ja, jb = a["judgments"], b["judgments"]
    if (ja.get("source"), ja.get("hash")) != (jb.get("source"), jb.get("hash")):
        out.append(
            f"Different judgments: A used {describe_judgments(ja)}, B {describe_judgments(jb)}; "
            "the same ranking can score differently."
        )
    return out
