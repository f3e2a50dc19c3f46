"""The spot-check Summary tab: rates with their Wilson intervals, reviewers' agreement per question, charts,
every answer and the CSV export (all computed in `pipeline/spotcheck`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.common.tables import show_table
from dashboard.common.text import md
from dashboard.spotcheck.actions import NS
from dashboard.spotcheck.charts import verdict_bars
from pipeline.api import Lab
from pipeline.api.models import Agreement, Queue, Rate, RateRow

ANSWER_NAMES = {
    "queue_name": "Queue",
    "position": "Item",
    "query": "Query",
    "fact": "Fact",
    "document_name": "Document",
    "channel": "Channel",
    "reviewer": "Reviewer",
    "relevance": "Relevance",
    "support": "Support",
    "note": "Note",
    "final_relevance": "Final relevance",
    "final_support": "Final support",
    "updated_at": "Updated",
}


def _percent(rate: Rate) -> str:
    return f"{rate.value:.0%}" if rate.n else "—"


def _agreement(column: st.delta_generator.DeltaGenerator, label: str, found: Agreement) -> None:
    column.metric(label, "—" if found.value is None else f"{found.value:.2f}", help=found.statistic or None)
    column.caption(md(found.text()))


def _rate_table(rows: tuple[RateRow, ...], what: str) -> pd.DataFrame:
    def interval(row: RateRow) -> str:
        low, high = row.supported.interval or (0.0, 1.0)
        return f"{low:.0%}-{high:.0%}"

    return pd.DataFrame(
        [
            {what: r.key, "Support answers": r.verdicts, "Supported rate": _percent(r.supported), "95% CI": interval(r)}
            for r in rows
        ]
    )


def render_summary(lab: Lab, group_id: str, queue: Queue | None) -> None:
    whole_deal = st.toggle("All queues of this deal", key=f"{NS}.summary_all", value=queue is None)
    rows = lab.spotcheck.rows(group_id, None if whole_deal or queue is None else queue.id)
    if not rows:
        st.info("No answers recorded yet.")
        return
    summary = lab.spotcheck.summarise(rows)
    cols = st.columns(4)
    cols[0].metric("Items reviewed", f"{summary.items_reviewed:,}")
    cols[1].metric("Reviewers", f"{summary.reviewers:,}")
    cols[2].metric("Supported rate", _percent(summary.overall.supported), help="Support verdicts 'supported'.")
    cols[3].metric("Relevant rate", _percent(summary.relevance.relevant), help="Relevance grades 2 or 3.")
    st.caption(
        f"Supported (the source supports the fact): {summary.overall.supported.text()} · "
        f"relevant (grade 2-3): {summary.relevance.relevant.text()} · "
        f"answers the query (grade 3): {summary.relevance.answering.text()}. "
        "95% Wilson intervals. Each reviewer's answer counts once; an adjudicated item counts once, with its "
        f"final answer ({summary.adjudicated} adjudicated)."
    )

    st.subheader("Agreement between reviewers")
    left, right = st.columns(2)
    _agreement(left, "Relevance agreement", summary.relevance_agreement)
    _agreement(right, "Support agreement", summary.support_agreement)
    st.caption(
        "On the items answered in common, before adjudication. Two reviewers: Cohen's kappa (relevance with "
        "quadratic weights: 0 vs 3 is a bigger split than 2 vs 3); more: Krippendorff's alpha (ordinal for "
        "relevance, nominal for support). 1 is full agreement, 0 what chance gives."
    )

    st.subheader("Faithfulness: does the cited source support the fact?")
    if summary.overall.verdicts:
        st.caption("Share of each support verdict; the green bar's label is the supported rate and its 95% interval.")
        left, right = st.columns(2)
        left.plotly_chart(verdict_bars(summary.by_channel, "By source channel"), key=f"{NS}.by_channel")
        right.plotly_chart(verdict_bars(summary.by_document, "By document"), key=f"{NS}.by_document")
        show_table(_rate_table(summary.by_channel, "Channel"), f"{NS}.rates_channel", where=left)
        show_table(_rate_table(summary.by_document, "Document"), f"{NS}.rates_document", where=right)
    else:
        st.caption("No support verdicts yet.")

    st.subheader("All answers")
    frame = pd.DataFrame([r.__dict__ for r in rows])
    show_table(  # "Export CSV" below: one row per item and reviewer, both answers
        frame, f"{NS}.verdicts", names=ANSWER_NAMES, times=("updated_at",), order=list(ANSWER_NAMES), export=False
    )
    scope = group_id if whole_deal or queue is None else f"{group_id}-queue{queue.id}"
    st.download_button(
        "Export CSV (one row per item and reviewer, both answers)",
        lab.spotcheck.export_csv(rows).encode(),
        file_name=f"spotcheck-{scope}.csv",
        mime="text/csv",
        key=f"{NS}.export",
        icon=":material/download:",
        on_click="ignore",
    )
