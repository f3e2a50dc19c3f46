"""The spot-check Adjudicate tab: items where reviewers disagree (relevance grades 2 or more apart, or
different support verdicts), each reviewer's answers, and the form where an adjudicator records the final
answer (audited; from then on it is what counts in the rates and the judgments). The form is for an unlocked admin
or a reviewer listed in RETRIEVAL_LAB_ADJUDICATORS, never for a reviewer who answered the item, and preselects
nothing: a final answer is always an explicit choice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.common.admin import admin_actor
from dashboard.common.grading import grade_label
from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.spotcheck.actions import ADJUDICATE, NS, safely, show_messages
from dashboard.spotcheck.source import render_source
from pipeline.api import Lab
from pipeline.api.models import RELEVANCE, VERDICTS, Disagreement
from pipeline.errors import RetrievalLabError

ITEM = f"{NS}.adj.item"
SHOWN = f"{NS}.adj.shown"  # the label the picker last showed for its pick


def support_label(verdict: str | None) -> str:
    return "—" if not verdict else VERDICTS[verdict].lower()


@dataclass(frozen=True)
class Adjudicator:
    """Who records final answers in this session, and on what authority."""

    name: str
    admin: bool  # an unlocked admin session (its name); else the reviewer's name, listed in the setting


def adjudicator_of(lab: Lab, reviewer: str) -> Adjudicator | None:
    """The unlocked admin, else the reviewer when RETRIEVAL_LAB_ADJUDICATORS lists them, else None."""
    if admin := admin_actor(lab.settings):
        return Adjudicator(admin, True)
    if reviewer and lab.spotcheck.may_adjudicate(reviewer, admin=False, adjudicators=lab.settings.adjudicators):
        return Adjudicator(reviewer, False)
    return None


def party_to(item: Disagreement, name: str) -> bool:
    """Whether `name` answered the item (the pipeline refuses it too; this says so before the click)."""
    return name.casefold() in {reviewer.casefold() for reviewer, *_ in item.answers}


def _record(lab: Lab, item: Disagreement, who: Adjudicator) -> str:
    state: dict[str, Any] = st.session_state
    note = state.get(f"{NS}.adj.note.{item.item_id}", "")
    answers: list[tuple[str, int | str]] = []
    if item.relevance_split:
        grade = state.get(f"{NS}.adj.relevance.{item.item_id}")
        if grade is None:
            raise RetrievalLabError("Pick the final relevance grade: nothing is recorded without an explicit choice.")
        answers.append(("relevance", grade))
    if item.support_split:
        verdict = state.get(f"{NS}.adj.support.{item.item_id}")
        if verdict is None:
            raise RetrievalLabError("Pick the final support verdict: nothing is recorded without an explicit choice.")
        answers.append(("support", verdict))
    allowed = lab.settings.adjudicators
    for question, answer in answers:
        lab.spotcheck.adjudicate(item.item_id, question, answer, who.name, note, admin=who.admin, adjudicators=allowed)
    recorded = [
        f"relevance {grade_label(int(a))}" if q == "relevance" else f"support {support_label(str(a))}"
        for q, a in answers
    ]
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


def render_adjudication(lab: Lab, group_id: str, reviewer: str) -> None:
    split = lab.spotcheck.disagreements(lab.spotcheck.rows(group_id))
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
    labels = {
        d.item_id: plain(
            f"{'adjudicated' if d.settled else 'open'} · {d.queue_name} #{d.position} · {d.fact}", OPTION_CHARS
        )
        for d in split
    }
    state = st.session_state
    if state.get(ITEM) not in by_id:
        state.pop(ITEM, None)
    elif state.get(SHOWN) != labels[state[ITEM]]:
        # the pick's label changed (it was just settled): set the pick again, so the box shows the new label
        # (the browser keeps drawing a label it was given until the value is set from here)
        state[ITEM] = state[ITEM]
    picked = st.selectbox("Item to adjudicate", list(by_id), key=ITEM, format_func=labels.__getitem__)
    state[SHOWN] = labels[picked]
    item = by_id[picked]
    with st.container(border=True, key=f"{NS}.adj.card"):
        st.markdown(f"**Query** · {md(item.query) if item.query else '_fact sample (no query)_'}")
        st.markdown(f"**Fact** · {md(item.fact)}")
        for answered_by, grade, verdict, note in item.answers:
            st.markdown(
                f"- **{md(answered_by)}**: relevance {grade_label(grade)} · support {support_label(verdict)}"
                + (f" · _{md(note)}_" if note else "")
            )
        if item.support_split:  # who is right about the source: the source itself, its passage highlighted
            render_source(lab, group_id, lab.spotcheck.item(item.item_id))
    who = adjudicator_of(lab, reviewer)
    if who is None:
        st.info(
            "Adjudicating takes admin actions unlocked (sidebar) or your name (reviewer, above) listed in "
            "`RETRIEVAL_LAB_ADJUDICATORS`.",
            icon=":material/gavel:",
        )
        return
    if party_to(item, who.name):
        st.warning(f"{md(who.name)} answered this item: a party to the disagreement cannot adjudicate it.")
        return
    st.caption(f"Adjudicating as {md(who.name)}" + (" (admin)." if who.admin else " (listed adjudicator)."))
    with st.form(f"{NS}.adj.form", border=False):
        cols = st.columns(2)
        if item.relevance_split:
            cols[0].selectbox(
                "Final relevance: does the fact answer the query?",
                list(RELEVANCE),
                key=f"{NS}.adj.relevance.{item.item_id}",
                format_func=grade_label,
                index=None,
                placeholder="Pick a grade…",
            )
        if item.support_split:
            cols[1].selectbox(
                "Final support: does the cited source support the fact?",
                list(VERDICTS),
                key=f"{NS}.adj.support.{item.item_id}",
                format_func=support_label,
                index=None,
                placeholder="Pick a verdict…",
            )
        st.text_input("Note (optional)", key=f"{NS}.adj.note.{item.item_id}", max_chars=2000)
        st.form_submit_button(
            "Record final answer",
            key=f"{NS}.adj.save",
            type="primary",
            on_click=safely,
            args=(lambda: _record(lab, item, who), ADJUDICATE),
        )
    show_messages(ADJUDICATE)  # under the form, where the click was
