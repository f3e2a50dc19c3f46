"""A citation's snippet is the whole sentence that supports the fact: abbreviations never cut it short."""

from __future__ import annotations

from pipeline.retrieval.citations import SNIPPET_CHARS, best_snippet

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
