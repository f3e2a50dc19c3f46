"""Citations: a fact's episodes, with document, location, source channel and confidence.

Our loaders store the citation fields on each episode node. Episodes written by graphiti itself
only have `source_description` ("From: cim.pdf | Page 5"), so that is parsed as a fallback.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from pysbd.lang.english import English

from pipeline.graph.backend import GraphBackend
from pipeline.ingest.loading import CHANNEL_CONFIDENCE
from pipeline.sentences import sentence_spans
from pipeline.text import clip

WORD = re.compile(r"[A-Za-z0-9$%.,]+")
PIECE = re.compile(r"[^\n]+?(?:[.!?](?=\s)|$)", re.MULTILINE)  # up to every stop: where the best sentence is
HIDDEN_END = re.compile(r"[.!?][\"'”’)\]]")  # a stop inside a quote or bracket, which the quick split keeps going past
LETTER_DOT = re.compile(r"[^\W\d_]\.|\.[^\W\d_]")
LIST_ITEM = re.compile(r"\s\(?(?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s")  # "(a) ", "ii) ": pySBD starts a sentence there
SENTENCE_WINDOW = 600  # characters either side of that piece in which pySBD finds the sentence's true ends
SNIPPET_CHARS = 280
# lower-case words that end with a full stop without ending a sentence
ABBREVIATIONS = frozenset(
    "al approx avg cf ch co corp dept ed eds est etc fig ibid inc jr ltd max min misc mr mrs ms no nos pp resp sr st"  # noqa: SIM905
    " viz vol vs".split()
)
# titles pySBD keeps going past even before a capital ("Mr. Smith"), and numbering words ("No. 5")
PREPOSITIVE = frozenset(English.Abbreviation.PREPOSITIVE_ABBREVIATIONS + English.Abbreviation.NUMBER_ABBREVIATIONS)
SCAN_CHARS = 100_000  # a snippet is sought in the episode's first characters only: a 50 MB episode stays cheap
SNIPPETS_KEPT = 20_000  # snippets found, kept per process (each a few hundred characters)
_SNIPPETS: OrderedDict[tuple[str, int, int], str] = OrderedDict()
_SNIPPETS_LOCK = threading.Lock()


async def fetch_episodes(backend: GraphBackend, group_id: str, uuids: Iterable[str]) -> dict[str, dict[str, Any]]:
    wanted = sorted(set(uuids))
    if not wanted:
        return {}
    return await backend.cypher.episodes(group_id, wanted)


def parse_source_description(text: str) -> dict[str, Any]:
    """'From: cim.pdf | Page 5 | Chunk 2' -> doc_name, page, chunk; Q&A / chat labels -> channel."""
    fields: dict[str, Any] = {}
    for part in (p.strip() for p in text.split("|")):
        lower = part.lower()
        if lower.startswith("from:"):
            fields["doc_name"] = part[5:].strip()
        elif m := re.fullmatch(r"page\s+(\d+)", lower):
            fields["page"] = int(m.group(1))
        elif m := re.fullmatch(r"chunk\s+(\d+)", lower):
            fields["chunk"] = int(m.group(1))
        elif lower.startswith(("q&a", "qa response")):
            fields["channel"] = "qa_response"
        elif lower.startswith(("analyst chat", "chat")):
            fields["channel"] = "analyst_chat"
    return fields


def cited_snippet(fact: str, content: str) -> str:
    """`best_snippet`, found once per fact and episode text in this process: a fact is cited again and again (a
    page's reruns, its other settings, the queries around it). Keyed by the text's hash, not the text."""
    key = (fact, len(content), hash(content))
    with _SNIPPETS_LOCK:
        found = _SNIPPETS.get(key)
        if found is not None:
            _SNIPPETS.move_to_end(key)
            return found
    found = best_snippet(fact, content)
    with _SNIPPETS_LOCK:
        _SNIPPETS[key] = found
        while len(_SNIPPETS) > SNIPPETS_KEPT:
            _SNIPPETS.popitem(last=False)
    return found


def best_snippet(fact: str, content: str) -> str:
    """The sentence of the episode that shares most words with the fact (cut to SNIPPET_CHARS). A quick split at
    every stop and line end finds where it is. When both its ends are plain sentence ends (a line's end, which
    pySBD always splits at, or `_plain_end`), it is the sentence; otherwise pySBD finds that sentence's true ends
    within its line(s) around it, so "U.S.", "Inc." or "D. Colo." never cut it short (pySBD costs milliseconds
    even on a window: it is asked only when needed)."""
    fact_words = _words(fact[:SCAN_CHARS])
    content = content[:SCAN_CHARS]
    pieces = [(m.start(), m.end()) for m in PIECE.finditer(content)] or [(0, len(content))]
    start, end = max(pieces, key=lambda p: len(fact_words & _words(content[p[0] : p[1]])))
    line_start = content.rfind("\n", 0, start) + 1
    line_end = content.find("\n", end)
    line_end = len(content) if line_end < 0 else line_end
    before = len(content[:start].rstrip())
    starts = before == 0 or before < line_start or _plain_end(content, before - 1)
    ends = not content[end:line_end].strip() or _plain_end(content, end - 1)
    inside = content[start:end]
    if starts and ends and not HIDDEN_END.search(inside[:-1]) and not LIST_ITEM.search(inside) and _balanced(inside):
        return clip(content[start:end].strip(), SNIPPET_CHARS)
    low = max(line_start, start - SENTENCE_WINDOW)
    window = content[low : min(line_end, end + SENTENCE_WINDOW)]
    sentences = [window[a:b] for a, b in sentence_spans(window) if a < end - low and b > start - low]
    best = max(sentences, key=lambda s: len(fact_words & _words(s)), default=content[start:end])
    return clip(best.strip(), SNIPPET_CHARS)


def _plain_end(content: str, stop: int) -> bool:
    """Whether the character at `stop` ends a sentence as pySBD would end it: a stop followed by the end of the
    text or, after spaces, a capital letter, after a word pySBD does not keep going past before a capital ("Mr.",
    "Dr.", an initial, "U.S.", "1." before a list item; a year or "$4.9M" ends a sentence). A lower-case word
    that abbreviates ("approx.", "etc.") is left to pySBD, as is any stop followed by anything else."""
    if content[stop] not in ".!?":
        return False
    rest = content[stop + 1 : stop + 80].lstrip()
    if rest and not rest[0].isupper():
        return False
    if content[stop] != ".":
        return True
    word = (content[max(0, stop - 80) : stop].rsplit(None, 1) or [""])[-1].lstrip("([{\"'“‘")
    if word.isdigit():
        return len(word) >= 4  # a year ends a sentence; "1." may number a list item
    lower = word.lower()
    dotted = LETTER_DOT.search(word)  # "U.S", "e.g", "p.m": the decimal point of "$4.9M" is no abbreviation
    return len(word) > 1 and not dotted and lower not in ABBREVIATIONS and lower not in PREPOSITIVE


def _balanced(text: str) -> bool:
    """No bracket or curly quote left open or closed: a sentence inside "(...)" is pySBD's to find."""
    return all(text.count(a) == text.count(b) for a, b in ("()", "[]", "“”"))


def _words(text: str) -> set[str]:
    return {w.lower().strip(".,") for w in WORD.findall(text)}


def citation_fields(props: dict[str, Any]) -> dict[str, Any]:
    """Document, location, channel and confidence of one episode node."""
    parsed = parse_source_description(props.get("source_description") or "")
    channel = props.get("channel") or parsed.get("channel") or "document"
    return {
        "document_id": props.get("doc_id") or parsed.get("doc_name") or props.get("name", ""),
        "document_name": props.get("doc_name") or parsed.get("doc_name") or props.get("name", ""),
        "page": props.get("page", parsed.get("page")),
        "chunk": props.get("chunk", parsed.get("chunk")),
        "channel": channel,
        "confidence": float(props.get("confidence") or CHANNEL_CONFIDENCE.get(channel, 0.85)),
        "source_description": props.get("source_description") or "",
        "author": props.get("author") or "",
    }
