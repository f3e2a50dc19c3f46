"""`pipeline.api.models` hands out each value from the feature that defines it, imported when first named."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

import pytest

from pipeline.api import models


@pytest.mark.parametrize("name", models.__all__)
def test_every_value_is_its_features_own(name: str) -> None:
    home = next(module for module, names in models.VALUES.items() if name in names)
    assert getattr(models, name) is getattr(import_module(home), name)


def test_a_name_it_does_not_hand_out_is_refused() -> None:
    with pytest.raises(ImportError):
        exec("from pipeline.api.models import NoSuchValue", {})


def test_naming_one_value_imports_its_feature_only() -> None:
    """A CLI command that names a setting does not load the spot-check's statistics."""
    code = (
        "import sys\n"
        "from pipeline.api.models import Setting\n"
        "print('pipeline.spotcheck.verdicts' in sys.modules, 'statsmodels' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
