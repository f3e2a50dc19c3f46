"""The start-up warm-up (`pipeline/warm_up.py`, run by `python -m dashboard.serve` before it serves)."""

from __future__ import annotations

from pathlib import Path

from pipeline.history.repo import count_runs
from pipeline.lab import Lab
from pipeline.warm_up import warm_up
from tests.conftest import make_settings


async def test_warm_up_queries_the_demo_deal_and_records_nothing(lab: Lab, demo: str) -> None:
    before = count_runs(lab.store)

    result = await warm_up(lab)

    assert result.group_id == demo
    assert result.first_ms > 0 and result.second_ms > 0
    assert count_runs(lab.store) == before  # a warm-up is not a user's run


async def test_warm_up_without_a_deal_does_nothing(lab: Lab, tmp_path: Path) -> None:
    # the session's graph has deals: an allow-list naming none of them leaves this deployment without one
    settings = make_settings(tmp_path, allowed_deals=["no_such_deal"])
    empty = Lab(settings=settings, backend=lab.backend, embedder=lab.embedder)

    result = await warm_up(empty)

    assert result.group_id is None and result.first_ms == 0.0
