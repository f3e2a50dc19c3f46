"""The Citation spot-check page: reviewer, queue picker, review card, summary, adjudication, new-queue form.

Everything is computed in `pipeline/spotcheck`; this module lays out the review card and the page (the
Summary, Adjudicate and New queue tabs have modules of their own). Answer and build buttons act in `on_click`
callbacks (`actions.safely`), which record to the store at once. On the review card an answer key saves on the
card it was pressed on and the card stays (its confirmation shows by the keys); only Enter (Next) and ← change
the card, so "answer, answer, Enter" reviews every card in turn.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import MutableMapping
from functools import partial
from typing import Any

import streamlit as st

from dashboard.common.grading import button_label, grade_help, grade_label, reviewer_input, rubric_line
from dashboard.common.links import evidence_params
from dashboard.common.page_state.memo import SessionMemo
from dashboard.common.page_state.url import linked_id, publish_id, restore_id
from dashboard.common.tables import stamp
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.spotcheck.actions import CARD, NS, QUEUE, safely, show_messages
from dashboard.spotcheck.adjudication import render_adjudication
from dashboard.spotcheck.keys import apply_keys, key_widget, record_answer, render_keys, show_key_lines, undo_stack
from dashboard.spotcheck.new_queue import render_new_queue
from dashboard.spotcheck.pools import render_new_pool, render_pool_panel
from dashboard.spotcheck.source import render_source
from dashboard.spotcheck.summary import render_summary
from pipeline.api import Lab
from pipeline.api.models import PRIORITIES, QUESTIONS, RELEVANCE, SIGNALS, SOURCES, VERDICTS, Pool, Queue, QueueItem
from pipeline.errors import RetrievalLabError

ITEM = f"{NS}.item"  # the card's position, in the URL only (a link opens that queue at that card)
NOTE = f"{NS}.note"
NOTE_FOR = f"{NS}.note_for"
POSITIONS = SessionMemo(f"{NS}.positions", keep=100)  # each (queue, reviewer) card open in this session


def queue_picker(queues: list[Queue], pools: dict[int, Pool]) -> Queue | None:
    by_id = {q.id: q for q in queues}
    restore_id(QUEUE, by_id, "queue", "a queue of this deal")  # a link or a reload opens the same queue
    if st.session_state.get(QUEUE) not in by_id:
        st.session_state.pop(QUEUE, None)
    picked = st.selectbox(
        "Review queue",
        list(by_id),
        key=QUEUE,
        format_func=lambda i: plain(by_id[i].label(pools.get(i)), OPTION_CHARS),
        placeholder="Build a queue first",
        help="Queues of this deal, newest first.",
    )
    publish_id(QUEUE, picked)
    return by_id.get(picked) if picked is not None else None


# --- the review card ------------------------------------------------------------------------------


def _position_key(queue: Queue, reviewer: str) -> tuple[int, str]:
    return (queue.id, reviewer.casefold())


def current_position(lab: Lab, queue: Queue, reviewer: str) -> int:
    """The card's position: kept per (queue, reviewer) in the session; when new, the link's card (a link or a
    reload opens that card), else the first open item. Once the session holds a position, only the card's own
    moves change it: the browser sends its address with every rerun, and a rerun sent by a key before the page's
    last card reached the address carries a card the reviewer has already left."""
    key = _position_key(queue, reviewer)
    rule = f"a card of this queue (1 to {queue.item_count})"
    if key not in POSITIONS and (linked := linked_id(ITEM, range(1, queue.item_count + 1), "card", rule)) is not None:
        POSITIONS.put(key, linked)
    position = POSITIONS.get(
        key, lambda: (lab.spotcheck.resume_position(queue.id, reviewer) if reviewer else None) or 1
    )
    return min(max(1, position), queue.item_count)


def _move(queue: Queue, reviewer: str, position: int) -> None:
    POSITIONS.put(_position_key(queue, reviewer), position)


def _shown(queue: Queue, reviewer: str) -> int | None:
    return POSITIONS.peek(_position_key(queue, reviewer))


def _on_card(queue: Queue, reviewer: str, position: int) -> None:
    """Refuse a key pressed on a card that is no longer the one shown (pressed while the page was changing
    cards): it acts on the card it was pressed on, or on none, never on another."""
    shown = _shown(queue, reviewer)
    if shown is not None and shown != position:
        raise RetrievalLabError(
            f"Not saved: that key was pressed on card {position}, which is no longer shown (card {shown} is). "
            "Press it again if it was meant for this card."
        )


def _go(queue: Queue, reviewer: str, position: int, to: int) -> str | None:
    """Previous / Next, pressed on card `position`: to card `to`, the only way the card changes."""
    _on_card(queue, reviewer, position)
    _move(queue, reviewer, to)
    return None


def _note(queue: Queue, reviewer: str) -> tuple[int | None, str]:
    """The card the note field is on (its item id, when it is this queue's and reviewer's) and the note's text: an
    answer takes the note only on the card it was typed on (a key may name another card)."""
    on = st.session_state.get(NOTE_FOR)
    item_id = on[1] if on and on[0] == queue.id and on[2] == reviewer.casefold() else None
    return item_id, st.session_state.get(NOTE, "")


def _positions(queue: Queue, reviewer: str) -> tuple[MutableMapping[Any, Any], tuple[int, str]]:
    """The session's card positions (POSITIONS' own mapping) and this queue's and reviewer's key in it: a key moves
    the card by writing there, with no Streamlit call between a key's save and its record (keys.py)."""
    return st.session_state.setdefault(POSITIONS.name, OrderedDict()), _position_key(queue, reviewer)


