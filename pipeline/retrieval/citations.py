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
from pipeline.text import clip

WORD = re.compile(r"[A-Za-z0-9$%.,]+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
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
    """The sentence of the episode that shares most words with the fact (cut to SNIPPET_CHARS)."""
    fact_words = {w.lower().strip(".,") for w in WORD.findall(fact[:SCAN_CHARS])}
    content = content[:SCAN_CHARS]
    sentences = [s.strip() for s in SENTENCE_END.split(content) if s.strip()] or [content]
    best = max(sentences, key=lambda s: len(fact_words & {w.lower().strip(".,") for w in WORD.findall(s)}))
    return clip(best, SNIPPET_CHARS)


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
