"""The Citation spot-check page: reviewer, queue picker, review card, summary, new-queue form.

Everything is computed in `pipeline/spotcheck`; this module lays it out. Verdict and build buttons act
in `on_click` callbacks (before the script reruns), which record to the store at once and move the card
on; a failure leaves a one-line message in session state that the page shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.common.flash import flash, show_flash
from dashboard.common.runtime import run
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.spotcheck.charts import verdict_bars
from pipeline.errors import RetrievalLabError
from pipeline.lab import Lab
from pipeline.rerankers import reranker_choices
from pipeline.retrieval.citations import fetch_episodes
from pipeline.spotcheck.highlight import find_span, to_html
from pipeline.spotcheck.labels import queue_label
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import Queue, QueueItem, QueueSpec
from pipeline.spotcheck.repo import (
    list_queues,
    next_open_position,
    progress,
    queue_items,
    resume_position,
    reviewer_verdicts,
    verdict_rows,
)
from pipeline.spotcheck.sampling import MAX_SIZE, PRIORITIES, SIGNALS, SOURCES
from pipeline.spotcheck.verdicts import VERDICTS, disagreements, export_csv, record_verdict, summarise

log = logging.getLogger("retrieval_lab")
NS = "spotcheck"
REVIEWER = f"{NS}.reviewer"
QUEUE = f"{NS}.queue"
NOTE = f"{NS}.note"
NOTE_FOR = f"{NS}.note_for"
POSITIONS = f"{NS}.positions"
EPISODE_CHARS = 20_000
FLASH = f"{NS}.flash"
ERROR = f"{NS}.error"
SHORTCUTS = {"supported": "1", "partially_supported": "2", "not_supported": "3", "wrong_source": "4"}


def _safely(action: Callable[[], str | None]) -> None:
    """Run a callback action; its message (or its error, one line) is shown on the next run."""
    try:
        message = action()
        if message:
            flash(FLASH, message)
    except RetrievalLabError as exc:
        flash(ERROR, md(exc), "error")
    except Exception as exc:  # the trace goes to the server log, the page shows one line
        log.exception("spot-check action failed")
        flash(ERROR, f"Something went wrong: {type(exc).__name__}: {md(exc)}", "error")


def show_messages() -> None:
    show_flash(ERROR)
    show_flash(FLASH)


def reviewer_input() -> str:
    return st.text_input(
        "Your name (reviewer)",
        key=REVIEWER,
        max_chars=80,
        bind="query-params",
        placeholder="Required before recording verdicts",
        help="Each verdict is kept under its reviewer's name.",
    ).strip()


def queue_picker(queues: list[Queue]) -> Queue | None:
    by_id = {q.id: q for q in queues}
    if st.session_state.get(QUEUE) not in by_id:
        st.session_state.pop(QUEUE, None)
    picked = st.selectbox(
        "Review queue",
        list(by_id),
        key=QUEUE,
        format_func=lambda i: plain(queue_label(by_id[i]), OPTION_CHARS),
        placeholder="Build a queue first",
        help="Queues of this deal, newest first.",
    )
    return by_id.get(picked) if picked is not None else None


# --- the review card ------------------------------------------------------------------------------


def _position_key(queue: Queue, reviewer: str) -> tuple[int, str]:
    return (queue.id, reviewer.casefold())


def current_position(lab: Lab, queue: Queue, reviewer: str) -> int:
    """The card's position: kept per (queue, reviewer) in the session; first open item when new."""
    positions: dict[tuple[int, str], int] = st.session_state.setdefault(POSITIONS, {})
    key = _position_key(queue, reviewer)
    if key not in positions:
        positions[key] = (resume_position(lab.store, queue.id, reviewer) if reviewer else None) or 1
    return min(max(1, positions[key]), queue.item_count)


def _move(queue: Queue, reviewer: str, position: int) -> None:
    st.session_state.setdefault(POSITIONS, {})[_position_key(queue, reviewer)] = position


def _record(lab: Lab, queue: Queue, item: QueueItem, reviewer: str, verdict: str) -> str:
    saved = record_verdict(lab.store, item.id, reviewer, verdict, st.session_state.get(NOTE, ""))
    following = next_open_position(lab.store, queue.id, reviewer, after=item.position)
    if following is None:
        _move(queue, reviewer, min(item.position + 1, queue.item_count))
        done = "All items reviewed: see the summary."
    else:
        _move(queue, reviewer, following)
        done = f"Next: item {following}."
    again = f" (revision {saved.revision})" if saved.revision > 1 else ""
    return f"Recorded **{VERDICTS[verdict].lower()}** for item {item.position}{again}. {done}"


