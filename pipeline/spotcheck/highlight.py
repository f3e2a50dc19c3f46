"""Where a fact is supported in its source episode: the best-matching sentence and the exact terms in it.

1. The episode is cut into sentences by pySBD (`sentences`): "U.S.", "D. Colo.", "Inc." and "No." end none.
2. The fact's key terms are its figures and names (capitalised words such as "Northwind", codes such as
   "FY2025"), looked up in the episode, names whole-word and case-insensitively. Figures are compared by
   value, not by spelling: "$4.9 million", "$4.9M", "4.9m" and "$4,900,000" are one figure, "27%" and
   "27 percent" another, and "4.1" never matches inside "14.15". The fact's date (month names, days, years) is
   kept apart: many sentences of a dated document share it, so it only breaks ties.
3. The best sentence is the one with most key hits (a figure counts twice, a name once), then most date hits,
   then most plain word overlap (the rule `best_snippet` uses).
4. The method says how good the match is: "exact" when the sentence holds at least half the fact's key terms,
   "weak" when it holds fewer (or only its date), "overlap" when it only shares words, "none" when no sentence
   shares a word with the fact (nothing is highlighted). `respelled` lists the figures found under another
   spelling than the fact's ("$4.9 million" as "$4.9M"), so a page says so only when it happened.

`to_html` escapes every piece of episode text (`html.escape`) before wrapping the span in `<mark>` and
the exact terms in `<strong>`, so text from a document can never inject markup.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from pipeline.figures import FIGURE, figure_value
from pipeline.sentences import sentence_spans

NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9&'’-]*[A-Za-z0-9]|[A-Za-z]")
POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
MONTHS = frozenset(
    {
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip
DAY_AFTER_MONTH = re.compile(rf"\b(?:{'|'.join(sorted(MONTHS))})\.?\s+$", re.IGNORECASE)
# a word list: ruff would put each of the 27 words on a line of its own
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "had", "have", "in", "is", "it",
        "its", "of", "on", "or", "the", "that", "this", "to", "was", "were", "with",
    }
)  # fmt: skip

Figure = tuple[float, bool]  # (value, is percent)


@dataclass(frozen=True)
class SpanMatch:
    sentence: tuple[int, int] | None  # [start, end) of the best-matching sentence in the content
    exact: tuple[tuple[int, int], ...]  # exact term matches inside that sentence, in order
    method: str  # "exact" (most key terms found), "weak" (few, or only the date), "overlap" (words only), "none"
    found: int = 0  # the fact's key terms (figures and names, its date aside) found in the sentence
    wanted: int = 0  # the fact's key terms
    respelled: tuple[tuple[str, str], ...] = ()  # (the fact's spelling, the source's) of figures matched by value


@dataclass(frozen=True)
class _Terms:
    figures: dict[Figure, str]  # key figures, with the fact's spelling
    names: set[str]  # key names, lower-cased
    dates: set[Figure | str]  # the fact's date parts: days and years (figures), month names


def _figures(text: str, offset: int = 0) -> list[tuple[Figure, tuple[int, int]]]:
    """((value, is percent), span) of every figure in `text`, the value scaled ("4.9M" -> 4,900,000)."""
    found = []
    for m in FIGURE.finditer(text):
        found.append((figure_value(m), (offset + m.start(), offset + m.end())))
    return found


def _is_date_part(fact: str, start: int, end: int) -> bool:
    """A year (1900-2099, bare digits) or a day right after a month name ("September 8")."""
    spelled = fact[start:end].strip()
    if re.fullmatch(r"(19|20)\d\d", spelled):
        return True
    return spelled.isdigit() and DAY_AFTER_MONTH.search(fact[:start]) is not None


def _terms(fact: str) -> _Terms:
    """The fact's key figures and names, and its date parts; ordinary capitalised words at a sentence start
    are kept as names too."""
    figures: dict[Figure, str] = {}
    dates: set[Figure | str] = set()
    for key, (start, end) in _figures(fact):
        if _is_date_part(fact, start, end):
            dates.add(key)
        else:
            figures.setdefault(key, " ".join(fact[start:end].split()))
    names = set()
    for m in TOKEN.finditer(fact):
        word = POSSESSIVE.sub("", m.group(0))  # "Halcyon's" is found as "Halcyon"
        lower = word.lower()
        if lower in MONTHS:
            dates.add(lower)
        elif any(ch.isdigit() for ch in word) or (word[0].isupper() and lower not in STOPWORDS):
            names.add(lower)
    return _Terms(figures, names, dates)


def _words(text: str) -> set[str]:
    return {w.lower() for w in TOKEN.findall(text)} | {n.lower() for n in NUMBER.findall(text)}


def _find(term: str, text: str, offset: int) -> list[tuple[int, int]]:
    pattern = rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])"
    return [(offset + m.start(), offset + m.end()) for m in re.finditer(pattern, text, flags=re.IGNORECASE)]


@dataclass
class _Sentence:
    span: tuple[int, int]
    figures: dict[tuple[Figure | str, bool], list[tuple[int, int]]]  # (term, is a date part) -> where found
    names: dict[str, list[tuple[int, int]]]
    words: set[str]


def _look_up(terms: _Terms, content: str, start: int, end: int) -> _Sentence:
    text = content[start:end]
    present = _figures(text, start)
    figures: dict[tuple[Figure | str, bool], list[tuple[int, int]]] = {}
    for figure in terms.figures:
        if spans := [span for key, span in present if key == figure]:
            figures[(figure, False)] = spans
    for part in terms.dates:
        spans = [span for key, span in present if key == part] if isinstance(part, tuple) else _find(part, text, start)
        if spans:
            figures[(part, True)] = spans
    names = {term: spans for term in terms.names if (spans := _find(term, text, start))}
    return _Sentence((start, end), figures, names, _words(text))


def _score(terms: _Terms, fact_words: set[str], found: _Sentence, df: dict[object, int]) -> tuple[float, float]:
    """(weighted hits, word overlap). Each hit weighs less the more sentences of the episode hold it (a deal
    name on every line tells little); a figure weighs 2, a whole date 2 (a third for each of its month, day and
    year: "Meeting held October 22, 2025." alone does not outweigh the sentence naming the fact's parties),
    a name 1, another word of the fact 0.5."""
    weight = 0.0
    for key in found.figures:
        weight += (2 / 3 if key[1] else 2) / df[key]
    for term in found.names:
        weight += 1 / df[term]
    for word in fact_words & found.words - terms.names:
        weight += 0.5 / df[word]
    overlap = len(fact_words & found.words) / (1 + len(found.words)) ** 0.25
    return weight, overlap


def find_span(fact: str, content: str) -> SpanMatch:
    terms = _terms(fact)
    fact_words = {w for w in _words(fact) - STOPWORDS if not any(ch.isdigit() for ch in w)} - MONTHS
    sentences = [_look_up(terms, content, start, end) for start, end in sentence_spans(content)]
    df: dict[object, int] = {}
    for sentence in sentences:
        for key in (*sentence.figures, *sentence.names, *(fact_words & sentence.words)):
            df[key] = df.get(key, 0) + 1
    best = max(sentences, key=lambda s: _score(terms, fact_words, s, df), default=None)
    if best is None or _score(terms, fact_words, best, df) == (0.0, 0.0):
        return SpanMatch(None, (), "none")
    hits = [span for spans in (*best.figures.values(), *best.names.values()) for span in spans]
    merged: list[tuple[int, int]] = []
    for s, e in sorted(set(hits)):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    figures = sum(1 for _, date in best.figures if not date)
    found, wanted = figures + len(best.names), len(terms.figures) + len(terms.names)
    if figures if terms.figures else 2 * len(best.names) >= len(terms.names) > 0:
        method = "exact"  # the fact's figure is there, or (a fact without figures) half its names
    elif best.figures or best.names:
        method = "weak"
    else:
        method = "overlap"
    respelled = [
        (terms.figures[key], spelled)  # type: ignore[index]
        for (key, date), spans in best.figures.items()
        if not date
        for spelled in dict.fromkeys(" ".join(content[a:b].split()) for a, b in spans)
        if spelled.replace(" ", "").lower() != terms.figures[key].replace(" ", "").lower()  # type: ignore[index]
    ]
    return SpanMatch(best.span, tuple(merged), method, found, wanted, tuple(respelled))


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
