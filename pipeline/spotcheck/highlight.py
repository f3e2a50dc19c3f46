"""Where a fact is supported in its source episode: the best-matching sentence and the exact terms in it.

1. Exact terms first: the fact's numbers ("4.1", "104", "6%", "FY2025") and names (capitalised words
   such as "Northwind") are looked up in the episode, whole words only, case-insensitively.
2. The best sentence is the one with most exact hits (a number counts twice, a name once); ties, and
   facts with no exact hit, are decided by plain word overlap (the rule `best_snippet` uses).
3. No sentence shares a word with the fact: nothing is highlighted.

`to_html` escapes every piece of episode text (`html.escape`) before wrapping the span in `<mark>` and
the exact terms in `<strong>`, so text from a document can never inject markup.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from pipeline.retrieval.citations import SENTENCE_END  # the boundary rule of `best_snippet`

NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
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


def _terms(fact: str) -> tuple[set[str], set[str]]:
    """(numbers, names) of the fact, lower-cased; ordinary capitalised words at a sentence start are kept too."""
    numbers = {m.group(0).rstrip(".,").lower() for m in NUMBER.finditer(fact)}
    names = set()
    for m in TOKEN.finditer(fact):
        word = m.group(0)
        if any(ch.isdigit() for ch in word) or (word[0].isupper() and word.lower() not in STOPWORDS):
            names.add(word.lower())
    return numbers, names


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


def _find(term: str, text: str, offset: int, is_number: bool) -> list[tuple[int, int]]:
    if is_number:  # 4.1 must not match inside 14.1 or 4.15
        pattern = rf"(?<![\d.,]){re.escape(term)}(?![\d]|[.,]\d)"
    else:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])"
    return [(offset + m.start(), offset + m.end()) for m in re.finditer(pattern, text, flags=re.IGNORECASE)]


def find_span(fact: str, content: str) -> SpanMatch:
    numbers, names = _terms(fact)
    fact_words = _words(fact) - STOPWORDS
    best: tuple[tuple[int, float], tuple[int, int], list[tuple[int, int]]] | None = None
    for start, end in _sentences(content):
        text = content[start:end]
        hits: list[tuple[int, int]] = []
        weight = 0
        for term in sorted(numbers):
            found = _find(term, text, start, is_number=True)
            weight += 2 if found else 0
            hits += found
        for term in sorted(names - numbers):
            found = _find(term, text, start, is_number=False)
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
