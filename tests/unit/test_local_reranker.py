"""The offline re-scorer: tokenizer, BM25 over the candidates, min-max fusion with the local MiniLM cosine."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from pipeline.embedders.local_minilm import LocalMiniLMEmbedder
from pipeline.rerankers.base import LabReranker
from pipeline.rerankers.local import (
    BM25_B,
    BM25_K1,
    COSINE_WEIGHT,
    LocalReranker,
    bm25_scores,
    fuse,
    minmax,
    tokenize,
)

QUERY = "What was the goodwill impairment charge in 2019?"
PASSAGES = [
    "The office lease in Denver was renewed for five years.",
    "In 2019 we recorded a goodwill impairment charge of $12.4 million on the retail unit's goodwill.",
    "Employees may join the pension plan after one year of service.",
    "Revenue | 2019 | 2018\nProduct sales | 1,496.5 | 1,300.2",
]


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLMEmbedder:
    return LocalMiniLMEmbedder()


@pytest.fixture(scope="module")
def reranker(embedder: LocalMiniLMEmbedder) -> LocalReranker:
    return LocalReranker(embedder)


def test_tokenize_drops_stop_words_folds_plurals_and_keeps_numbers_whole() -> None:
    assert tokenize("What were the Liabilities and contracts in 2019?") == ["liability", "contract", "2019"]
    expected = ["sale", "1496.5", "million", "business", "class"]
    assert tokenize("Sales of $1,496.5 million; business class") == expected
    assert tokenize("") == []


def test_bm25_matches_the_formula_by_hand() -> None:
    scores = bm25_scores("goodwill", ["goodwill goodwill", "goodwill", "cash"])
    # n=3, df=2 -> idf = ln(1 + 1.5/2.5); lengths 2,1,1 -> avg 4/3
    idf = math.log(1.6)
    norm_short = BM25_K1 * (1 - BM25_B + BM25_B * 1 / (4 / 3))
    norm_long = BM25_K1 * (1 - BM25_B + BM25_B * 2 / (4 / 3))
    assert scores[1] == pytest.approx(idf * 1 * (BM25_K1 + 1) / (1 + norm_short))
    assert scores[0] == pytest.approx(idf * 2 * (BM25_K1 + 1) / (2 + norm_long))
    assert scores[0] > scores[1] > 0
    assert scores[2] == 0


def test_bm25_without_shared_terms_or_passages_is_zero() -> None:
    assert bm25_scores("the of and", ["the cat", "of dogs"]).tolist() == [0.0, 0.0]
    assert bm25_scores("anything", []).size == 0


def test_minmax_and_fuse() -> None:
    assert minmax(np.array([1.0, 2.0, 3.0])).tolist() == [0.0, 0.5, 1.0]
    assert minmax(np.array([0.7, 0.7])).tolist() == [0.0, 0.0]  # no spread: cannot reorder anything
    fused = fuse(np.array([0.2, 0.4]), np.array([3.0, 1.0]), weight=0.25)
    assert fused.tolist() == pytest.approx([0.75, 0.25])


def test_is_a_lab_reranker_that_says_what_it_is(reranker: LocalReranker) -> None:
    assert isinstance(reranker, LabReranker)
    assert reranker.name == "local"
    assert "not a cross-encoder" in reranker.description  # its row's note
    assert 0 < COSINE_WEIGHT < 1


async def test_relevant_passage_scores_highest_in_input_order(reranker: LocalReranker) -> None:
    outcome = await reranker.score(QUERY, PASSAGES)
    assert len(outcome.scores) == len(PASSAGES)
    assert outcome.tokens == 0
    assert "bm25" in outcome.model and "cosine" in outcome.model
    assert max(range(len(PASSAGES)), key=lambda i: outcome.scores[i]) == 1
    assert all(0.0 <= s <= 1.0 for s in outcome.scores)
    # moving the passages moves their scores with them
    reordered = await reranker.score(QUERY, PASSAGES[::-1])
    assert reordered.scores == pytest.approx(outcome.scores[::-1])


async def test_empty_and_single_input(reranker: LocalReranker) -> None:
    assert (await reranker.score(QUERY, [])).scores == ()
    assert len((await reranker.score(QUERY, [PASSAGES[1]])).scores) == 1


async def test_stored_vectors_give_the_same_scores_as_embedding_on_the_fly(
    reranker: LocalReranker, embedder: LocalMiniLMEmbedder
) -> None:
    vectors = embedder.encode(PASSAGES).tolist()
    with_vectors = await reranker.score(QUERY, PASSAGES, vectors)
    on_the_fly = await reranker.score(QUERY, PASSAGES)
    assert with_vectors.scores == pytest.approx(on_the_fly.scores, abs=1e-5)
    assert np.argsort(with_vectors.scores).tolist() == np.argsort(on_the_fly.scores).tolist()


async def test_stored_vectors_are_used_rather_than_re_embedded(reranker: LocalReranker) -> None:
    # passage 2's stored vector is the query's own; the others share one unrelated unit vector
    query_vector = reranker.embedder.encode([QUERY])[0]
    other = np.zeros_like(query_vector)
    other[0] = 1.0
    vectors = [other.tolist(), other.tolist(), query_vector.tolist(), other.tolist()]
    passages = ["alpha", "beta", "gamma", "delta"]  # no shared terms: BM25 is flat, cosine decides
    outcome = await reranker.score(QUERY, passages, vectors)
    assert outcome.scores[2] == pytest.approx(COSINE_WEIGHT)  # top of min-max cosine, BM25 all zero
    assert outcome.scores[0] == outcome.scores[1] == outcome.scores[3] == 0.0


async def test_vectors_of_another_size_or_count_are_ignored(reranker: LocalReranker) -> None:
    expected = (await reranker.score(QUERY, PASSAGES)).scores
    wrong_dim = [[0.1] * 1024 for _ in PASSAGES]
    assert (await reranker.score(QUERY, PASSAGES, wrong_dim)).scores == pytest.approx(expected, abs=1e-5)
    too_few = [[0.1] * 384]
    assert (await reranker.score(QUERY, PASSAGES, too_few)).scores == pytest.approx(expected, abs=1e-5)


async def test_deterministic_and_rank_is_best_first(reranker: LocalReranker) -> None:
    first = await reranker.score(QUERY, PASSAGES)
    second = await reranker.score(QUERY, PASSAGES)
    assert first == second
    ranked = await reranker.rank(QUERY, PASSAGES)
    assert ranked[0][0] == PASSAGES[1]
    assert [s for _, s in ranked] == sorted(first.scores, reverse=True)


async def test_lazy_default_embedder_is_the_shared_local_model() -> None:
    from pipeline.embedders import _local

    lazy = LocalReranker()
    assert lazy.embedder is _local()


def test_a_query_is_embedded_once_for_the_first_stage_and_the_reranker(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = LocalMiniLMEmbedder()
    texts: list[list[str]] = []
    encode = embedder.encode
    monkeypatch.setattr(embedder, "encode", lambda batch: texts.append(list(batch)) or encode(batch))
    vector = asyncio.run(embedder.embed_query("net revenue FY2025"))
    stored = [vector, vector]
    LocalReranker(embedder).score_sync("net revenue FY2025", ["Net revenue rose.", "Headcount fell."], stored)
    assert texts == [["net revenue FY2025"]]  # the reranker reused the first stage's query vector
    assert embedder.encode_query("net revenue FY2025").tolist() == vector
    embedder.encode_query("another query")
    assert texts[-1] == ["another query"]
