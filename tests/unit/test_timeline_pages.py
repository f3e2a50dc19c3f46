"""The Timeline chart's pages: whole supersession chains, in the timeline's order, at most PAGE_BARS bars each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dashboard.timeline.charts import chart_pages, timeline_figure
from pipeline.temporal.records import FactRow, FactSelection, Link, Timeline

DAY0 = datetime(2025, 1, 1, tzinfo=UTC)


def fact(uuid: str, day: int, ends: int | None = None) -> FactRow:
    return FactRow(
        uuid, f"fact {uuid}", "REPORTED", "a", "Alpha", "b", "Beta", (), DAY0 + timedelta(days=day),
        None if ends is None else DAY0 + timedelta(days=ends), None, None, None, None, "document", "memo", None,
    )  # fmt: skip


def chained(lengths: list[int]) -> Timeline:
    """Chains of the given lengths, one after another (as `timeline()` orders them), each fact superseding the
    one before it in its chain."""
    facts, links = [], []
    for c, length in enumerate(lengths):
        for i in range(length):
            last = i == length - 1
            facts.append(fact(f"c{c}f{i}", 10 * i, None if last else 10 * (i + 1)))
            if i:
                links.append(Link(f"c{c}f{i - 1}", f"c{c}f{i}", inferred=False))
    return Timeline(FactSelection("entity", "a"), tuple(facts), tuple(links))


def test_a_timeline_that_fits_is_one_page_the_same_object() -> None:
    tl = chained([3, 2, 4])
    assert chart_pages(tl, bars=9) == [tl]


def test_pages_keep_whole_chains_in_order_and_their_links() -> None:
    tl = chained([3, 4, 2, 5, 1, 3])
    pages = chart_pages(tl, bars=7)
    assert [len(p.facts) for p in pages] == [7, 7, 4]  # 3+4 | 2+5 | 1+3: no chain cut
    assert [f for p in pages for f in p.facts] == list(tl.facts)
    assert [link for p in pages for link in p.links] == list(tl.links)
    for page in pages:
        shown = {f.uuid for f in page.facts}
        assert all(link.old in shown and link.new in shown for link in page.links)
        assert page.selection == tl.selection


def test_a_chain_longer_than_a_page_gets_a_page_of_its_own() -> None:
    pages = chart_pages(chained([2, 9, 2]), bars=4)
    assert [len(p.facts) for p in pages] == [2, 9, 2]
    assert len(pages[1].links) == 8


def test_every_link_is_an_arrow_between_its_two_bars() -> None:
    tl = chained([40, 30, 30])  # 97 arrows: set at once, not one add_annotation each
    spec = timeline_figure(tl, now=DAY0 + timedelta(days=900)).to_plotly_json()
    arrows = spec["layout"]["annotations"]
    assert len(arrows) == len(tl.links) == 97
    assert {(a["ay"], a["y"]) for a in arrows} == {(link.old, link.new) for link in tl.links}
    first = next(a for a in arrows if a["y"] == "c0f1")
    assert first["x"] == DAY0 + timedelta(days=10) and first["ax"] == DAY0 + timedelta(days=10)
