"""The highlighted sentence on a spot-check card, on the demo deal's own sources (issue 26: 3 of 20 highlights
were wrong: sentences cut at "U.S." and "D. Colo.", a date-only sentence preferred to the one naming the fact's
parties, no weak match flagged, the "$4.9M = $4.9 million" caption on every card)."""

from __future__ import annotations

from pipeline.sentences import sentence_spans
from pipeline.spotcheck.highlight import find_span

LEGAL = (
    "Litigation. Freightline Analytics LLC v. Halcyon Freight Systems, Inc., No. 1:25-cv-02817 (D. Colo.), filed "
    "September 8, 2025, alleges that RateLens infringes Freightline's U.S. Patent No. 10,917,334 and seeks $2.4 "
    "million in damages and an injunction."
)
BOARD = (
    "Meeting held October 22, 2025. Following presentations from three banks, the Board approved engaging Brennan "
    "Hollis & Co. to explore a sale of the Company. Terms: a success fee of 2.5% of enterprise value, subject to a "
    "minimum fee of $750,000, and a monthly retainer of $25,000 credited against the success fee. Karen Reilly will "
    "lead the engagement."
)
CHAT = (
    "Audit done: revenue is $5.2M for FY2025, not $4.8M. Growth 27%. Net revenue $4.9M. Updating the model. "
    "Freightline also settled for $350K, which is inside Marlowe & Tate's range."
)
CONTRACT = (
    "Bluewater Freight Co.: Master Subscription Agreement effective October 1, 2020. Product: HaulOS TMS (210 "
    "seats). ACV: $540,000. Term ends September 30, 2026. Bluewater issued an RFP for TMS software in January 2026; "
    "Greg Reilly is leading the renewal negotiation."
)


def highlighted(fact: str, content: str) -> str | None:
    match = find_span(fact, content)
    return content[slice(*match.sentence)] if match.sentence else None


def test_abbreviations_do_not_end_a_sentence() -> None:
    sentences = [LEGAL[s:e] for s, e in sentence_spans(LEGAL)]
    assert sentences == ["Litigation.", LEGAL.removeprefix("Litigation. ")]
    fact = (
        "Freightline Analytics LLC sued Halcyon on September 8, 2025 (No. 1:25-cv-02817, D. Colo.), alleging "
        "RateLens infringes U.S. Patent No. 10,917,334."
    )
    assert highlighted(fact, LEGAL) == LEGAL.removeprefix("Litigation. ")


def test_a_sentence_that_occurs_twice_is_located_twice() -> None:
    text = "Net revenue $4.9M. Net revenue $4.9M.\nNo stop at the end"
    twice = ["Net revenue $4.9M.", "Net revenue $4.9M.", "No stop at the end"]
    assert [text[s:e] for s, e in sentence_spans(text)] == twice


def test_the_sentence_naming_the_parties_beats_one_holding_only_the_date() -> None:
    fact = "Halcyon's board approved engaging Brennan Hollis & Co. on October 22, 2025 to explore a sale."
    assert highlighted(fact, BOARD) == (
        "Following presentations from three banks, the Board approved engaging Brennan Hollis & Co. to explore a "
        "sale of the Company."
    )
    # the date still decides when it is what the fact says: the term's end, not the contract's header
    assert highlighted("The Bluewater Freight Co. MSA term ends September 30, 2026.", CONTRACT) == (
        "Term ends September 30, 2026."
    )


def test_a_match_holding_few_of_the_facts_terms_is_weak() -> None:
    strong = find_span("Brennan Hollis & Co.'s success fee is 2.5% of enterprise value.", BOARD)
    assert strong.method == "exact" and (strong.found, strong.wanted) == (1, 4)  # its figure: names are elsewhere
    weak = find_span("The Bluewater Freight Co. MSA term ends September 30, 2026.", CONTRACT)
    assert weak.method == "weak" and (weak.found, weak.wanted) == (0, 4)  # the date only: no party named
    assert find_span("Karen Reilly joined Northwind Logistics and Cascade Cold Chain in 2019.", BOARD).method == "weak"


def test_a_figure_read_under_another_spelling_is_reported_for_that_card_only() -> None:
    respelled = find_span("Halcyon's audited FY2025 net revenue is $4.9 million.", CHAT)
    assert respelled.respelled == (("$4.9 million", "$4.9M"),)
    assert find_span("Halcyon's FY2025 revenue was $5.2M.", CHAT).respelled == ()  # spelled as in the source
    assert find_span("The minimum fee is $750,000.", BOARD).respelled == ()
    assert find_span("Revenue growth was 27 percent.", CHAT).respelled == (("27 percent", "27%"),)
