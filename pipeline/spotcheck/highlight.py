"""Where a fact is supported in its source episode: the best-matching sentence and the exact terms in it.

1. Exact terms first: the fact's figures and names (capitalised words such as "Northwind", codes such as
   "FY2025") are looked up in the episode, names whole-word and case-insensitively. Figures are compared by
   value, not by spelling: "$4.9 million", "$4.9M", "4.9m" and "$4,900,000" are one figure, "27%" and
   "27 percent" another, and "4.1" never matches inside "14.15".
2. The best sentence is the one with most exact hits (a figure counts twice, a name once); ties, and
   facts with no exact hit, are decided by plain word overlap (the rule `best_snippet` uses).
3. No sentence shares a word with the fact: nothing is highlighted. The method says which case it was, so a
   page can say when no sentence matches well.

`to_html` escapes every piece of episode text (`html.escape`) before wrapping the span in `<mark>` and
the exact terms in `<strong>`, so text from a document can never inject markup.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from pipeline.retrieval.citations import SENTENCE_END  # the boundary rule of `best_snippet`

NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
# a figure: optional currency, digits (with thousands separators), optional scale or percent; not inside a word
FIGURE = re.compile(
    r"(?<![\w.,])[$€£]?\s?(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<unit>%|percent\b|per\s?cent\b|bn\b|billion\b|b\b|mm\b|mn\b|million\b|m\b|k\b|thousand\b))?"
    r"(?![\w]|[.,]\d)",
    re.IGNORECASE,
)
SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}
TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9&'’-]*[A-Za-z0-9]|[A-Za-z]")
# a word list: ruff would put each of the 27 words on a line of its own
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "had", "have", "in", "is", "it",
        "its", "of", "on", "or", "the", "that", "this", "to", "was", "were", "with",
    }
)  # fmt: skip


@dataclass(frozen=True)
class SpanMatch:
    sentence: tuple[int, int] | None  # [start, end) of the best-matching sentence in the content
    exact: tuple[tuple[int, int], ...]  # exact term matches inside that sentence, in order
    method: str  # "exact" (numbers / names found), "overlap" (word overlap only) or "none"


def _figures(text: str, offset: int = 0) -> list[tuple[tuple[float, bool], tuple[int, int]]]:
    """((value, is percent), span) of every figure in `text`, the value scaled ("4.9M" -> 4,900,000)."""
    found = []
    for m in FIGURE.finditer(text):
        unit = (m.group("unit") or "").lower().replace(" ", "")
        value = float(m.group("digits").replace(",", "")) * SCALE.get(unit, 1.0)
        percent = unit in ("%", "percent")  # "per cent" too: spaces are gone
        found.append(((round(value, 6), percent), (offset + m.start(), offset + m.end())))
    return found


def _terms(fact: str) -> tuple[set[tuple[float, bool]], set[str]]:
    """(figures, names) of the fact; names lower-cased, ordinary capitalised words at a sentence start kept too."""
    figures = {key for key, _ in _figures(fact)}
    names = set()
    for m in TOKEN.finditer(fact):
        word = m.group(0)
        if any(ch.isdigit() for ch in word) or (word[0].isupper() and word.lower() not in STOPWORDS):
            names.add(word.lower())
    return figures, names


def _words(text: str) -> set[str]:
    return {w.lower() for w in TOKEN.findall(text)} | {n.lower() for n in NUMBER.findall(text)}


def _sentences(content: str) -> list[tuple[int, int]]:
    spans = []
    cuts = [0, *(x for m in SENTENCE_END.finditer(content) for x in (m.start(), m.end())), len(content)]
    for start, end in zip(cuts[::2], cuts[1::2], strict=True):
        while start < end and content[start].isspace():
            start += 1
        while end > start and content[end - 1].isspace():
            end -= 1
        if end > start:
            spans.append((start, end))
    return spans


def _find(term: str, text: str, offset: int) -> list[tuple[int, int]]:
    pattern = rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])"
    return [(offset + m.start(), offset + m.end()) for m in re.finditer(pattern, text, flags=re.IGNORECASE)]


def find_span(fact: str, content: str) -> SpanMatch:
    figures, names = _terms(fact)
    fact_words = _words(fact) - STOPWORDS
    best: tuple[tuple[int, float], tuple[int, int], list[tuple[int, int]]] | None = None
    for start, end in _sentences(content):
        text = content[start:end]
        hits: list[tuple[int, int]] = []
        present = _figures(text, start)
        weight = 0
        for figure in sorted(figures):
            found = [span for key, span in present if key == figure]
            weight += 2 if found else 0
            hits += found
        for term in sorted(names):
            found = _find(term, text, start)
            weight += 1 if found else 0
            hits += found
        overlap = len(fact_words & _words(text)) / (1 + len(_words(text))) ** 0.25
        score = (weight, overlap)
        if best is None or score > best[0]:
            best = (score, (start, end), hits)
    if best is None or best[0] == (0, 0.0):
        return SpanMatch(None, (), "none")
    (weight, _), sentence, hits = best
    merged: list[tuple[int, int]] = []
    for s, e in sorted(set(hits)):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return SpanMatch(sentence, tuple(merged), "exact" if weight else "overlap")


def to_html(content: str, match: SpanMatch) -> str:
    """The whole content, escaped, with the sentence in <mark> and exact terms in <strong>."""
    if match.sentence is None:
        return html.escape(content)
    start, end = match.sentence
    parts = [html.escape(content[:start]), "<mark>"]
    cursor = start
    for s, e in match.exact:
        parts += [html.escape(content[cursor:s]), "<strong>", html.escape(content[s:e]), "</strong>"]
        cursor = e
    parts += [html.escape(content[cursor:end]), "</mark>", html.escape(content[end:])]
    return "".join(parts)
