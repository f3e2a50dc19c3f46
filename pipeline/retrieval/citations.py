"""Citations: a fact's episodes, with document, location, source channel and confidence.

Our loaders store the citation fields on each episode node. Episodes written by graphiti itself
only have `source_description` ("From: cim.pdf | Page 5"), so that is parsed as a fallback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pipeline.graph.backend import GraphBackend
from pipeline.ingest.loading import CHANNEL_CONFIDENCE
from pipeline.sentences import sentence_spans
from pipeline.text import clip

WORD = re.compile(r"[A-Za-z0-9$%.,]+")
PIECE = re.compile(r"[^\n]+?(?:[.!?](?=\s)|$)", re.MULTILINE)  # up to every stop: where the best sentence is
SENTENCE_WINDOW = 600  # characters either side of that piece in which pySBD finds the sentence's true ends
SNIPPET_CHARS = 280
SCAN_CHARS = 100_000  # a snippet is sought in the episode's first characters only: a 50 MB episode stays cheap


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


def best_snippet(fact: str, content: str) -> str:
    """The sentence of the episode that shares most words with the fact (cut to SNIPPET_CHARS). A quick split at
    every stop finds where it is; pySBD then finds that sentence's true ends within a window around it, so "U.S.",
    "Inc." or "D. Colo." never cut it short (pySBD over a whole long episode would cost a query hundreds of ms)."""
    fact_words = _words(fact[:SCAN_CHARS])
    content = content[:SCAN_CHARS]
    pieces = [(m.start(), m.end()) for m in PIECE.finditer(content)] or [(0, len(content))]
    start, end = max(pieces, key=lambda p: len(fact_words & _words(content[p[0] : p[1]])))
    low = max(0, start - SENTENCE_WINDOW)
    window = content[low : end + SENTENCE_WINDOW]
    sentences = [window[a:b] for a, b in sentence_spans(window) if a < end - low and b > start - low]
    best = max(sentences, key=lambda s: len(fact_words & _words(s)), default=content[start:end])
    return clip(best.strip(), SNIPPET_CHARS)


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
