"""A citation's snippet is the whole sentence that supports the fact: abbreviations never cut it short."""

from __future__ import annotations

import pytest

from pipeline.retrieval import citations
from pipeline.retrieval.citations import SNIPPET_CHARS, best_snippet, cited_snippet
from pipeline.sentences import sentence_spans

COURT = (
    "Background. Halcyon was sued in the U.S. District Court for the D. Colo. in 2024 over patent No. 10,917,334 "
    "held by Acme Inc. and settled. Revenue grew 12% in FY2025.\nAnalyst note: see the data room."
)


def test_the_supporting_sentence_is_whole_across_abbreviations() -> None:
    snippet = best_snippet("Acme Inc. sued Halcyon in U.S. District Court over a patent", COURT)
    assert snippet == (
        "Halcyon was sued in the U.S. District Court for the D. Colo. in 2024 over patent No. 10,917,334 held by "
        "Acme Inc. and settled."
    )
    assert best_snippet("Revenue grew 12% in FY2025", COURT) == "Revenue grew 12% in FY2025."


def test_a_long_episode_still_gives_its_sentence_and_odd_content_gives_something_short() -> None:
    long = "Filler sentence about nothing. " * 2_000 + COURT
    assert best_snippet("Revenue grew 12% in FY2025", long) == "Revenue grew 12% in FY2025."
    assert best_snippet("anything", "") == "" and best_snippet("anything", "no stop at all") == "no stop at all"
    assert len(best_snippet("word", "word " * 1_000)) <= SNIPPET_CHARS


def sentences_by_pysbd(fact: str, content: str) -> str:
    """The snippet pySBD alone would give: the best-matching sentence of every sentence it finds."""
    words = citations._words(fact)
    found = [content[a:b] for a, b in sentence_spans(content)]
    return max(found, key=lambda s: len(words & citations._words(s))).strip()


@pytest.mark.parametrize(
    ("fact", "content", "sentence"),
    [
        # plain ends on both sides: the quick split is the sentence (pySBD not asked)
        ("net sales grew", "Revenue fell. Net sales grew in 2019. Costs rose.", "Net sales grew in 2019."),
        # a stop inside a bracket or a quote, which the quick split runs past or cuts at (from TAT-QA filings)
        (
            "totals rounding",
            "RECONCILIATION ($ in millions. Totals may not add due to rounding.)\nNext line here.",
            "RECONCILIATION ($ in millions. Totals may not add due to rounding.)",
        ),
        (
            "recorded in other accrued liabilities",
            "The reserve is recorded under “Other accrued liabilities.” There was no non-current portion.",
            "The reserve is recorded under “Other accrued liabilities.”",
        ),
        # a list number belongs to its item
        (
            "order intake represents commitments",
            "Notes\n1. Order intake represents commitments from customers.",
            "1. Order intake represents commitments from customers.",
        ),
        # a lower-case abbreviation: whatever pySBD makes of it
        ("halcyon employs approx", "Halcyon employs approx. 40 staff. Growth is flat.", "Halcyon employs approx."),
        # a title before a capital does not end the sentence
        ("the board named Smith chair", "Revenue rose. The board named Mr. Smith chair. Costs fell.", None),
        # a list item inside a line starts a sentence
        ("limitations depreciation", "Some limitations are: (a) depreciation is non-cash, and (b) taxes vary.", None),
    ],
)
def test_a_snippet_is_the_sentence_pysbd_finds(fact: str, content: str, sentence: str | None) -> None:
    assert best_snippet(fact, content) == sentences_by_pysbd(fact, content)
    assert sentence is None or best_snippet(fact, content) == sentence


@pytest.mark.parametrize(
    ("fact", "content", "sentence"),
    [
        # a line is a sentence to pySBD: a table row without a stop
        (
            "fintech revenue 101,355",
            "Segment | 2019 | 2018\nFinTech and Business Services | 101,355 | 27%\nOnline | 5 | 1%",
            "FinTech and Business Services | 101,355 | 27%",
        ),
        # a figure, an acronym or a capitalised word before the stop ends the sentence
        ("growth was 27%", "Revenue was $4.9M. Growth was 27%. Net revenue rose.", "Growth was 27%."),
        (
            "the board met",
            "Present: Dana Whitfield (CFO). The board met in February. Cash fell.",
            "The board met in February.",
        ),
        ("subscription revenue rose", "Results in FY2025. Subscription revenue rose in the CIM. It fell.", None),
    ],
)
def test_plain_ends_need_no_pysbd(
    fact: str, content: str, sentence: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = sentences_by_pysbd(fact, content)

    def never(window: str) -> list[tuple[int, int]]:
        raise AssertionError("pySBD asked")

    monkeypatch.setattr(citations, "sentence_spans", never)
    assert best_snippet(fact, content) == expected
    assert sentence is None or expected == sentence


def test_a_snippet_is_found_once_per_fact_and_episode_text(monkeypatch: pytest.MonkeyPatch) -> None:
    first = cited_snippet("Revenue grew 12% in FY2025", COURT)
    assert first == best_snippet("Revenue grew 12% in FY2025", COURT)

    def never(fact: str, content: str) -> str:
        raise AssertionError("found again")

    monkeypatch.setattr(citations, "best_snippet", never)
    assert cited_snippet("Revenue grew 12% in FY2025", COURT) == first
    with pytest.raises(AssertionError):  # another text of the episode: found afresh
        cited_snippet("Revenue grew 12% in FY2025", COURT + " Revised.")
