"""The gate's I/O: both sides ranked with the one sweep engine (nothing saved), or the baseline read from a saved
experiment."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pipeline.errors import InvalidInput
from pipeline.evaluation.coverage import JudgmentKind, judgment_kind
from pipeline.evaluation.experiments import load_experiment, with_rankings
from pipeline.evaluation.fingerprint import judgments_version
from pipeline.evaluation.judgments import load_eval_set
from pipeline.evaluation.records import (
    JUDGED,
    SweepResult,
    SweepSpec,
)
from pipeline.evaluation.sweep import run_sweep
from pipeline.gate.files import judgments_changed
from pipeline.gate.records import Selection, Side
from pipeline.retrieval.setting import Setting
from pipeline.store.db import Store

if TYPE_CHECKING:
    from pipeline.lab import Lab


def side_from_sweep(result: SweepResult, setting: Setting, metric: str, name: str = "") -> Side:
    """A setting's per-query numbers in a sweep (fresh or saved as an experiment)."""
    key = setting.key
    found = result.setting(key)
    top = {r.query_id: tuple(r.ranking[: setting.top_k]) for r in result.rows if r.setting.key == key}
    judged = result.per_query(key, JUDGED) if found.judged is not None else None
    return Side(setting, result.per_query(key, metric), judged, top, found.p95_ms, name)


@dataclass(frozen=True)
class Ranking:
    sides: tuple[Side, ...]  # in the order asked
    qrels: dict[str, dict[str, int]]  # of the queries ranked
    kind: JudgmentKind
    judgments: dict[str, Any]  # `judgments_version` of the whole set
    queries: int
    manifest: dict[str, Any]  # the software and models the sides were ranked with (`manifest.py`)


async def rank_sides(
    lab: Lab,
    group_id: str,
    sides: Sequence[tuple[Setting, str, bool]],
    selection: Selection,
    metric: str,
    expected: Mapping[str, Any] | None = None,
    say: Callable[[str], None] = lambda _line: None,
) -> Ranking:
    """Rank each (setting, name, fresh) over the selection's queries with the sweep engine, nothing saved; `fresh`
    bypasses the caches so latency is measured now. `expected`: a stored baseline's judgments version; another
    version is refused before anything is ranked."""
    full = await load_eval_set(lab, group_id, selection.judgments, selection.trust_judge)
    version = judgments_version(full)
    if expected is not None and (why := judgments_changed(expected, version)):
        raise InvalidInput(f"Deal {group_id!r}: {why}.")
    eval_set, split, sample = full, selection.split, selection.sample
    if selection.query_ids is not None:
        known = {q.id for q in full.scorable}
        missing = [q for q in selection.query_ids if q not in known]
        if missing:
            raise InvalidInput(f"Deal {group_id!r}: the baseline's query {missing[0]!r} is no longer in the set.")
        wanted = set(selection.query_ids)
        kept = tuple(q for q in full.queries if q.id in wanted)
        eval_set = replace(full, queries=kept, qrels={q: j for q, j in full.qrels.items() if q in wanted})
        split, sample = None, None
    ranked: dict[Setting, Side] = {}
    for setting in dict.fromkeys(s for s, _, _ in sides):
        fresh = any(f for s, _, f in sides if s == setting)
        spec = SweepSpec.with_recipes(
            group_id,
            (setting.recipe,),
            candidates=(setting.candidates,),
            top_ks=(setting.top_k,),
            rerankers=(setting.reranker,),
            judgments=selection.judgments,
            trust_judge=selection.trust_judge,
            split=split,
            sample=sample,
            seed=selection.seed,
            include_superseded=selection.include_superseded,
            as_of=selection.as_of,
            use_cache=not fresh,
        ).validate()
        say(f"ranking {setting.label}{' (caches bypassed: latency measured now)' if fresh else ''}")
        result = await run_sweep(lab, spec, eval_set=eval_set)
        ranked[setting] = side_from_sweep(result, setting, metric)
    out = tuple(replace(ranked[s], name=name) for s, name, _ in sides)
    qrels = {q: dict(j) for q, j in result.qrels.items()}
    kind = judgment_kind(qrels, selection.judgments)
    return Ranking(out, qrels, kind, version, len(result.queries), result.fingerprint.get("manifest", {}))


def experiment_baseline(
    store: Store, exp_id: int, group_id: str, metric: str
) -> tuple[Side, Selection, dict[str, Any] | None, dict[str, Any]]:
    """An experiment's recommended setting on `metric` with its stored per-query numbers, the selection that ranks
    a candidate on its very queries, the judgments version it was scored on (None: saved before fingerprints) and
    the manifest of what it ran with (empty: saved before manifests)."""
    _info, result = load_experiment(store, exp_id, rankings=False)
    if result.spec.group_id != group_id:
        raise InvalidInput(f"Experiment #{exp_id} is not one of deal {group_id!r}'s.")
    key = result.recommendation(metric).key
    result = with_rankings(store, exp_id, result, [key])
    setting = result.setting(key).setting
    side = side_from_sweep(result, setting, metric)
    spec = result.spec
    selection = Selection(
        spec.judgments,
        spec.split,
        spec.sample,
        spec.seed,
        spec.trust_judge,
        spec.as_of,
        spec.include_superseded,
        tuple(sorted(side.values)),
    )
    return side, selection, result.fingerprint.get("judgments"), result.fingerprint.get("manifest", {})