def _record(lab: Lab, queue: Queue, item: QueueItem, reviewer: str, verdict: str) -> str:
    """A support button clicked (the keys take `keys.apply_keys`, which saves through the same `record_answer`)."""
    _on_card(queue, reviewer, item.position)
    note_item, note = _note(queue, reviewer)
    undo = undo_stack(queue.id, reviewer)
    return record_answer(lab, item, reviewer, "support", verdict, note if note_item == item.id else "", undo)


def _record_grade(lab: Lab, queue: Queue, item: QueueItem, reviewer: str, grade: int) -> str:
    _on_card(queue, reviewer, item.position)
    note_item, note = _note(queue, reviewer)
    undo = undo_stack(queue.id, reviewer)
    return record_answer(lab, item, reviewer, "relevance", grade, note if note_item == item.id else "", undo)


def key_hint(item: QueueItem, count: int, asks_support: bool, graded: bool, verdict: bool) -> str:
    """What the next key does on this card: the questions still open, then Enter for the next card."""
    still = [
        "relevance **A S D F** (0-3)" if item.query and not graded else "",
        "support **1-4**" if asks_support and not verdict else "",
    ]
    following = f"**Enter**: card {item.position + 1}" if item.position < count else "last card: see **Summary**"
    back = " · **←** previous" if item.position > 1 else ""
    if any(still):
        todo = " and ".join(p for p in still if p)
        return f"Card {item.position}: {todo} (saved on this card, which stays) · {following}{back} · **?** keys."
    return f"Card {item.position} answered (a key changes its answer) · {following}{back} · **?** keys."


