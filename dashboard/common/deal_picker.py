"""The sidebar's deal picker: a label that fits the box, the full name and group id under it, the id in the URL.

The sidebar's select box holds about 24 characters at a 1280 px wide window; "demo — Project Halcyon - sale of
Halcyon Freight Systems" or a graphiti deal's UUID group id were cut off. Each deal's label is its name, or
its group id when it has no name of its own, cut to fit (two deals that would read the same both say their id);
the caption under the box gives both in full.

The URL holds the group id (`?sidebar.deal=<group_id>`, the contract of every link between pages), not the
label a bound select box would write: a link opens its deal, whatever the label says.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import streamlit as st

from dashboard.common.page_state.url import drop_param, mirror, url_value
from dashboard.common.text import md
from pipeline.api import one_line
from pipeline.api.models import DealInfo

DEAL_KEY = "sidebar.deal"
LABEL_CHARS = 24  # what the sidebar's select box shows uncut
ID_CHARS = 9  # a group id beside a name that another deal shares


def short_id(group_id: str, limit: int = LABEL_CHARS) -> str:
    """The group id, or its head and tail (a UUID as `3f2a9c1e…5e6f`) when longer than `limit`."""
    if len(group_id) <= limit:
        return group_id
    tail = 4 if limit > 12 else 0
    return f"{group_id[: limit - tail - 1]}…{group_id[len(group_id) - tail :] if tail else ''}"


def deal_labels(deals: Sequence[DealInfo]) -> dict[str, str]:
    """Each deal's label in the picker, by group id: at most LABEL_CHARS characters, one per deal."""
    labels = {
        d.group_id: _fit(one_line(d.name), LABEL_CHARS) if d.name and d.name != d.group_id else short_id(d.group_id)
        for d in deals
    }
    for shorten in (
        lambda group_id, label: f"{_fit(label, LABEL_CHARS - ID_CHARS - 3)} · {short_id(group_id, ID_CHARS)}",
        lambda group_id, label: short_id(group_id),  # same name, ids alike in their first characters
        lambda group_id, label: group_id,  # ids alike in head and tail too: the whole id
    ):
        shared = Counter(labels.values())
        labels = {g: shorten(g, label) if shared[label] > 1 else label for g, label in labels.items()}
    return labels


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def deal_caption(deal: DealInfo) -> str:
    """Under the box: the deal's full name and group id (Markdown-escaped, they come from the graph or a file)."""
    if deal.name and deal.name != deal.group_id:
        return f"{md(deal.name, 200)}  \ngroup id: {md(deal.group_id, 200)}"
    return f"group id: {md(deal.group_id, 200)}"


def pick_deal(deals: Sequence[DealInfo], default: str) -> DealInfo:
    """Draw the picker and return the deal picked: the URL's deal when a link or a reload names one the
    session may see, else the session's pick, else `default`."""
    by_id = {d.group_id: d for d in deals}
    wanted = url_value(DEAL_KEY)
    if wanted in by_id:  # the URL is kept equal to the pick, so a different one comes from a link or a reload
        st.session_state[DEAL_KEY] = wanted
    elif wanted is not None:
        drop_param(DEAL_KEY)
    if st.session_state.get(DEAL_KEY) not in by_id:
        st.session_state[DEAL_KEY] = default
    labels = deal_labels(deals)
    group_id = st.selectbox(
        "Deal",
        list(by_id),
        key=DEAL_KEY,
        format_func=labels.__getitem__,
        on_change=lambda: _publish(st.session_state[DEAL_KEY], default),
    )
    _publish(group_id, default)
    return by_id[group_id]


def _publish(group_id: str, default: str) -> None:
    """The pick in the URL, as its group id; none for the default deal (as a bound widget leaves its default out)."""
    mirror(DEAL_KEY, None if group_id == default else group_id)
