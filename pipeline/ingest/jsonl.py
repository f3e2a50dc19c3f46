"""Read a JSON-lines data file row by row, naming the file, line and field of the first row that cannot be read."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pipeline.errors import DataFileError

T = TypeVar("T")


class FieldError(ValueError):
    """A field of a row that is present but not allowed: `str(error)` names the field and what is allowed."""


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file, decoded line by line so that bad bytes are reported where they are."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataFileError(
                    f"{path.name} line {number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                    f"{exc.start + 1}); save the file as UTF-8"
                ) from None


def read_jsonl(path: Path, what: str, parse: Callable[[Any], T]) -> Iterator[tuple[int, T]]:
    """(line number, `parse(row)`) for each non-blank line. A line that is not UTF-8, not a JSON object, lacks a
    field `parse` needs (KeyError) or holds one it refuses (FieldError, TypeError, ValueError) raises
    DataFileError: `<file> line <n>: ...`."""
    for number, line in text_lines(path):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            row = json.loads(line)
        except ValueError as exc:  # json.JSONDecodeError
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
