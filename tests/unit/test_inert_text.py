"""Data meets Markdown and Plotly only escaped (dashboard/common/text.py): hostile text stays text."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from dashboard.common.text import DISPLAY_CHARS, ZWSP, chart, file_slug, md, plain
from tests.support.shown import shown

HOSTILE = [
    "![x](http://evil.example/a.png)",
    "[link](http://evil.example/) and <http://evil.example/auto>",
    "$$\\huge X$$ and $x^2$",
    "<img src=http://evil.example/b.png> <script>alert(1)</script> <a href='http://evil.example/'>a</a>",
    ":red[x] :smile: :material/home: :streamlit:",
    '=HYPERLINK("http://evil.example","click")',
    "# heading",
    "1. ordered",
    "- bullet",
    "> quote",
    "**bold** _em_ ~~strike~~ `code`",
    "www.evil.example and mail@evil.example and https://evil.example",
    "&lt;b&gt; &amp; &#36;",
    "trailing backslash \\",
]
# Streamlit loads its emoji plugin when the raw Markdown holds this (StreamlitMarkdown's own test)
EMOJI_SOURCE = re.compile(r":(?!material/|streamlit:)[\w+-][\w_+-]*:")
# what GFM links in parsed text, escapes gone (mdast-util-gfm-autolink-literal)
GFM_AUTOLINK = re.compile(r"(?i)(https?://|www\.)[-.\w]+|[-.\w+]+@[-\w]+(\.[-\w]+)+")
unescape = shown  # what CommonMark shows for a source of text and backslash escapes


def one_line(text: str) -> str:
    return " ".join(text.split()).replace(ZWSP, "")


def inline_specials_unescaped(source: str) -> list[str]:
    """Characters Markdown or Streamlit act on that appear without a backslash before them."""
    bad, i = [], 0
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i] in "`*_[]<>&$~@":
            bad.append(source[i])
        i += 1
    return bad


def test_hostile_markdown_is_escaped_and_reads_back_unchanged() -> None:
    for text in HOSTILE:
        source = md(text)
        assert unescape(source) == one_line(text), text
        assert not inline_specials_unescaped(source), (text, source)
        assert not EMOJI_SOURCE.search(source), source
        assert ":material/" not in source  # Streamlit rewrites that before parsing
        assert not re.search(r"(?<!\\):[A-Za-z/]", source), source  # no live directive, icon or URL scheme
        assert not re.match(r"[#>+\-=*]|\d+[.)]", source), source  # no block at the start
        assert not GFM_AUTOLINK.search(source.replace("\\", "")), source  # no bare URL GFM would link


def test_plain_sentences_are_left_alone() -> None:
    for text in ("Wrong admin secret.", "An entity cannot be merged into itself: pick two different entities."):
        assert md(text) == text


def test_long_text_is_cut_for_display() -> None:
    token = "A" * 200_000
    assert len(unescape(md(token))) == DISPLAY_CHARS
    assert md(token).endswith("…")
    assert len(plain(token)) == DISPLAY_CHARS


@given(st.text(max_size=300))
def test_any_text_reads_back_literally(text: str) -> None:
    source = md(text)
    assert unescape(source) == one_line(text)
    assert not inline_specials_unescaped(source)
    assert not GFM_AUTOLINK.search(source.replace("\\", ""))
    assert not EMOJI_SOURCE.search(source)
    assert not re.search(r"(?<!\\):\S", source)


@given(st.text(max_size=300))
def test_chart_text_has_no_tags_and_decodes_to_the_text(text: str) -> None:
    out = chart(text)
    assert "<" not in out and ">" not in out and "$" not in out
    assert html.unescape(out) == " ".join(text.split())


def test_chart_text_turns_a_link_into_characters() -> None:
    out = chart("<a href='http://evil.example/'>click</a> <br> $x$")
    assert out == "&lt;a href='http://evil.example/'&gt;click&lt;/a&gt; &lt;br&gt; &#36;x&#36;"
    assert len(chart("x" * 1000, 60)) == 60


def test_download_names_never_start_with_a_dash() -> None:
    assert file_slug("#2 sweep 2026-11-27 10:00:00", "sweep") == "2-sweep-2026-11-27-10-00-00"
    assert file_slug("demo-sweep", "sweep") == "demo-sweep"
    assert file_slug("#!?", "sweep") == "sweep"
    assert not file_slug("--rm -rf " + "x" * 80, "sweep").startswith("-")
    assert len(file_slug("a " * 100, "sweep")) <= 60
