"""Both questions' answers in a store without a graph: the disagreement rule, three reviewers' alpha, what an
adjudication changes, and the allow-list on the new writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.deals.access import DealAccess, ScopedStore
from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.spotcheck import repo as spot
from pipeline.spotcheck import repo_answers as spot_answers
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.verdicts import (
    adjudicate,
    disagreements,
    record_relevance,
    record_verdict,
    summarise,
    verdict_judgments,
)
from pipeline.store.db import Store, open_store
from tests.unit.test_spotcheck_sampling import draft


def queue(store: Store, group: str, size: int) -> list[int]:
    spec = QueueSpec("queue", group, "query_set", size, 1, "random", "ana")
    made = spot.insert_queue(store, spec, [draft(n, query=f"query {n}") for n in range(size)], "queue", "ana")
    return [i.id for i in spot.queue_items(store, made.id)]


def test_disagreement_rule_three_reviewers_and_adjudication(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    items = queue(store, "deal", 4)
    grades = {"Ana": [3, 2, 0, 1], "Ben": [2, 2, 2, 1], "Cy": [3, 1, 1, 0]}
    for reviewer, row in grades.items():
        for item, grade in zip(items, row, strict=True):
            record_relevance(store, item, reviewer, grade)
    record_verdict(store, items[3], "Ana", "supported")
    record_verdict(store, items[3], "Ben", "wrong_source")

    rows = spot_answers.verdict_rows(store, "deal")
    split = disagreements(rows)
    # item 1: 3 2 3 (1 apart) and item 2: 2 2 1 are not splits; item 3: 0 2 1 is; item 4 on support only
    assert [(d.position, d.relevance_split, d.support_split) for d in split] == [(3, True, False), (4, False, True)]
    found = summarise(rows).relevance_agreement
    assert found.statistic == "Krippendorff's alpha (ordinal)" and found.items == 4 and found.value is not None
    assert verdict_judgments(store, "deal") == {
        "query 0": {"fact-000": 3},
        "query 1": {"fact-001": 2},
        "query 2": {"fact-002": 1},  # the lower median of 0, 2, 1
        "query 3": {"fact-003": 1},
    }

    adjudicate(store, items[2], "relevance", 2, "Dee", adjudicators=["dee"])
    adjudicate(store, items[2], "relevance", 3, "Dee", "second look", admin=True)  # a revision, audited again
    after = spot_answers.verdict_rows(store, "deal")
    assert verdict_judgments(store, "deal")["query 2"] == {"fact-002": 3}
    assert summarise(after).relevance.answers == 3 * 4 - 3 + 1  # the adjudicated item counts once
    assert [d.settled for d in disagreements(after)] == [False, True]  # open first
    entries = store.query("SELECT details FROM audit_log WHERE action = 'spotcheck.adjudicated' ORDER BY id")
    assert ['"previous": null' in e[0] for e in entries] == [True, False]
    assert '"previous": "2"' in entries[1][0] and '"revision": 2' in entries[1][0]


def test_relevance_and_adjudication_of_another_deal_are_refused(tmp_path: Path) -> None:
    base = open_store(tmp_path)
    theirs = queue(base, "deal_b", 1)[0]
    mine = ScopedStore(base, DealAccess.of(["deal_a"]))
    with pytest.raises(RetrievalLabError, match="No spot-check queue"):
        record_relevance(mine, theirs, "mallory", 3)
    with pytest.raises(RetrievalLabError, match="No spot-check queue"):
        adjudicate(mine, theirs, "relevance", 3, "mallory", admin=True)
    assert base.query("SELECT COUNT(*) FROM spotcheck_relevance")[0][0] == 0
    assert base.query("SELECT COUNT(*) FROM spotcheck_adjudications")[0][0] == 0


def test_only_an_admin_or_a_listed_adjudicator_may_adjudicate(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    [item] = queue(store, "deal", 1)
    record_relevance(store, item, "Ana", 3)
    record_relevance(store, item, "Ben", 0)
    for kwargs in ({}, {"adjudicators": ["Cy"]}, {"adjudicators": ["Dee Other"]}):
        with pytest.raises(InvalidInput, match="may not adjudicate"):
            adjudicate(store, item, "relevance", 2, "Dee", **kwargs)  # type: ignore[arg-type]
    assert store.query("SELECT COUNT(*) FROM spotcheck_adjudications")[0][0] == 0
    adjudicate(store, item, "relevance", 2, "DEE", adjudicators=["Cy", " dee "])  # names compare case-insensitively
    adjudicate(store, item, "relevance", 1, "Erin", admin=True)  # an unlocked admin (the page's gate vouches)
    [row] = store.query("SELECT answer, adjudicator, revision FROM spotcheck_adjudications")
    assert tuple(row) == ("1", "Erin", 2)


@pytest.mark.parametrize("name", ["Ana", "ana", "BEN"])
def test_a_party_to_the_disagreement_cannot_adjudicate_it_even_as_admin(tmp_path: Path, name: str) -> None:
    store = open_store(tmp_path)
    [item] = queue(store, "deal", 1)
    record_relevance(store, item, "Ana", 3)
    record_relevance(store, item, "Ben", 0)
    record_verdict(store, item, "Ben", "supported")
    for question, answer in (("relevance", 2), ("support", "supported")):
        with pytest.raises(InvalidInput, match="answered this item: a party to the disagreement"):
            adjudicate(store, item, question, answer, name, admin=True, adjudicators=[name])
    assert store.query("SELECT COUNT(*) FROM spotcheck_adjudications")[0][0] == 0
    assert store.query("SELECT COUNT(*) FROM audit_log WHERE action = 'spotcheck.adjudicated'")[0][0] == 0
