"""Spot-check sampling, disagreement signals and span highlighting: pure, hand-checked expectations."""

from __future__ import annotations

import random

import pytest

from pipeline.errors import InvalidInput
from pipeline.retrieval.records import Citation
from pipeline.spotcheck.highlight import find_span, to_html
from pipeline.spotcheck.sampling import ItemDraft, check_request, disagreement_signals, sample_items


def cite(episode: str, channel: str = "document", confidence: float = 0.85) -> Citation:
    return Citation(
        episode_uuid=episode,
        document_id="cim",
        document_name="cim.pdf",
        page=1,
        chunk=1,
        channel=channel,
        confidence=confidence,
        source_description="From: cim.pdf | Page 1",
        author="",
        snippet="",
        episode_valid_at=None,
        relevance_score=0.0,
        retrieved_at="",
    )


def draft(n: int, score: float | None = None, signals: tuple[str, ...] = (), query: str = "q") -> ItemDraft:
    return ItemDraft(
        query_id="",
        query=query,
        run_id=None,
        fact_uuid=f"fact-{n:03d}",
        fact=f"fact {n}",
        rank=1,
        score=score,
        superseded=False,
        signals=signals,
        citation=cite(f"ep-{n:03d}"),
    )


POOL = [draft(n, score=float(n % 7)) for n in range(40)]


def keys(items: list[ItemDraft]) -> list[str]:
    return [i.fact_uuid for i in items]


def test_same_seed_gives_the_same_items_in_the_same_order_whatever_the_input_order() -> None:
    first = sample_items(POOL, 10, seed=7, priority="random")
    shuffled = POOL[:]
    random.Random(99).shuffle(shuffled)
    again = sample_items(shuffled, 10, seed=7, priority="random")
    assert keys(first) == keys(again)
    assert len(set(keys(first))) == 10


def test_a_different_seed_gives_a_different_sample() -> None:
    assert keys(sample_items(POOL, 10, seed=7, priority="random")) != keys(sample_items(POOL, 10, 8, "random"))


def test_the_sample_is_random_order_of_the_sorted_pool() -> None:
    """Exactly `random.Random(seed).shuffle` of the pool sorted by its key, cut to size."""
    expected = sorted(POOL, key=lambda d: d.sort_key)
    random.Random(3).shuffle(expected)
    assert keys(sample_items(POOL, 5, 3, "random")) == keys(expected[:5])


def test_a_size_larger_than_the_pool_returns_every_item_once() -> None:
    assert sorted(keys(sample_items(POOL, 500, 1, "random"))) == sorted(keys(POOL))


def test_duplicates_of_one_query_fact_citation_are_reviewed_once() -> None:
    twice = [draft(1), draft(1), draft(2)]
    assert sorted(keys(sample_items(twice, 10, 0, "random"))) == ["fact-001", "fact-002"]


def test_lowest_score_first() -> None:
    items = sample_items(POOL, 8, seed=5, priority="lowest_score")
    scores = [i.score for i in items]
    assert scores == sorted(scores)
    assert scores == [0.0] * 6 + [1.0] * 2  # of 40 items (score n % 7) six score 0, six score 1
    with pytest.raises(InvalidInput, match="no reranker score"):
        sample_items([draft(1, score=None)], 1, 0, "lowest_score")


def test_disagreeing_facts_first_most_signals_first() -> None:
    pool = [draft(n) for n in range(20)]
    pool[4] = draft(4, signals=("mixed_channels", "mixed_confidence"))
    pool[11] = draft(11, signals=("superseded_relative",))
    items = sample_items(pool, 5, seed=1, priority="disagreement")
    assert keys(items)[:2] == ["fact-004", "fact-011"]
    assert all(not i.signals for i in items[2:])


def test_disagreement_signals() -> None:
    assert disagreement_signals([cite("a"), cite("b")], False) == ()
    mixed = disagreement_signals([cite("a"), cite("b", "qa_response", 0.95)], True)
    assert mixed == ("mixed_channels", "mixed_confidence", "superseded_relative")
    assert disagreement_signals([cite("a"), cite("b", "document", 0.5)], False) == ("mixed_confidence",)


