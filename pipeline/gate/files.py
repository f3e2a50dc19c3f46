"""The gate's JSON files: a setting (`production.json`, `Setting.to_dict()`'s shape or a graphiti SearchConfig) and
an accepted baseline (`--save-baseline`); anything else is refused in one line naming the file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.errors import InvalidInput
from pipeline.evaluation.coverage import POOLED, SPARSE
from pipeline.evaluation.records import (
    check_metric,
)
from pipeline.gate.records import Selection, Side, StoredBaseline
from pipeline.rerankers import RERANKERS
from pipeline.retrieval.recipes import CUSTOM, DEFAULT_RECIPE, parse_config, parse_recipe
from pipeline.retrieval.setting import Setting

BASELINE_FORMAT = 1  # a baseline file's "gate_baseline": its format's version


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])


class _SettingFile(BaseModel):
    """`Setting.to_dict()`'s shape; a custom recipe as graphiti's SearchConfig (an object or its JSON text)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    recipe: str | None = None
    candidates: int
    reranker: str
    top_k: int
    first_stage: str = "exact"
    search_config: dict[str, Any] | str | None = None


def setting_from_dict(data: object, where: str) -> Setting:
    """A setting from a JSON object (a `production.json`, a baseline file's "setting"); anything else is refused
    in one line starting with `where`."""
    try:
        raw = _SettingFile.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(
            f"{where}: not a setting ({_first_error(exc)}); give "
            '{"recipe": "graphiti-default", "candidates": 50, "reranker": "local", "top_k": 10} '
            'or a "search_config" in place of "recipe".'
        ) from None
    if raw.first_stage != "exact":
        raise InvalidInput(f"{where}: first_stage {raw.first_stage!r}: the gate ranks with exact search only.")
    if raw.reranker not in RERANKERS:
        raise InvalidInput(f"{where}: unknown reranker {raw.reranker!r}; one of: {', '.join(RERANKERS)}.")
    if raw.search_config is not None:
        config = raw.search_config if isinstance(raw.search_config, str) else json.dumps(raw.search_config)
        recipe = parse_config(config, f"{where}: search_config")
        if raw.recipe is not None and raw.recipe != recipe.key:
            raise InvalidInput(
                f"{where}: recipe {raw.recipe!r} is not its search_config (that is {recipe.key!r}); leave one out."
            )
    else:
        name = DEFAULT_RECIPE if raw.recipe is None else raw.recipe
        if name.strip().endswith(".json"):
            raise InvalidInput(f'{where}: give the SearchConfig itself as "search_config", not a file name.')
        try:
            recipe = parse_recipe(name)
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}") from None
    try:
        return Setting(recipe, raw.candidates, raw.reranker, raw.top_k).validate()
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None


def setting_to_dict(setting: Setting) -> dict[str, Any]:
    """`Setting.to_dict()`, with a custom recipe's SearchConfig beside its key (what `setting_from_dict` reads)."""
    data: dict[str, Any] = setting.to_dict()
    if setting.recipe.name == CUSTOM:
        data["search_config"] = json.loads(setting.recipe.config_json)
    return data


Score = Annotated[float, Field(allow_inf_nan=False)]


class _SelectionFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    judgments: str
    split: str | None = None
    sample: Annotated[int, Field(ge=1)] | None = None
    seed: Annotated[int, Field(ge=0)] = 0
    trust_judge: bool = False
    as_of: str | None = None
    include_superseded: bool = False


class _JudgmentsFile(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    source: str
    hash: str


class _BaselineFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    gate_baseline: int
    group: str
    setting: dict[str, Any]
    metric: str
    queries: int | None = None
    values: Annotated[dict[str, Score], Field(min_length=1)]
    judged: dict[str, Score] | None = None
    top: dict[str, list[str]] = Field(default_factory=dict)
    p95_ms: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    judgment_kind: str | None = None
    judgments: _JudgmentsFile
    selection: _SelectionFile
    saved_at: str | None = None
    manifest: dict[str, Any] = Field(default_factory=dict)


def is_baseline_file(data: object) -> bool:
    """A baseline file (else a setting, as a candidate is given)."""
    return isinstance(data, dict) and "gate_baseline" in data


def baseline_to_dict(baseline: StoredBaseline) -> dict[str, Any]:
    side = baseline.side
    return {
        "gate_baseline": BASELINE_FORMAT,
        "group": baseline.group_id,
        "setting": setting_to_dict(side.setting),
        "metric": baseline.metric,
        "queries": len(side.values),
        "values": dict(sorted(side.values.items())),
        "judged": dict(sorted(side.judged.items())) if side.judged is not None else None,
        "top": {q: list(top) for q, top in sorted(side.top.items())},
        "p95_ms": side.p95_ms,
        "judgment_kind": baseline.kind,
        "judgments": baseline.judgments,
        "selection": baseline.selection.to_dict(),
        "saved_at": baseline.saved_at,
        "manifest": baseline.manifest,
    }


def baseline_from_dict(data: object, where: str) -> StoredBaseline:
    """A baseline file's content; anything else (or a file from a newer format) is refused in one line."""
    try:
        raw = _BaselineFile.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(f"{where}: not a gate baseline file ({_first_error(exc)}).") from None
    if raw.gate_baseline != BASELINE_FORMAT:
        raise InvalidInput(f"{where}: baseline format {raw.gate_baseline}; this version reads {BASELINE_FORMAT}.")
    try:
        metric = check_metric(raw.metric)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    if raw.judged is not None and set(raw.judged) != set(raw.values):
        raise InvalidInput(f"{where}: judged and values name different queries.")
    setting = setting_from_dict(raw.setting, f"{where}: setting")
    side = Side(setting, dict(raw.values), raw.judged, {q: tuple(t) for q, t in raw.top.items()}, raw.p95_ms)
    selection = Selection(**raw.selection.model_dump(), query_ids=tuple(sorted(raw.values)))
    kind = POOLED if raw.judgment_kind == POOLED else SPARSE
    judgments = raw.judgments.model_dump()
    return StoredBaseline(raw.group, metric, side, kind, judgments, selection, raw.saved_at or "", raw.manifest)


def judgments_changed(stored: Mapping[str, Any], current: Mapping[str, Any]) -> str | None:
    """Why a stored baseline's numbers no longer score like the set does now (None: the same judgments)."""
    if (stored.get("source"), stored.get("hash")) == (current.get("source"), current.get("hash")):
        return None
    return (
        f"the baseline was scored on judgments {stored.get('source')} version {str(stored.get('hash'))[:8]}; they "
        f"are now at version {str(current.get('hash'))[:8]} (queries or grades changed): its numbers are not "
        "comparable; measure the baseline again (--baseline SETTING --save-baseline PATH)"
    )
