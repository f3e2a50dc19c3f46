"""Figures in text: amounts and percentages ("$5.2 million", "4.9M", "12%", "4,200 USD"), found by one pattern for
every reader (the spot-check's highlight matches a fact's figures in its source; the timeline keeps a figure its
label cut would hide)."""

from __future__ import annotations

import re

# optional currency, digits (with thousands separators), optional scale, percent or currency code; not in a word
FIGURE = re.compile(
    r"(?<![\w.,])(?P<currency>[$€£])?\s?(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<unit>%|percent\b|per\s?cent\b|bn\b|billion\b|b\b|mm\b|mn\b|million\b|m\b|k\b|thousand\b|usd\b))?"
    r"(?![\w]|[.,]\d)",
    re.IGNORECASE,
)
SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}


def is_money_or_share(figure: re.Match[str]) -> bool:
    """A figure with a currency or a unit ("$5.2 million", "12%", "4,200 USD"), not a bare number (a year, a day)."""
    return bool(figure.group("currency") or figure.group("unit"))


def figure_value(figure: re.Match[str]) -> tuple[float, bool]:
    """(the figure's value, scaled: "4.9M" -> 4,900,000; whether it is a percentage, "per cent" too)."""
    unit = (figure.group("unit") or "").lower().replace(" ", "")
    return round(float(figure.group("digits").replace(",", "")) * SCALE.get(unit, 1.0), 6), unit in ("%", "percent")
