"""JSON from outside (a data file's line, a pasted recipe, a backup's record), read with bounds: nesting far
deeper than any document of ours is refused before Python's decoder runs out of stack on it (a RecursionError,
not a ValueError, at about a thousand levels), and NaN / Infinity, which JSON does not have, can be refused."""

from __future__ import annotations

import json
import re
from typing import Any

MAX_NESTING = 64  # our rows are flat and a SearchConfig is three levels deep
_TOKENS = re.compile(r'\\.|"|[\[{]|[\]}]')


def nesting(text: str) -> int:
    """How deeply `text`'s JSON arrays and objects nest (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = False
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token.startswith("\\"):
            continue
        elif token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows; give a finite number")


def loads_bounded(text: str | bytes, what: str, max_nesting: int = MAX_NESTING, finite: bool = False) -> Any:
    """`json.loads`, refusing (ValueError naming `what`) a document nested deeper than `max_nesting`, and with
    `finite` also NaN, Infinity and -Infinity."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if text.count("[") + text.count("{") > max_nesting and nesting(text) > max_nesting:  # few brackets: no scan
        raise ValueError(f"{what} nests arrays or objects more than {max_nesting} deep")
    try:
        return json.loads(text, parse_constant=_refuse_constant if finite else None)
    except RecursionError:  # a nesting the scan above missed: still one line
        raise ValueError(f"{what} nests arrays or objects too deeply") from None
