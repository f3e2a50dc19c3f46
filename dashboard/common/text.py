"""Data shown as text, never as markup.

Streamlit renders Markdown (with LaTeX, `:colour[...]` directives, emoji shortcodes, links and images that
make the browser fetch a URL) in `st.markdown`, captions, alerts, headers, toasts, expander and widget
labels and `help` texts. Whatever comes from the graph, a file or a user goes through `md()` before it
meets one of those; where the layout allows, pages use `st.text` / `st.dataframe` instead, which never
interpret anything. Plotly parses a subset of HTML (`<a href>`, `<b>`, `<br>`...) in every label, tick,
hover and annotation: data goes through `chart()` first.
"""

from __future__ import annotations

import re

from pipeline.api import clip, one_line

DISPLAY_CHARS = 4_000  # a 50 MB passage is cut here for display: the page stays small and fast
LABEL_CHARS = 120  # widget labels, headings, expander titles
HOVER_CHARS = 300  # a chart's hover text
TICK_CHARS = 60  # a chart's axis labels
OPTION_CHARS = 90  # options of a select box: what one across the page shows uncut at 1280 px (a 50 MB one is not sent)

# The ASCII punctuation Markdown or Streamlit's extensions act on inline: escapes, code, emphasis, links and
# images, HTML and autolinks, entities, LaTeX, strikethrough, email autolinks. Colons are handled apart.
_INLINE = frozenset("\\`*_[]<>&$~@")
_WWW = re.compile(r"(?i)\b(www)\.")
ZWSP = "\u200b"
_ICON = re.compile(r"(?i)(?<=material)/")  # Streamlit rewrites `:material/` in the raw source before parsing
_BLOCK_START = re.compile(r"^([#+\-=]|\d+(?=[.)]))")  # headings, lists, ordered lists at the start
_WORD = re.compile(r"[\w+-]")
_NAME = re.compile(r"[\w_+-]")


def _active_colons(text: str) -> set[int]:
    """Positions of the colons that could start or end something: one followed by a non-space character
    (a `:colour[` directive, `:icon:`, `http://`), and one closing a `:word:` shortcode (Streamlit loads its
    emoji plugin when the raw source holds one, then converts every shortcode left in the text)."""
    colons = [i for i, ch in enumerate(text) if ch == ":"]
    active = {i for i in colons if i + 1 < len(text) and not text[i + 1].isspace()}
    for i in colons:
        j = i - 1
        while j >= 0 and _NAME.match(text[j]):
            j -= 1
        if j < i - 1 and j >= 0 and text[j] == ":" and _WORD.match(text[j + 1]):
            active.update((i, j))
    return active


def md(text: object, limit: int | None = DISPLAY_CHARS) -> str:
    """`text` on one line, cut to `limit` characters, escaped so that any Markdown-rendering call shows
    it literally: no formatting, link, image, HTML, LaTeX, colour, icon or emoji."""
    line = one_line(text)
    if limit is not None:
        line = clip(line, limit)
    colons = _active_colons(line)
    escaped = "".join("\\" + ch if ch in _INLINE or i in colons else ch for i, ch in enumerate(line))
    escaped = _ICON.sub(r"\\/", _WWW.sub("\\1" + ZWSP + r"\\.", escaped))
    # GFM links bare URLs and e-mail addresses found in the parsed text (escapes are gone by then): an
    # invisible zero-width space splits "://", "www." and "x@y" so that nothing is found
    escaped = escaped.replace("\\://", "\\:" + ZWSP + "//").replace("\\@", ZWSP + "\\@")
    match = _BLOCK_START.match(escaped)
    if match is None:
        return escaped
    if match.group(1).isdigit():  # "1." / "1)": escape the mark after the number
        end = match.end()
        return escaped[:end] + "\\" + escaped[end:]
    return "\\" + escaped


def label(text: object) -> str:
    """`md()` for a widget label, heading or expander title: shorter."""
    return md(text, LABEL_CHARS)


def plain(text: object, limit: int = DISPLAY_CHARS) -> str:
    """For `st.text` (shown as is, whitespace kept): only cut to a size a page can hold."""
    return clip("" if text is None else str(text), limit)


_CHART_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;"}
_CHART_SPECIAL = re.compile("[&<>$]")


def chart(text: object, limit: int | None = None) -> str:
    """`text` for a Plotly label, tick, hover or annotation: `<`, `>` and `&` as entities (Plotly's
    pseudo-HTML then shows them as characters and builds no tag or link from them), `$` as an entity
    (no LaTeX), on one line, optionally cut to `limit` characters."""
    line = one_line(text)
    if limit is not None:
        line = clip(line, limit)
    return _CHART_SPECIAL.sub(lambda m: _CHART_ENTITIES[m.group(0)], line)


def file_slug(name: str, default: str, limit: int = 60) -> str:
    """A download's file name from a label: letters and digits, single dashes between them, none in front (a
    leading dash reads as an option to a shell); `default` when nothing is left."""
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")[:limit].strip("-") or default
