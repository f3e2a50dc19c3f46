"""Saved sweeps ("experiments"): save one whole or not at all, list, load, name one in a picker; the rows a
`SweepResult` is stored as.

An experiment is stored as normalised rows (`experiments`, `experiment_settings` with the aggregates,
`experiment_queries` with one row per query and setting) plus one JSON payload with what the rows do
not hold (spec, query texts, judgments, fact texts, stats). `result_from_rows` rebuilds the
`SweepResult` exactly, so a saved experiment shows the same tables and charts as a fresh sweep.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from pipeline.errors import InvalidInput
from pipeline.evaluation.records import QueryRow, SettingResult, SweepResult, SweepSpec, SweepStats, partial_words
from pipeline.evaluation.repo import (
    experiment_heads,
    experiment_names,
    experiment_rankings,
    experiment_rows,
    insert_experiment,
    rename_experiment_row,
)
from pipeline.retrieval.recipes import LEGACY_RECIPE
from pipeline.retrieval.setting import Setting
from pipeline.store.db import Store
from pipeline.text import one_line
from pipeline.utc import stamp

MAX_NAME = 120


@dataclass(frozen=True)
class ExperimentInfo:
    id: int
    name: str
    group_id: str
    created_at: str
    judgments: str
    queries: int
    duration_s: float
    partial: dict[str, Any]  # empty: a complete run (SweepResult.partial)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> ExperimentInfo:
        fields = {name: row[name] for name in cls.__dataclass_fields__ if name != "partial"}
        return cls(**fields, partial=json.loads(row["partial"] or "{}"))


def experiment_label(info: ExperimentInfo) -> str:
    """How the dashboard names a saved experiment in its pickers. A partial run says so first, whatever its name:
    it is never taken for a complete one."""
    mark = f"PARTIAL ({partial_words(info.partial)}) " if info.partial else ""
    return f"{mark}#{info.id} {info.name} · {info.group_id} · {info.queries} queries · {stamp(info.created_at)} UTC"


def clean_experiment_name(name: str) -> str:
    cleaned = one_line(name)
    if not cleaned:
        raise InvalidInput("Give the experiment a name.")
    if len(cleaned) > MAX_NAME:
        raise InvalidInput(f"The experiment name is {len(cleaned)} characters long; the limit is {MAX_NAME}.")
    return cleaned


# --- a sweep as rows ----------------------------------------------------------------------------


def experiment_columns(result: SweepResult, name: str) -> dict[str, Any]:
    """The `experiments` row: the head columns, the spec and a JSON payload of what no other row holds."""
    payload = {
        "eval_set": result.eval_set,
        "queries": result.queries,
        "qrels": result.qrels,
        "facts": result.facts,
        "stats": asdict(result.stats),
        "baseline": result.baseline,
        "created_at": result.created_at,
        "fingerprint": result.fingerprint,
        "partial": result.partial,
    }
    return {
        "name": name,
        "group_id": result.spec.group_id,
        "created_at": result.created_at,
        "judgments": result.spec.judgments,
        "queries": result.stats.queries,
        "duration_s": result.stats.seconds,
        "spec": json.dumps(asdict(result.spec)),
        "payload": json.dumps(payload),
    }


def setting_columns(s: SettingResult) -> dict[str, Any]:
    """One `experiment_settings` row (the experiment id is added when it is written)."""
    setting = s.setting
    return {
        "setting": s.key,
        "candidates": setting.candidates,
        "top_k": setting.top_k,
        "reranker": setting.reranker,
        "reranker_model": s.reranker_model,
        "in_grid": int(s.in_grid),
        "metrics": json.dumps(s.metrics),
        "by_type": json.dumps(s.by_type),
        "p50_ms": s.p50_ms,
        "p95_ms": s.p95_ms,
        "tokens": s.tokens,
        "cost_usd": s.cost_usd,
        "fallbacks": s.fallbacks,
        "p_value": s.p_value,
        "p_ttest": s.p_ttest,
        "recipe": setting.recipe.key,
    }


def setting_from_row(row: sqlite3.Row, spec: SweepSpec) -> SettingResult:
    """One `experiment_settings` row; its recipe is resolved by the spec (a custom one is stored there)."""
    setting = Setting(spec.recipe(row["recipe"]), row["candidates"], row["reranker"], row["top_k"])
    return SettingResult(
        setting=setting,
        reranker_model=row["reranker_model"],
        in_grid=bool(row["in_grid"]),
        metrics=json.loads(row["metrics"]),
        by_type=json.loads(row["by_type"]),
        p50_ms=row["p50_ms"],
        p95_ms=row["p95_ms"],
        tokens=row["tokens"],
        cost_usd=row["cost_usd"],
        fallbacks=row["fallbacks"],
        p_value=row["p_value"],
        p_ttest=row["p_ttest"],
    )


def query_columns(r: QueryRow) -> dict[str, Any]:
    """One `experiment_queries` row (the experiment id is added when it is written)."""
    return {
        "setting": r.setting.key,
        "query_id": r.query_id,
        "metrics": json.dumps(r.metrics),
        "latency_ms": r.latency_ms,
        "ranking": json.dumps(r.ranking),
    }


def query_from_row(row: sqlite3.Row, settings: Mapping[str, Setting]) -> QueryRow:
    """One `experiment_queries` row, its setting found by its key among the experiment's settings."""
    return QueryRow(
        settings[row["setting"]],
        row["query_id"],
        json.loads(row["metrics"]),
        row["latency_ms"],
        tuple(json.loads(row["ranking"])),
    )


