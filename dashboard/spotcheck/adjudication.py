"""The spot-check Adjudicate tab: items where reviewers disagree (relevance grades 2 or more apart, or
different support verdicts), each reviewer's answers, and the form where an adjudicator records the final
answer (audited; from then on it is what counts in the rates and the judgments)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.spotcheck.actions import NS, safely
from pipeline.errors import RetrievalLabError
from pipeline.lab import Lab
from pipeline.spotcheck.repo import verdict_rows
from pipeline.spotcheck.verdicts import RELEVANCE, VERDICTS, Disagreement, adjudicate, disagreements

ITEM = f"{NS}.adj.item"


def grade_label(grade: int | None) -> str:
    return "—" if grade is None else f"{grade} · {RELEVANCE[grade].lower()}"


def support_label(verdict: str | None) -> str:
    return "—" if not verdict else VERDICTS[verdict].lower()


def _record(lab: Lab, item: Disagreement, adjudicator: str) -> str:
    if not adjudicator:
        raise RetrievalLabError("Enter your name (reviewer) above: adjudications are recorded under it.")
    state: dict[str, Any] = st.session_state
    note = state.get(f"{NS}.adj.note.{item.item_id}", "")
    recorded = []
    if item.relevance_split:
        grade = int(state[f"{NS}.adj.relevance.{item.item_id}"])
        adjudicate(lab.store, item.item_id, "relevance", grade, adjudicator, note)
        recorded.append(f"relevance {grade_label(grade)}")
    if item.support_split:
        verdict = state[f"{NS}.adj.support.{item.item_id}"]
        adjudicate(lab.store, item.item_id, "support", verdict, adjudicator, note)
        recorded.append(f"support {support_label(verdict)}")
    return f"Recorded the final answer for item {item.position} of {md(item.queue_name)}: {', '.join(recorded)}."


def _split_on(item: Disagreement) -> str:
    questions = (("relevance", item.relevance_split), ("support", item.support_split))
    return " and ".join(question for question, split in questions if split)


def _table(split: list[Disagreement]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "Status": "adjudicated" if d.settled else "open",
                "Queue": d.queue_name,
                "Item": d.position,
                "Query": d.query or "fact sample",
                "Fact": d.fact,
                "Document": d.document_name,
                "Split on": _split_on(d),
                "Answers": "; ".join(
                    f"{r}: relevance {grade_label(g)}, support {support_label(v)}" + (f" ({n})" if n else "")
                    for r, g, v, n in d.answers
                ),
                "Final relevance": grade_label(d.final_relevance) if d.relevance_split else None,
                "Final support": support_label(d.final_support) if d.support_split else None,
            }
            for d in split
        ]
    )


def render_adjudication(lab: Lab, group_id: str, adjudicator: str) -> None:
    split = disagreements(verdict_rows(lab.store, group_id))
    if not split:
        st.caption(
            "No disagreements on this deal: an item lands here when reviewers' relevance grades are 2 or more "
            "apart, or their support verdicts differ."
        )
        return
    still_open = sum(1 for d in split if not d.settled)
    st.caption(
        f"{still_open} open, {len(split) - still_open} adjudicated (all queues of the deal): relevance grades 2 or "
        "more apart, or different support verdicts. The final answer is what counts in the rates and the "
        "judgments; each one is audited."
    )
    show_table(_table(split), f"{NS}.disagreements")

    by_id = {d.item_id: d for d in split}
    if st.session_state.get(ITEM) not in by_id:
        st.session_state.pop(ITEM, None)
    picked = st.selectbox(
        "Item to adjudicate",
        list(by_id),
        key=ITEM,
        format_func=lambda i: plain(
            f"{'adjudicated' if by_id[i].settled else 'open'} · {by_id[i].queue_name} #{by_id[i].position} · "
            f"{by_id[i].fact}",
            OPTION_CHARS,
        ),
    )
    item = by_id[picked]
    with st.container(border=True, key=f"{NS}.adj.card"):
        st.markdown(f"**Query** · {md(item.query) if item.query else '_fact sample (no query)_'}")
        st.markdown(f"**Fact** · {md(item.fact)}")
        for reviewer, grade, verdict, note in item.answers:
            st.markdown(
                f"- **{md(reviewer)}**: relevance {grade_label(grade)} · support {support_label(verdict)}"
                + (f" · _{md(note)}_" if note else "")
            )
    with st.form(f"{NS}.adj.form", border=False):
        cols = st.columns(2)
        if item.relevance_split:
            cols[0].selectbox(
                "Final relevance: does the fact answer the query?",
                list(RELEVANCE),
                key=f"{NS}.adj.relevance.{item.item_id}",
                format_func=grade_label,
                index=item.final_relevance or 0,
            )
        if item.support_split:
            cols[1].selectbox(
                "Final support: does the cited source support the fact?",
                list(VERDICTS),
                key=f"{NS}.adj.support.{item.item_id}",
                format_func=support_label,
                index=list(VERDICTS).index(item.final_support) if item.final_support else 0,
            )
        st.text_input("Note (optional)", key=f"{NS}.adj.note.{item.item_id}", max_chars=2000)
        st.form_submit_button(
            "Record final answer",
            key=f"{NS}.adj.save",
            type="primary",
            disabled=not adjudicator,
            on_click=safely,
            args=(lambda: _record(lab, item, adjudicator),),
        )
    if not adjudicator:
        st.caption("Enter your name (reviewer) above to adjudicate.")