def _episode_html(lab: Lab, queue: Queue, item: QueueItem) -> tuple[str, str]:
    """(escaped HTML with the supporting span marked, how it was found)."""
    episodes = run(fetch_episodes(lab.backend, queue.group_id, [item.citation.episode_uuid]))
    content = (episodes.get(item.citation.episode_uuid) or {}).get("content")
    note = ""
    if not content:
        content, note = (
            item.citation.snippet,
            "The source episode is no longer in the graph: showing the stored snippet.",
        )
    content = plain(content, EPISODE_CHARS)  # a huge episode is cut before it is searched and sent
    match = find_span(item.fact, content)
    how = {
        "exact": "Highlighted: the sentence holding the fact's figures / names (in bold; $4.9M = $4.9 million).",
        "overlap": "No sentence holds the fact's figures or names: a weak match, the sentence sharing most words.",
        "none": "No sentence of the episode matches the fact: nothing highlighted.",
    }[match.method]
    body = to_html(content, match)
    style = (
        "white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.6;padding:0.75rem 1rem;"
        "border-radius:0.5rem;background:#f6f7f9"
    )
    return f'<div class="spotcheck-episode" style="{style}">{body}</div>', " ".join(p for p in (note, how) if p)


def render_card(lab: Lab, queue: Queue, reviewer: str) -> None:
    items = queue_items(lab.store, queue.id)
    if not items:
        st.info("This queue has no items.")
        return
    position = current_position(lab, queue, reviewer)
    item = items[position - 1]
    mine = reviewer_verdicts(lab.store, queue.id, reviewer) if reviewer else {}
    done = progress(lab.store, queue.id, reviewer) if reviewer else None

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
        c = item.citation
        parts = [
            c.document_name or "(no document)",
            c.location,
            c.channel.replace("_", " "),
            f"confidence {c.confidence:.2f}",
            c.author,
            c.episode_valid_at or "",
        ]
        st.markdown(f":material/description: **Citation** · {md(' · '.join(p for p in parts if p))}")
        html, how = _episode_html(lab, queue, item)
        st.html(html)
        st.caption(how)

    current = mine.get(item.id)
    if current is not None:
        st.caption(
            f"Your verdict: **{VERDICTS[current.verdict]}** · revision {current.revision} · "
            f"updated {current.updated_at[:19].replace('T', ' ')} UTC"
        )
    note_for = (queue.id, item.id, reviewer.casefold())
    if st.session_state.get(NOTE_FOR) != note_for:  # a new card: show this reviewer's note on it, if any
        st.session_state[NOTE] = current.note if current else ""
        st.session_state[NOTE_FOR] = note_for
    st.text_input("Note (optional)", key=NOTE, max_chars=2000, placeholder="Why? e.g. the page says 2024, not 2025")

    buttons = st.columns(4)
    for column, (verdict, label) in zip(buttons, VERDICTS.items(), strict=True):
        column.button(
            label,
            key=f"{NS}.v.{verdict}",
            shortcut=SHORTCUTS[verdict],
            disabled=not reviewer,
            width="stretch",
            type="primary" if current is not None and current.verdict == verdict else "secondary",
            on_click=_safely,
            args=(lambda v=verdict: _record(lab, queue, item, reviewer, v),),
        )
    nav = st.columns([1, 1, 4])
    nav[0].button(
        "Previous",
        key=f"{NS}.prev",
        shortcut="Left",
        icon=":material/arrow_back:",
        disabled=position <= 1,
        on_click=_move,
        args=(queue, reviewer, position - 1),
    )
    nav[1].button(
        "Next",
        key=f"{NS}.next",
        shortcut="Enter",
        icon=":material/arrow_forward:",
        disabled=position >= len(items),
        on_click=_move,
        args=(queue, reviewer, position + 1),
    )
    nav[2].caption(
        "Keys: **1** supported · **2** partially · **3** not supported · **4** wrong source · "
        "**Enter** next · **←** previous (not while typing in a field)."
    )


# --- summary ----------------------------------------------------------------------------------------


def render_summary(lab: Lab, group_id: str, queue: Queue | None) -> None:
    whole_deal = st.toggle("All queues of this deal", key=f"{NS}.summary_all", value=queue is None)
    rows = verdict_rows(lab.store, group_id, None if whole_deal or queue is None else queue.id)
    if not rows:
        st.info("No verdicts recorded yet.")
        return
    summary = summarise(rows)
    cols = st.columns(4)
    cols[0].metric("Verdicts", f"{summary.verdicts:,}")
    cols[1].metric("Items reviewed", f"{summary.items_reviewed:,}")
    cols[2].metric("Reviewers", f"{summary.reviewers:,}")
    cols[3].metric("Supported rate", f"{summary.overall.supported_rate:.0%}")
    st.caption("Share of each verdict; the label on the green bar is the supported rate (supported / all verdicts).")
    left, right = st.columns(2)
    left.plotly_chart(verdict_bars(summary.by_channel, "By source channel"), key=f"{NS}.by_channel")
    right.plotly_chart(verdict_bars(summary.by_document, "By document"), key=f"{NS}.by_document")

    st.subheader("Reviewers disagree")
    split = disagreements(rows)
    if split:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "queue": d.queue_name,
                        "item": d.position,
                        "query": d.query or "fact sample",
                        "fact": d.fact,
                        "document": d.document_name,
                        "verdicts": "; ".join(
                            f"{r}: {VERDICTS[v].lower()}" + (f" ({n})" if n else "") for r, v, n in d.verdicts
                        ),
                    }
                    for d in split
                ]
            ),
            key=f"{NS}.disagreements",
            hide_index=True,
        )
    else:
        st.caption("No item has different verdicts from different reviewers.")

    st.subheader("All verdicts")
    frame = pd.DataFrame([r.__dict__ for r in rows])
    st.dataframe(
        frame[
            [
                "queue_name",
                "position",
                "query",
                "fact",
                "document_name",
                "channel",
                "reviewer",
                "verdict",
                "note",
                "updated_at",
                "revision",
            ]
        ],
        key=f"{NS}.verdicts",
        hide_index=True,
    )
    scope = group_id if whole_deal or queue is None else f"{group_id}-queue{queue.id}"
    st.download_button(
        "Export CSV (one row per verdict)",
        export_csv(rows).encode(),
        file_name=f"spotcheck-{scope}.csv",
        mime="text/csv",
        key=f"{NS}.export",
        icon=":material/download:",
    )


