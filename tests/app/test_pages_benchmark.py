"""`python -m benchmarks pages` measures each page in the state that shows its content (here on the demo deal)."""

from __future__ import annotations

from benchmarks.pages import PAGES, measure_page


def test_a_page_is_measured_cold_then_warm_with_its_content_shown(demo: str) -> None:
    pages = {p.title: p for p in PAGES}
    for title in ("Timeline", "Scores"):
        row = measure_page(pages[title], demo, "What is Halcyon's annual recurring revenue?", repeat=2)
        assert row["page"] == title and row["problems"] == []
        assert row["content_shown"], title  # the chart of the busiest entity; the candidates table
        assert row["cold_ms"] > 0 and len(row["warm_ms"]) == 2 and row["warm_median_ms"] >= 0
