"""Numbers a person typed, or a file or a URL holds: ASCII digits only, read in this one place.

Python's `int()` and `float()` accept more than anyone means by a number: any Unicode digit (`int("٣")` is 3,
`int("²")` raises), a sign, underscores (`"1_000"`), surrounding whitespace, and for `float()` also "nan",
"inf" and exponents (`"1e23"`); `int()` of more than 4,300 digits raises. Every number read from a data file,
a command line or a URL query parameter goes through `whole_number` or `decimal_number` instead, so each
reader takes the same spelling and refuses the rest with its own one line.
"""

from __future__ import annotations

import re

MAX_INTEGER = 2**63 - 1  # SQLite's largest integer: an id beyond it names no row
_WHOLE = re.compile(r"[0-9]{1,19}")  # 19 digits hold every 64-bit integer; longer is out of range anyway
_SIGNED = re.compile(r"-?[0-9]{1,19}")
_DECIMAL = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,15})?|\.[0-9]{1,15}")


def whole_number(text: str, low: int = 0, high: int = MAX_INTEGER, *, signed: bool = False) -> int | None:
    """`text` as an int when it is ASCII digits only (a leading `-` too when `signed`) and within [low, high];
    None otherwise: no whitespace, `+`, underscore, exponent or other script's digit is a number here."""
    if not isinstance(text, str) or not (_SIGNED if signed else _WHOLE).fullmatch(text):
        return None
    number = int(text)
    return number if low <= number <= high else None


def decimal_number(text: str) -> float | None:
    """`text` as a float when it is ASCII digits with at most one decimal point ("2", "2.5", ".5"); no sign,
    exponent, "nan" or "inf". None otherwise; the caller checks the range."""
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        return None
    return float(text)
