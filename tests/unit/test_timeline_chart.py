"""The Timeline chart reads without hovering: a title naming what it shows, dates above and below the bars, and bar
labels that keep the end of a long fact (where a chain's values differ)."""

from __future__ import annotations

from dataclasses import replace

from dashboard.timeline.charts import LABEL_CHARS, chart_title, clip_middle, timeline_figure
from pipeline.temporal.records import FactSelection, Timeline
from tests.unit.test_timeline_pages import chained, fact

CASH = "Halcyon Freight Systems' consolidated cash balance, as reported in the quality of earnings report, was"


def test_a_chains_long_facts_are_told_apart_by_their_labels() -> None:
    facts = tuple(replace(fact(f"f{i}", 10 * i), fact=f"{CASH} ${v} million at {d}.") for i, (v, d) in enumerate(
        (("1.6", "February 28, 2026"), ("2.1", "March 31, 2026"), ("1.9", "April 30, 2026"))
    ))  # fmt: skip
    figure = timeline_figure(Timeline(FactSelection("relation", "HAS_CASH"), facts, ()))
    labels = list(figure.layout.yaxis.ticktext)
    assert len(set(labels)) == 3 and all(len(label.replace("&#36;", "$")) <= LABEL_CHARS for label in labels)
    assert labels[0].startswith("Halcyon Freight") and labels[0].endswith("&#36;1.6 million at February 28, 2026.")
    assert clip_middle("short", 10) == "short" and len(clip_middle("x" * 200, 70)) == 70


def test_a_figure_the_middle_cut_would_hide_is_kept() -> None:
    audited = "Halcyon's audited FY2025 revenue was $5.2 million, excluding the $0.4 million cut-off adjustment."
    label = clip_middle(audited, LABEL_CHARS)
    assert len(label) <= LABEL_CHARS and "$5.2 million" in label and label.endswith("cut-off adjustment.")
    cash = f"{CASH} $1.6 million at February 28, 2026."  # its figure sits in the tail: the usual cut keeps it
    assert clip_middle(cash, LABEL_CHARS).endswith("$1.6 million at February 28, 2026.")


def test_the_chart_has_a_title_and_dates_above_and_below() -> None:
    tl = chained([3, 2])
    figure = timeline_figure(tl, title=chart_title(tl))
    assert figure.layout.title.text == "Facts of Alpha over time"  # the entity by its name, not its uuid
    assert figure.layout.xaxis2.side == "top" and figure.layout.xaxis2.matches == "x"
    assert any(trace.xaxis == "x2" for trace in figure.data)  # an axis is drawn only with a trace on it
    assert chart_title(Timeline(FactSelection("query", "cash <b>"), (), ())) == "Facts about “cash <b>” over time"
    assert figure.to_dict()  # a valid figure
    legend = figure.layout.legend  # inside the figure, under the title: anchored at its bottom it was drawn off the top
    assert legend.yref == "container" and legend.yanchor == "top" and 0.5 < legend.y < 1
