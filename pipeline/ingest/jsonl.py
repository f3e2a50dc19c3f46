"""Read a JSON-lines data file row by row, naming the file and line of the first row that cannot be read."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pipeline.errors import DataFileError

T = TypeVar("T")


def read_jsonl(path: Path, what: str, parse: Callable[[Any], T]) -> Iterator[tuple[int, T]]:
    """(line number, `parse(row)`) for each non-blank line. A line that is not JSON, or that `parse` cannot
    read (KeyError, TypeError, ValueError), raises DataFileError: `<file> line <n>: not a <what> object`."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = parse(json.loads(line))
            except (KeyError, TypeError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
                raise DataFileError(f"{path.name} line {number}: not a {what} object ({exc})") from None
            yield number, item
