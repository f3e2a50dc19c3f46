"""The Timeline's as-of date: where it opens, and its line on the chart."""

from __future__ import annotations

from datetime import date, timedelta

from dashboard.timeline.charts import default_as_of, timeline_figure
from pipeline.temporal.records import FactSelection, Timeline
from tests.unit.test_timeline_pages import DAY0, chained, fact

TODAY = date(2026, 11, 23)


def test_it_opens_the_day_before_the_middle_change() -> None:
    tl = chained([4])  # changes on days 10, 20, 30
    assert default_as_of(tl, TODAY) == (DAY0 + timedelta(days=19)).date()


def test_a_timeline_that_never_changed_opens_on_today() -> None:
    tl = Timeline(FactSelection("entity", "a"), (fact("x", 0), fact("y", 5)), ())
    assert default_as_of(tl, TODAY) == TODAY


def test_a_change_today_opens_yesterday_never_later_than_today() -> None:
    today = (DAY0 + timedelta(days=10)).date()
    assert default_as_of(chained([2]), today) == today - timedelta(days=1)
    assert default_as_of(chained([2]), today - timedelta(days=5)) == today - timedelta(days=5)


def test_the_as_of_date_is_a_labelled_line_and_leaves_the_arrows_alone() -> None:
    tl = chained([3, 2])
    plain = timeline_figure(tl)
    assert not plain.layout.shapes
    drawn = timeline_figure(tl, as_of=date(2025, 1, 15))
    [line] = drawn.layout.shapes
    assert (line.x0, line.x1, line.yref, line.y0, line.y1) == ("2025-01-15", "2025-01-15", "paper", 0, 1)
    assert line.label.text == "as of 2025-01-15"
    assert len(drawn.layout.annotations) == len(tl.links) and all(a.showarrow for a in drawn.layout.annotations)
