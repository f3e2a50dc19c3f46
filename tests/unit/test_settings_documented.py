"""docs/configuration.md names every environment variable the code reads: each settings field's variable, and
every RETRIEVAL_LAB_* name written in the code and scripts (PORT too, read by scripts/run.sh)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import AliasChoices

from pipeline.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def setting_variables() -> set[str]:
    names = set()
    for field, info in Settings.model_fields.items():
        alias = info.validation_alias
        names.add(str(alias.choices[0]) if isinstance(alias, AliasChoices) else f"RETRIEVAL_LAB_{field.upper()}")
    return names


def variables_in_code() -> set[str]:
    files = [*ROOT.glob("pipeline/**/*.py"), *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("scripts/*.sh")]
    return {name for f in files for name in re.findall(r"RETRIEVAL_LAB_[A-Z0-9_]*[A-Z0-9]", f.read_text("utf-8"))}


def test_every_variable_is_in_the_configuration_doc() -> None:
    spans = re.findall(r"`([^`]+)`", DOC)
    documented = {name for span in spans for name in re.findall(r"\b[A-Z][A-Z0-9_]*[A-Z0-9]\b", span)}
    missing = sorted((setting_variables() | variables_in_code() | {"PORT"}) - documented)
    assert not missing, f"not in docs/configuration.md: {missing}"
