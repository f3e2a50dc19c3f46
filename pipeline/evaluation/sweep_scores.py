"""A sweep's rankings turned into its results: per query and setting the quality metrics, the tokens handed on,
the share judged and (when measured) the share superseded; per setting their means, latency, cost and the paired
test against the baseline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pipeline.evaluation import metrics as m
from pipeline.evaluation.judgments import EvalSet
from pipeline.evaluation.records import (
    AT_K,
    BASELINE,
    CONDENSED,
    CONDENSED_NAMES,
    FIXED,
    JUDGED,
    METRIC_NAMES,
    SIGNIFICANCE_METRIC,
    STALE,
    TOKENS,
    QueryRow,
    SettingResult,
    SweepSpec,
)
from pipeline.evaluation.significance import paired_test_cached
from pipeline.rerankers import (
    estimate_cost,
    traits,
)
from pipeline.retrieval.setting import Setting

if TYPE_CHECKING:
    from pipeline.lab import Lab


@dataclass
class SettingRankings:
    """Per (recipe, reranker, N): rankings and latencies of every query, filled as the sweep goes."""

    rankings: dict[str, list[str]] = field(default_factory=dict)
    latency: dict[str, float] = field(default_factory=dict)
    tokens: float = 0.0
    searches: int = 0  # for a reranker billed per search: one call per query and pool, as if the setting ran alone
    fallbacks: int = 0
    model: str = ""


def score_settings(
    lab: Lab,
    spec: SweepSpec,
    chosen: EvalSet,
    acc: dict[tuple[str, str, int], SettingRankings],
    facts: dict[str, str] | None = None,
    stale: dict[tuple[str, str, int], dict[str, tuple[bool, ...]]] | None = None,
) -> tuple[list[SettingResult], list[QueryRow]]:
    """Per query and setting: the quality metrics, the tokens of the top k handed on, and (when measured) the
    share of the top k that would be superseded facts without the filter; per setting their means, latency,
    cost and the paired test of SIGNIFICANCE_METRIC against the baseline."""
    grid = spec.grid()
    wanted = [*grid, BASELINE] if BASELINE not in grid else grid
    types = {q.id: q.type for q in chosen.queries}
    names_at = {k: [f"{kind}@{k}" for kind in AT_K] for k in sorted({s.top_k for s in wanted})}
    all_names = [*FIXED, *(n for names in names_at.values() for n in names)]
    scored = {key: m.per_query(chosen.qrels, slot.rankings, all_names) for key, slot in acc.items()}
    judged = {q: set(j) for q, j in chosen.qrels.items()}
    condensed = {
        key: m.per_query(chosen.qrels, _condensed(slot.rankings, judged), all_names) for key, slot in acc.items()
    }
    keep = max(10, *spec.top_ks)
    tokens_of = _token_counts(facts or {}, acc, keep)
    names = [*METRIC_NAMES, *CONDENSED_NAMES, TOKENS, JUDGED, *([STALE] if stale is not None else [])]

    per_setting: dict[Setting, dict[str, dict[str, float]]] = {}
    rows: list[QueryRow] = []
    for setting in wanted:
        ranked, k = ranking_key(setting), setting.top_k
        values = scored[ranked]
        per_query: dict[str, dict[str, float]] = {}
        for qid, row in values.items():
            ranking = acc[ranked].rankings[qid]
            short = condensed[ranked][qid]
            mine = {name: row[name] for name in FIXED}
            mine.update({f"{kind}@k": row[f"{kind}@{k}"] for kind in AT_K})
            mine.update({f"{name}{CONDENSED}": short[name] for name in FIXED})
            mine.update({f"{kind}@k{CONDENSED}": short[f"{kind}@{k}"] for kind in AT_K})
            mine[TOKENS] = float(sum(tokens_of.get(u, 0) for u in ranking[:k]))
            top = ranking[:k]
            # of the facts handed on, the share judged: an empty top k holds nothing unjudged
            mine[JUDGED] = sum(u in judged.get(qid, ()) for u in top) / len(top) if top else 1.0
            if stale is not None:
                flags = stale[ranked].get(qid, ())[:k]
                mine[STALE] = sum(flags) / len(flags) if flags else 0.0
            per_query[qid] = mine
            latency = acc[ranked].latency[qid]
            rows.append(QueryRow(setting, qid, mine, latency, tuple(ranking[:keep])))
        per_setting[setting] = per_query

    base = per_setting[BASELINE]
    order = sorted(base)
    results = []
    for setting in wanted:
        per_query = per_setting[setting]
        slot = acc[ranking_key(setting)]
        latencies = list(slot.latency.values())
        by_type: dict[str, list[dict[str, float]]] = {}
        for qid, row in per_query.items():
            by_type.setdefault(types[qid], []).append(row)
        test = None
        if setting != BASELINE:  # the same scores give the same test (fixed seed): remembered by its scores
            values = [per_query[q][SIGNIFICANCE_METRIC] for q in order]
            test = paired_test_cached([base[q][SIGNIFICANCE_METRIC] for q in order], values)
        tokens, searches = round(slot.tokens), slot.searches
        # nothing billed: free, unless the reranker is priced (then its cost is unknown)
        if tokens or searches:
            cost = estimate_cost(tokens, slot.model, lab.settings, searches)
        else:
            cost = None if traits(setting.reranker).priced else 0.0
        results.append(
            SettingResult(
                setting=setting,
                reranker_model=slot.model,
                in_grid=setting in grid,
                metrics=m.mean(per_query.values(), names),
                by_type={t: m.mean(v, names) for t, v in sorted(by_type.items())},
                p50_ms=float(np.percentile(latencies, 50)),
                p95_ms=float(np.percentile(latencies, 95)),
                tokens=tokens,
                cost_usd=cost,
                fallbacks=slot.fallbacks,
                p_value=test.p_randomization if test else None,
                p_ttest=test.p_ttest if test else None,
            )
        )
    return results, rows


def ranking_key(setting: Setting) -> tuple[str, str, int]:
    """(recipe key, reranker, N): the ranking a setting cuts its top k from, shared by every k."""
    return (setting.recipe.key, setting.reranker, setting.candidates)


def _condensed(rankings: dict[str, list[str]], judged: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each ranking with its unjudged facts left out, the rest in order."""
    return {q: [u for u in ranking if u in judged.get(q, ())] for q, ranking in rankings.items()}


def _token_counts(facts: dict[str, str], acc: dict[tuple[str, str, int], SettingRankings], keep: int) -> dict[str, int]:
    """Tokens of every fact in some setting's top `keep` (counted once per fact)."""
    uuids = sorted({u for slot in acc.values() for ranking in slot.rankings.values() for u in ranking[:keep]})
    uuids = [u for u in uuids if u in facts]
    return dict(zip(uuids, m.token_counts([facts[u] for u in uuids]), strict=True))
