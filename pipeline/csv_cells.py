"""CSV cells a spreadsheet will not run: text starting with `=`, `+`, `-`, `@`, a tab or a carriage return
gets a leading `'` (OWASP's rule against formula injection). Numbers stay numbers, negative ones included:
only text is touched, so a cell that was a number in the data is still one in the spreadsheet.

`safe_cell` is one-way: a reader cannot tell `'=1` written for `=1` from a text that was `'=1`. Files this tool
reads back (a Quepid ratings CSV) use `reversible_cell` / `undo_reversible_cell` instead: the `'` also goes in
front of a text that already starts with `'` followed by a formula start or another `'`, so removing one `'`
from exactly those texts gives back every text as it was."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """`value`, with a `'` in front when it is text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def reversible_cell(text: str) -> str:
    """`text` with a `'` in front when it starts a formula, or starts with `'` (then `undo_reversible_cell` can
    tell the two apart); other texts as they are."""
    return "'" + text if text.startswith((*FORMULA_STARTS, "'")) else text


def undo_reversible_cell(text: str) -> str:
    """The text `reversible_cell` was given: one leading `'` removed when a formula start or another `'` follows
    it (only `reversible_cell` writes that); any other text as it is."""
    return text[1:] if text.startswith("'") and text[1:].startswith((*FORMULA_STARTS, "'")) else text


def safe_rows(rows: Iterable[Sequence[Any]]) -> list[list[Any]]:
    return [[safe_cell(v) for v in row] for row in rows]


def dicts_to_csv(rows: Iterable[Mapping[str, Any]], fieldnames: Sequence[str]) -> str:
    """Rows of dicts as CSV text with a header, every cell made safe."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fieldnames), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: safe_cell(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def rows_to_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A header and rows as CSV text, every cell made safe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(safe_rows(rows))
    return out.getvalue()