def spec_from_json(text: str) -> SweepSpec:
    data = json.loads(text)
    data.setdefault("recipes", [LEGACY_RECIPE])
    for name in ("candidates", "top_ks", "rerankers", "recipes"):
        data[name] = tuple(data[name])
    data["custom_recipes"] = tuple(tuple(pair) for pair in data.get("custom_recipes", ()))
    return SweepSpec(**data)


def sweep_order(settings: Iterable[SettingResult], spec: SweepSpec) -> tuple[SettingResult, ...]:
    """Settings in sweep order (recipe and reranker as asked, then N, then k), the baseline last when outside the
    grid."""
    recipes = {r: i for i, r in enumerate(spec.recipes)}
    rerankers = {r: i for i, r in enumerate(spec.rerankers)}
    return tuple(
        sorted(
            settings,
            key=lambda s: (
                not s.in_grid,
                recipes.get(s.setting.recipe.key, 99),
                rerankers.get(s.setting.reranker, 99),
                s.setting.candidates,
                s.setting.top_k,
            ),
        )
    )


def result_from_rows(head: sqlite3.Row, settings: Iterable[sqlite3.Row], queries: Iterable[sqlite3.Row]) -> SweepResult:
    """The `SweepResult` as it was saved, from its `experiments` row and its settings' and queries' rows."""
    spec = spec_from_json(head["spec"])
    payload = json.loads(head["payload"])
    results = sweep_order((setting_from_row(s, spec) for s in settings), spec)
    by_key = {s.key: s.setting for s in results}
    return SweepResult(
        spec=spec,
        eval_set=payload["eval_set"],
        created_at=payload["created_at"],
        settings=results,
        rows=tuple(query_from_row(r, by_key) for r in queries),
        queries={q: (v[0], v[1]) for q, v in payload["queries"].items()},
        qrels=payload["qrels"],
        facts=payload["facts"],
        stats=SweepStats(**payload["stats"]),
        baseline=payload["baseline"],
        fingerprint=payload.get("fingerprint", {}),  # none on experiments saved before fingerprints
        partial=payload.get("partial") or {},
    )


# --- saving and loading ------------------------------------------------------------------------


def save_experiment(
    store: Store, result: SweepResult, name: str, then: Callable[[sqlite3.Connection, int], None] | None = None
) -> int:
    """Write the sweep in one transaction (with `then(conn, id)` inside it); its id. A name already used is refused."""
    name = clean_experiment_name(name)
    settings = [setting_columns(s) for s in result.settings]
    rows = [query_columns(r) for r in result.rows]
    return insert_experiment(store, experiment_columns(result, name), settings, rows, then)


def unique_name(store: Store, group_id: str, name: str) -> str:
    """`name`, or `name (2)`, `name (3)`, ... : the first not used on the deal."""
    taken = experiment_names(store, group_id)
    base, n = clean_experiment_name(name), 1
    candidate = base
    while candidate in taken:
        n += 1
        candidate = f"{base} ({n})"
    return candidate


def rename_experiment(store: Store, exp_id: int, group_id: str, name: str) -> str:
    cleaned = clean_experiment_name(name)
    rename_experiment_row(store, exp_id, group_id, cleaned)
    return cleaned


def list_experiments(store: Store, group_id: str | None = None) -> list[ExperimentInfo]:
    return [ExperimentInfo.from_row(r) for r in experiment_heads(store, group_id)]


def load_experiment(store: Store, exp_id: int, rankings: bool = True) -> tuple[ExperimentInfo, SweepResult]:
    """The experiment as saved; without `rankings`, its query rows carry empty rankings (`with_rankings` reads
    those of the settings a view needs): every table, chart and test on the page needs none."""
    head, settings, queries = experiment_rows(store, exp_id, rankings)
    return ExperimentInfo.from_row(head), result_from_rows(head, settings, queries)


def with_rankings(store: Store, exp_id: int, result: SweepResult, settings: Iterable[str]) -> SweepResult:
    """`result` with the rankings of these settings' query rows read back (the others' rows unchanged)."""
    wanted = tuple(dict.fromkeys(settings))
    by_key = {s.key: s.setting for s in result.settings}
    read = (query_from_row(row, by_key) for row in experiment_rankings(store, exp_id, wanted))
    ranked = {(r.setting, r.query_id): r for r in read}
    rows = tuple(ranked.get((r.setting, r.query_id), r) for r in result.rows)
    return replace(result, rows=rows)
