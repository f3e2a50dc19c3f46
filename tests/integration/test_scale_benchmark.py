"""The scale benchmark's generated deal has the shape it promises, is cached, and is measured at every N."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

from benchmarks.scale import GROUP, ensure_deal, generate, scale
from pipeline.lab import Lab
from tests.conftest import make_settings

FACTS = 300


def test_generated_deal_has_a_realistic_shape_and_is_deterministic() -> None:
    deal = generate(FACTS)
    facts = deal.content.facts
    assert len(facts) == FACTS
    superseded = [f for f in facts if f.invalid_at is not None]
    assert 0.35 <= len(superseded) / FACTS <= 0.45
    by_key = {f.key: f for f in facts}
    for old in superseded:
        assert old.expired_at is not None
        newer = next(f for f in facts if f.attributes.get("supersedes") == _uuid(old.key))
        assert (newer.source, newer.target) == (old.source, old.target) and newer.invalid_at is None
        assert by_key[newer.key].valid_at == old.invalid_at
    assert {e.channel for e in deal.content.episodes} == {"document", "qa_response", "analyst_chat"}
    degree = Counter(key for f in facts for key in (f.source, f.target))
    assert max(degree.values()) >= 10 * statistics.median(degree.values())
    assert any("$" in f.fact and any(str(y) in f.fact for y in range(2021, 2026)) for f in facts)
    assert [f.fact for f in generate(FACTS).content.facts] == [f.fact for f in facts]


def _uuid(key: str) -> str:
    from pipeline.ingest.loading import stable_uuid

    return stable_uuid(GROUP, "fact", key)


async def test_scale_benchmark_measures_every_n_and_reuses_its_deal(tmp_path: Path) -> None:
    lab = await Lab.open(make_settings(tmp_path / "bench-scale"))
    try:
        result = await scale(lab, FACTS, (10, 50), queries=3)
        assert result["generation_s"] is not None
        assert [row["candidates"] for row in result["rows"]] == [10, 50]
        for row in result["rows"]:
            assert row["queries"] == 3
            assert {"embed_query", "hybrid_search", "rerank", "total"} <= set(row["stages"])
            assert row["stock_search"]["p50"] > 0 and row["first_stage_ratio"] > 0
        assert result["server_memory"]["used_memory"] > 0
        counts = await lab.backend.cypher.deal_counts(GROUP)
        assert counts["facts"] == FACTS and counts["superseded_facts"] == int(FACTS * 0.4)
        assert await ensure_deal(lab, FACTS) is None  # the second run reuses it
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()