def render_card(lab: Lab, queue: Queue, reviewer: str) -> None:
    items = lab.spotcheck.items(queue.id)
    if not items:
        st.info("This queue has no items.")
        return
    position = current_position(lab, queue, reviewer)
    publish_id(ITEM, position)
    item = items[position - 1]
    mine = lab.spotcheck.verdicts_by(queue.id, reviewer) if reviewer else {}
    my_grades = lab.spotcheck.relevance_by(queue.id, reviewer) if reviewer else {}
    done = lab.spotcheck.progress(queue.id, reviewer) if reviewer else None

    if reviewer:  # first on the card, where nothing before it comes and goes: a redraw keeps the same component
        widget = key_widget(queue, reviewer)
        positions, note = partial(_positions, queue, reviewer), partial(_note, queue, reviewer)
        apply = partial(apply_keys, lab, queue, reviewer, widget, positions, note)
        with st.container(key=f"{NS}.card.keys"):
            render_keys(lab, queue, reviewer, items, position, apply)
    top = st.columns([3, 1, 1])
    if done is not None:
        top[0].progress(done.fraction, text=f"{done.done} / {done.total} reviewed by {md(reviewer)}")
        top[1].metric("Your progress", f"{done.done} / {done.total}")
    else:
        top[0].info("Enter your name above to record verdicts; you can browse the queue meanwhile.")
    top[2].metric("Item", f"{position} / {len(items)}")

    with st.container(border=True, key=f"{NS}.card"):
        query = md(item.query) if item.query else "_fact sample (no query)_"
        origin = [
            f"labelled query {md(item.query_id)}" if item.query_id else "",
            f"run #{item.run_id}" if item.run_id is not None else "",
            f"result #{item.rank}" if item.rank is not None else "a random fact of the deal",
            f"score {item.score:.3f}" if item.score is not None else "",
        ]
        st.markdown(f"**Query** · {query}")
        st.caption(" · ".join(p for p in origin if p))
        st.markdown(f"**Fact** · {md(item.fact)}")
        badges = st.container(horizontal=True)
        if item.superseded:
            badges.badge("superseded", color="orange", icon=":material/history:")
        for signal in item.signals:
            badges.badge(md(SIGNALS.get(signal, signal)), color="violet")
        st.page_link(
            "app_pages/evidence.py",
            label="Evidence: the fact's entities, versions and sources",
            icon=":material/hub:",
            query_params=evidence_params(queue.group_id, item.fact_uuid, query=item.query or None),
        )
        render_source(lab, queue.group_id, item)

    current = mine.get(item.id)
    grade = my_grades.get(item.id)
    yours = [
        f"relevance **{grade_label(grade.grade)}** (revision {grade.revision})" if grade else "",
        f"support **{VERDICTS[current.verdict]}** (revision {current.revision})" if current else "",
    ]
    if any(yours):
        updated = max(a.updated_at for a in (grade, current) if a is not None)
        st.caption(f"Your answers: {' · '.join(p for p in yours if p)} · updated {stamp(updated)} UTC")
    note_for = (queue.id, item.id, reviewer.casefold())
    if st.session_state.get(NOTE_FOR) != note_for:  # a new card: show this reviewer's note on it, if any
        st.session_state[NOTE] = (current.note if current else "") or (grade.note if grade else "")
        st.session_state[NOTE_FOR] = note_for
    st.text_input("Note (optional)", key=NOTE, max_chars=2000, placeholder="Why? e.g. the page says 2024, not 2025")

    # the keyboard is the key component's (keys.py: each key names the card it was pressed on and is applied once,
    # in order); these buttons are for the mouse, each the card's own (its item id in the widget key), so a click
    # acts on that card or, once the page has moved to another card, on none (`_on_card`)
    card = f"{NS}.{item.id}"
    asked_on = lab.spotcheck.relevance_cards(items).get(item.id, item.id)
    if item.query and asked_on != item.id:  # another citation of the same result: relevance was asked there
        first = next(i for i in items if i.id == asked_on)
        given = my_grades.get(asked_on)
        there = f" (your answer there: {grade_label(given.grade)})" if given else ""
        st.markdown(f"**1 · {QUESTIONS['relevance']}**")
        st.caption(
            f"Asked on card {first.position}{there}, which cites the same fact for the same query: "
            "this card asks support only."
        )
        grade = given
    elif item.query:
        st.markdown(f"**1 · {QUESTIONS['relevance']}**")
        st.caption(rubric_line())
        for column, value in zip(st.columns(4), RELEVANCE, strict=True):
            column.button(
                button_label(value),
                key=f"{card}.r.{value}",
                help=grade_help(value),
                disabled=not reviewer,
                width="stretch",
                type="primary" if grade is not None and grade.grade == value else "secondary",
                on_click=safely,
                args=(partial(_record_grade, lab, queue, item, reviewer, value), CARD),
            )
    else:
        st.caption("A fact sample has no query: only the support question applies.")
    st.markdown(f"**{'2 · ' if item.query else ''}{QUESTIONS['support']}**")
    for column, (verdict, label) in zip(st.columns(4), VERDICTS.items(), strict=True):
        column.button(
            label,
            key=f"{card}.v.{verdict}",
            disabled=not reviewer,
            width="stretch",
            type="primary" if current is not None and current.verdict == verdict else "secondary",
            on_click=safely,
            args=(partial(_record, lab, queue, item, reviewer, verdict), CARD),
        )
    nav = st.columns([1, 1, 4], vertical_alignment="center")
    nav[0].button(
        "Previous",
        key=f"{card}.prev",
        icon=":material/arrow_back:",
        disabled=position <= 1,
        on_click=safely,
        args=(partial(_go, queue, reviewer, position, position - 1), CARD),
    )
    nav[1].button(
        "Next",
        key=f"{card}.next",
        icon=":material/arrow_forward:",
        disabled=position >= len(items),
        on_click=safely,
        args=(partial(_go, queue, reviewer, position, position + 1), CARD),
    )
    asks_support = lab.pools.of_queue(queue.id) is None  # a judging pool asks the relevance question only
    graded = grade is not None or asked_on != item.id  # relevance is not asked on this card again
    hint = key_hint(item, len(items), asks_support, graded, current is not None) if reviewer else ""
    nav[2].caption((hint or "Enter your name above to answer.") + " Keys do not act while typing in a field.")
    with st.container(key=f"{NS}.card.messages"):  # the confirmation, by the card's keys
        show_messages(CARD)
        show_key_lines(queue, reviewer)


def render_spotcheck_page(lab: Lab, group_id: str) -> None:
    reviewer = reviewer_input()
    show_messages()
    queues = lab.spotcheck.queues(group_id)
    pools = {p.queue_id: p for p in lab.pools.deal_pools(group_id)}
    queue = queue_picker(queues, pools)
    # keyed and in the URL, the tabs keep their selection through a rerun (an action on Adjudicate stays on
    # Adjudicate) and a reload
    review, summary, adjudicate, new = st.tabs(
        ["Review", "Summary", "Adjudicate", "New queue"], key=f"{NS}.tab", on_change="rerun", bind="query-params"
    )
    with review:
        if queue is None:
            st.info("No review queue on this deal yet: build one in **New queue**.")
        else:
            st.caption(
                f"Built by {md(queue.created_by)} on {stamp(queue.created_at)} UTC · "
                f"{md(SOURCES.get(queue.source, queue.source))} · "
                f"{md(PRIORITIES.get(queue.priority, queue.priority))} · "
                f"size {queue.size} · seed {queue.seed}"
            )
            if queue.id in pools:
                render_pool_panel(lab, pools[queue.id], reviewer)
            render_card(lab, queue, reviewer)
    with summary:
        render_summary(lab, group_id, queue)
    with adjudicate:
        render_adjudication(lab, group_id, reviewer)
    with new:
        render_new_queue(lab, group_id)
        render_new_pool(lab, group_id)
