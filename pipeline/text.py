"""Text cleaning, one way: queries, names and messages on one line, printable, cut to a length."""

from __future__ import annotations


def one_line(text: object, limit: int | None = None, ellipsis: str = "…") -> str:
    """Runs of whitespace (newlines, tabs) as single spaces, ends trimmed; None -> "". With `limit`, a
    longer line is cut to `limit` characters, `ellipsis` included."""
    line = " ".join(("" if text is None else str(text)).split())
    return line if limit is None else clip(line, limit, ellipsis)


def printable_line(text: str) -> str:
    """`one_line`, with control and other non-printable characters turned into spaces first."""
    return one_line("".join(ch if ch.isprintable() else " " for ch in text))


def clip(text: str, limit: int, ellipsis: str = "…") -> str:
    """`text`, or its first characters and `ellipsis` in `limit` characters when it is longer."""
    return text if len(text) <= limit else text[: limit - len(ellipsis)] + ellipsis
