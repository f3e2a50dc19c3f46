"""A spot-check item's cited source, as the review card and the Adjudicate tab show it: the document, its
page / chunk, channel and date, and the episode's text with the sentence supporting the fact highlighted."""

from __future__ import annotations

import streamlit as st

from dashboard.common.runtime import run
from dashboard.common.tables import day
from dashboard.common.text import md, plain
from pipeline.api import Lab
from pipeline.api.models import QueueItem, SpanMatch

EPISODE_CHARS = 20_000


def highlight_caption(match: SpanMatch) -> str:
    """How the highlighted sentence was found, in words; the figures read under another spelling, only when
    this card's match used one."""
    held = f"it holds {match.found} of the fact's {match.wanted} names and figures"
    how = {
        "exact": f"Highlighted: the sentence holding the fact's figures / names in bold ({held}).",
        "weak": f"A weak match: the best sentence, but {held}. Read the whole source.",
        "overlap": "No sentence matches well (none holds the fact's figures or names): a weak match, the sentence "
        "sharing most words.",
        "none": "No sentence matches well: none of the episode shares a word with the fact, nothing highlighted.",
    }[match.method]
    if match.respelled:
        pairs = ", ".join(f"{md(fact)} = {md(source)}" for fact, source in match.respelled)
        how += f" Figures read by value: {pairs}."
    return how


def _episode_html(lab: Lab, group_id: str, item: QueueItem) -> tuple[str, str]:
    """(escaped HTML with the supporting span marked, how it was found)."""
    episodes = run(lab.retrieval.episodes(group_id, [item.citation.episode_uuid]))
    content = (episodes.get(item.citation.episode_uuid) or {}).get("content")
    note = ""
    if not content:
        content, note = (
            item.citation.snippet,
            "The source episode is no longer in the graph: showing the stored snippet.",
        )
    content = plain(content, EPISODE_CHARS)  # a huge episode is cut before it is searched and sent
    match = lab.spotcheck.find_span(item.fact, content)
    how = highlight_caption(match)
    body = lab.spotcheck.to_html(content, match)
    style = (
        "white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.6;padding:0.75rem 1rem;"
        "border-radius:0.5rem;background:#f6f7f9"
    )
    return f'<div class="spotcheck-episode" style="{style}">{body}</div>', " ".join(p for p in (note, how) if p)


def render_source(lab: Lab, group_id: str, item: QueueItem) -> None:
    c = item.citation
    parts = [
        c.document_name or "(no document)",
        c.location,
        c.channel.replace("_", " "),
        f"confidence {c.confidence:.2f}",
        c.author,
        day(c.episode_valid_at) if c.episode_valid_at else "",
    ]
    st.markdown(f":material/description: **Citation** · {md(' · '.join(p for p in parts if p))}")
    html, how = _episode_html(lab, group_id, item)
    st.html(html)
    st.caption(how)
