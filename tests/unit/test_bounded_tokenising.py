"""Passages are cut before they are tokenised: a huge one costs what a long one does, a normal one is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pipeline.embedders.local_minilm import (
    BATCH_CHARS,
    MAX_BATCH,
    MAX_CHARS,
    MAX_TOKENS,
    LocalMiniLMEmbedder,
    _batches,
    model_text,
)
from pipeline.rerankers.local import tokenize
from pipeline.retrieval.citations import SCAN_CHARS, best_snippet

DEMO = Path(__file__).resolve().parents[2] / "pipeline" / "ingest" / "demo" / "data"


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLMEmbedder:
    return LocalMiniLMEmbedder()


def test_model_text_is_bounded() -> None:
    assert len(model_text("x" * 10_000_000)) == MAX_CHARS
    assert model_text("   ") == " "
    assert model_text("short") == "short"


def test_a_huge_passage_embeds_as_its_head(embedder: LocalMiniLMEmbedder) -> None:
    head = " ".join(f"word{i}" for i in range(3_000))
    huge = head + " tail" * 2_000_000  # ~10 MB
    vectors = embedder.encode([huge, head[:MAX_CHARS]])
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)


def test_the_cut_keeps_every_token_the_model_reads(embedder: LocalMiniLMEmbedder) -> None:
    """The cut lies beyond the model's MAX_TOKENS tokens of ordinary text: the same ids either way."""
    texts = [" ".join(f"token{i}" for i in range(2_000)), "A long sentence about revenue. " * 900]
    for path in sorted(DEMO.rglob("*.json*"))[:3]:
        texts.append(path.read_text(encoding="utf-8")[:100_000])
    tokenizer = embedder._tokenizer
    for text in texts:
        assert len(text) > MAX_CHARS or text == model_text(text)
        whole = tokenizer.encode(text).ids
        assert len(whole) == MAX_TOKENS
        assert tokenizer.encode(model_text(text)).ids == whole


def test_bm25_tokens_and_snippets_are_bounded() -> None:
    huge = "revenue grew " * 4_000_000  # ~50 MB
    assert len(tokenize(huge)) <= MAX_CHARS // 2
    assert best_snippet("revenue grew", huge) and len(huge[:SCAN_CHARS]) == SCAN_CHARS


def test_json_demo_data_is_untouched_by_the_cut() -> None:
    """Every demo fact is far below the cut, so stored vectors built before it stay valid."""
    longest = 0
    for path in DEMO.rglob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for value in _strings(data):
            longest = max(longest, len(value))
    assert 0 < longest < MAX_CHARS


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_batching_by_length_gives_each_text_the_vector_it_has_alone(embedder: LocalMiniLMEmbedder) -> None:
    """Batches hold many short texts or one long one (`_batches`); a text's vector does not depend on its batch, so a
    deal imported in batches matches a query embedded alone."""
    corpus = Path(__file__).resolve().parents[3] / "shared" / "data" / "tatqa" / "corpus.jsonl"
    with corpus.open(encoding="utf-8") as lines:
        passages = [json.loads(line)["text"] for line, _ in zip(lines, range(40), strict=False)]
    names = [" ".join(p.split()[:3]) for p in passages]
    texts = [*passages, *names, "", "x" * 5_000]
    batches = _batches(sorted((model_text(t) for t in texts), key=len))
    assert len(batches) < len(texts)  # some batches hold several texts...
    assert max(len(b) for b in batches) <= MAX_BATCH
    assert all(len(b) == 1 or len(b) * max(map(len, b)) <= BATCH_CHARS for b in batches)  # ...within the budget
    together = embedder.encode(texts)
    alone = np.stack([embedder.encode([text])[0] for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-6)