# --- building a queue ---------------------------------------------------------------------------------


def _build(lab: Lab, group_id: str) -> str:
    state: dict[str, Any] = st.session_state
    reviewer = state.get(REVIEWER, "").strip()
    if not reviewer:
        raise RetrievalLabError("Enter your name (reviewer) before building a queue.")
    source, size, seed = state[f"{NS}.new.source"], int(state[f"{NS}.new.size"]), int(state[f"{NS}.new.seed"])
    name = state.get(f"{NS}.new.name", "").strip() or (
        f"{source.replace('_', ' ')} · {size} @ seed {seed} · {datetime.now(UTC):%Y-%m-%d %H:%M:%S}"
    )
    limit = int(state[f"{NS}.new.queries"])
    spec = QueueSpec(
        name=name,
        group_id=group_id,
        source=source,
        size=size,
        seed=seed,
        priority=state[f"{NS}.new.priority"],
        created_by=reviewer,
        top_k=int(state[f"{NS}.new.top_k"]),
        reranker=state[f"{NS}.new.reranker"],
        query_limit=limit or None,
    )
    queue = run(build_queue(lab, spec), timeout=600)
    state[QUEUE] = queue.id
    state[f"{NS}.new.name"] = ""
    return f"Built queue **{md(queue.name)}** with {queue.item_count} items."


def render_new_queue(lab: Lab, group_id: str) -> None:
    rerankers = [c.name for c in reranker_choices(lab.settings) if c.available]
    with st.form(f"{NS}.new", border=True):
        st.text_input(
            "Queue name", key=f"{NS}.new.name", max_chars=120, placeholder="Optional: named from the settings"
        )
        cols = st.columns(4)
        cols[0].selectbox("Source", list(SOURCES), key=f"{NS}.new.source", format_func=SOURCES.__getitem__)
        cols[1].number_input("Sample size", 1, MAX_SIZE, 20, key=f"{NS}.new.size")
        cols[2].number_input(
            "Seed", 0, 2**31 - 1, 42, key=f"{NS}.new.seed", help="Same seed + same graph = same sample."
        )
        cols[3].selectbox(
            "Priority",
            list(PRIORITIES),
            key=f"{NS}.new.priority",
            format_func=PRIORITIES.__getitem__,
            help="Sources disagree: a fact cited by several channels, with different confidences, "
            "or one that supersedes / was superseded by another fact.",
        )
        more = st.columns(3)
        more[0].number_input("Top-k per query (query set)", 1, 20, 3, key=f"{NS}.new.top_k")
        more[1].selectbox(
            "Reranker (query set)",
            rerankers,
            key=f"{NS}.new.reranker",
            index=rerankers.index("local") if "local" in rerankers else 0,
        )
        more[2].number_input(
            "Queries to run (query set, 0 = all)",
            0,
            10_000,
            0,
            key=f"{NS}.new.queries",
            help="A seeded sample of the labelled queries: quicker on large sets.",
        )
        st.form_submit_button(
            "Build queue",
            key=f"{NS}.new.build",
            type="primary",
            icon=":material/playlist_add:",
            on_click=_safely,
            args=(lambda: _build(lab, group_id),),
        )


def render_spotcheck_page(lab: Lab, group_id: str) -> None:
    reviewer = reviewer_input()
    show_messages()
    queues = list_queues(lab.store, group_id)
    queue = queue_picker(queues)
    review, summary, new = st.tabs(["Review", "Summary", "New queue"])
    with review:
        if queue is None:
            st.info("No review queue on this deal yet: build one in **New queue**.")
        else:
            st.caption(
                f"Built by {md(queue.created_by)} on {queue.created_at[:16].replace('T', ' ')} · "
                f"{md(SOURCES.get(queue.source, queue.source))} · "
                f"{md(PRIORITIES.get(queue.priority, queue.priority))} · "
                f"size {queue.size} · seed {queue.seed}"
            )
            render_card(lab, queue, reviewer)
    with summary:
        render_summary(lab, group_id, queue)
    with new:
        render_new_queue(lab, group_id)
