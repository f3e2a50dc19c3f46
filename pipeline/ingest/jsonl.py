"""Read a JSON-lines data file row by row, naming the file, line and field of the first row that cannot be read."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pipeline.errors import DataFileError
from pipeline.json_input import loads_bounded

T = TypeVar("T")


class FieldError(ValueError):
    """A field of a row that is present but not allowed: `str(error)` names the field and what is allowed."""


def text_lines(path: Path, lone_cr: bool = False) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file, decoded line by line so that bad bytes are reported where they are.
    With `lone_cr`, a carriage return not followed by a line feed also ends a line (old Mac line ends: a CR-only
    file is many lines, not one); lines keep their ends ("\\r" then)."""
    with path.open("rb") as handle:
        number = 0
        for raw in handle:
            pieces = [raw]
            if lone_cr and b"\r" in raw.rstrip(b"\r\n"):
                pieces = [p for p in re.split(rb"(?<=\r)(?!\n)", raw) if p]
            for piece in pieces:
                number += 1
                try:
                    yield number, piece.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataFileError(
                        f"{path.name} line {number}: not UTF-8 text (byte 0x{piece[exc.start]:02x} at column "
                        f"{exc.start + 1}); save the file as UTF-8"
                    ) from None


def text_field(row: Mapping[str, Any], name: str, default: str | None = None, ids: bool = False) -> str:
    """A field that must be text: a string (with `ids`, a whole number is taken as its digits, as BEIR ids
    sometimes are). Absent, null or "" gives `default` (without one: KeyError, FieldError, "" as it is); any
    other value (a list, an object, a number, true/false) is a FieldError, not its Python spelling as text."""
    value = row.get(name)
    if value is None:
        if default is None:
            if name not in row:
                raise KeyError(name)
            raise FieldError(f"field {name!r} is null: give it as text (a JSON string)")
        return default
    if value == "":
        return "" if default is None else default
    if isinstance(value, str):
        return value
    if ids and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    shown = json.dumps(value)[:40]
    raise FieldError(f"field {name!r} is {shown} ({type(value).__name__}): give it as text (a JSON string)")


def read_jsonl(path: Path, what: str, parse: Callable[[Any], T]) -> Iterator[tuple[int, T]]:
    """(line number, `parse(row)`) for each non-blank line. A line that is not UTF-8, not a JSON object (or one
    nested absurdly deep), lacks a field `parse` needs (KeyError) or holds one it refuses (FieldError, TypeError,
    ValueError) raises DataFileError: `<file> line <n>: ...`."""
    for number, line in text_lines(path):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            row = loads_bounded(line, "the line")
        except ValueError as exc:  # json.JSONDecodeError, or nested too deep
            raise DataFileError(f"{where}: not a {what} object (not JSON: {exc})") from None
        if not isinstance(row, dict):
            raise DataFileError(f"{where}: not a {what} object (a JSON object {{...}} per line is expected)")
        try:
            item = parse(row)
        except KeyError as exc:
            raise DataFileError(f"{where}: not a {what} object (no field {exc})") from None
        except FieldError as exc:
            raise DataFileError(f"{where}: {exc}") from None
        except (TypeError, ValueError) as exc:
            raise DataFileError(f"{where}: not a {what} object ({exc})") from None
        yield number, item
