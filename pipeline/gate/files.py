"""The gate's files: the JSON ones it reads, a setting (`production.json`, read by `Setting.from_dict`) and an
accepted baseline (`--save-baseline`), anything else refused in one line naming the file; and the JUnit XML report
it writes (`--junit`), the format CI systems display as tests."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.errors import InvalidInput
from pipeline.evaluation.coverage import POOLED, SPARSE
from pipeline.evaluation.records import (
    check_metric,
)
from pipeline.gate.records import Selection, Side, StoredBaseline, Verdict
from pipeline.retrieval.recipes import validation_line
from pipeline.retrieval.setting import Setting
from pipeline.text import printable_line

BASELINE_FORMAT = 1  # a baseline file's "gate_baseline": its format's version
SUITE = "retrieval-gate"  # the JUnit test suite's name


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
        "setting": side.setting.to_dict(),
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
        raise InvalidInput(f"{where}: not a gate baseline file ({validation_line(exc, echo=False)}).") from None
    if raw.gate_baseline != BASELINE_FORMAT:
        raise InvalidInput(f"{where}: baseline format {raw.gate_baseline}; this version reads {BASELINE_FORMAT}.")
    try:
        metric = check_metric(raw.metric)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    if raw.judged is not None and set(raw.judged) != set(raw.values):
        raise InvalidInput(f"{where}: judged and values name different queries.")
    setting = Setting.from_dict(raw.setting, f"{where}: setting")
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


def _xml_text(text: str) -> str:
    """Each line made printable (XML 1.0 cannot hold most control characters, even escaped)."""
    return "\n".join(printable_line(line) for line in str(text).splitlines())


def junit_xml(verdict: Verdict) -> bytes:
    """One `<testsuite>` with a `<testcase>` per check; a failing one carries `<failure message=...>`; the numbers
    are in each case's `<system-out>`. ElementTree escapes the text (setting names, set names are data)."""
    failures = len(verdict.failed)
    suite = ET.Element(
        "testsuite", name=SUITE, tests=str(len(verdict.checks)), failures=str(failures), errors="0", skipped="0"
    )
    for check in verdict.checks:
        case = ET.SubElement(suite, "testcase", classname=SUITE, name=check.name)
        if not check.passed:
            failure = ET.SubElement(case, "failure", message=_xml_text(check.line), type="regression")
            failure.text = _xml_text(check.line)
        out = ET.SubElement(case, "system-out")
        out.text = _xml_text("\n".join([check.line, *(f"{k}: {v}" for k, v in check.numbers.items())]))
    ET.indent(suite)
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True) + b"\n"