@pytest.mark.parametrize(
    ("size", "seed", "priority", "source", "message"),
    [
        (0, 1, "random", "fact_sample", "sample size"),
        (501, 1, "random", "fact_sample", "sample size"),
        (5, -1, "random", "fact_sample", "seed"),
        (5, 1, "loudest", "fact_sample", "Unknown priority"),
        (5, 1, "random", "web", "Unknown spot-check source"),
        (5, 1, "lowest_score", "fact_sample", "no reranker scores"),
    ],
)
def test_bad_requests_are_refused(size: int, seed: int, priority: str, source: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        check_request(size, seed, priority, source)


# --- the supporting span -------------------------------------------------------------------------

EPISODE = (
    "Management reported FY2024 results: revenue of $4.1 million, EBITDA of $0.18 million and 104 customers "
    "at December 31, 2024. The Board discussed Northwind Logistics' request for a volume discount and "
    "authorized a price concession of up to 6%.\nQ: Who chairs the board?"
)


def span_text(fact: str) -> tuple[str, str | None, list[str]]:
    match = find_span(fact, EPISODE)
    sentence = EPISODE[slice(*match.sentence)] if match.sentence else None
    return match.method, sentence, [EPISODE[s:e] for s, e in match.exact]


def test_exact_numbers_pick_the_sentence_and_are_marked() -> None:
    method, sentence, exact = span_text("Halcyon's FY2024 revenue was $4.1 million.")
    assert method == "exact"
    assert sentence is not None and sentence.startswith("Management reported FY2024") and sentence.endswith("2024.")
    # the figure is marked whole; "2024" of the date is not FY2024; "Halcyon" is not in the episode
    assert exact == ["FY2024", "$4.1 million"]


def test_names_and_percentages_count_as_exact_terms() -> None:
    method, sentence, exact = span_text("Northwind got a price concession of up to 6%.")
    assert method == "exact" and sentence is not None and sentence.startswith("The Board discussed")
    assert exact == ["Northwind", "6%"]


def test_word_overlap_is_the_fallback_and_no_overlap_highlights_nothing() -> None:
    method, sentence, exact = span_text("who chairs the board")
    assert (method, sentence, exact) == ("overlap", "Q: Who chairs the board?", [])
    assert span_text("zebra crossing")[0:2] == ("none", None)


def test_numbers_match_whole_numbers_only() -> None:
    assert find_span("revenue of 4.1", "Revenue was 14.15 in total.").exact == ()


def test_html_escapes_the_episode_text() -> None:
    content = 'Revenue <script>alert("x")</script> was 104 & rising.'
    out = to_html(content, find_span("104", content))
    assert "<script>" not in out and "&lt;script&gt;" in out and "&amp; rising" in out
    escaped = "Revenue &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; was <strong>104</strong> &amp; rising."
    assert out == f"<mark>{escaped}</mark>"
    assert to_html("a < b", find_span("zebra", "a < b")) == "a &lt; b"


CHAT = (
    "Audit done: revenue is $5.2M for FY2025, not $4.8M. Growth 27%. Net revenue $4.9M. Updating the model. "
    "Freightline also settled for $350K, which is inside Marlowe & Tate's range."
)


def test_figures_match_by_value_whatever_their_spelling() -> None:
    """Issue 17: "$4.9 million" in the fact, "$4.9M" in the analyst's chat. Digits alone picked the sentence
    holding FY2025 and missed the figure."""
    match = find_span("Halcyon's audited FY2025 net revenue is $4.9 million.", CHAT)
    assert match.method == "exact" and match.sentence is not None
    assert CHAT[slice(*match.sentence)] == "Net revenue $4.9M."
    assert [CHAT[s:e] for s, e in match.exact] == ["$4.9M"]
    for fact, figure in (
        ("Freightline settled for $350,000.", "$350K"),
        ("Freightline settled for 0.35 million dollars.", "$350K"),
        ("Revenue growth was 27 percent.", "27%"),
    ):
        found = find_span(fact, CHAT)
        assert [CHAT[s:e] for s, e in found.exact if CHAT[s:e] == figure] == [figure], fact


def test_a_figure_of_another_scale_or_kind_is_not_the_same_figure() -> None:
    assert find_span("revenue was $4.9 billion.", "Net revenue $4.9M.").exact == ()
    assert find_span("margin was 27%.", "There were 27 stores.").exact == ()
    assert find_span("revenue of 4.1", "Revenue was 14.15 in total.").exact == ()
