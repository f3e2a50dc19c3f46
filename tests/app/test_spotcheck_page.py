"""The Citation spot-check page through AppTest: build a queue from the demo query set, give verdicts."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import Queue, QueueItem, QueueSpec
from pipeline.spotcheck.repo import list_queues, queue_items
from pipeline.spotcheck.repo_answers import reviewer_relevance, reviewer_verdicts, verdict_history
from pipeline.spotcheck.verdicts import record_relevance, record_verdict, verdict_judgments
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET
from tests.support.tables import assert_page_tidy

PAGE = "app_pages/spotcheck.py"


@pytest.fixture(scope="module")
async def half_done(lab: Lab, demo: str) -> Queue:
    """A queue of four cards of its own (so each test runs alone too), two of them answered by Ana Resume."""
    spec = QueueSpec("half done", demo, "query_set", 4, 3, "random", "Tess", reranker="none", query_limit=3)
    queue = await build_queue(lab, spec)
    first, second, *_ = queue_items(lab.store, queue.id)
    record_relevance(lab.store, first.id, "Ana Resume", 3)
    record_verdict(lab.store, first.id, "Ana Resume", "supported")
    record_verdict(lab.store, second.id, "Ana Resume", "wrong_source")
    return queue


def answer(app: AppTest, item: QueueItem, key: str) -> None:
    """Press a button of the card of `item`: "r.3", "v.supported", "next", "prev" (each card's keys are its own)."""
    app.button(key=f"spotcheck.{item.id}.{key}").click().run()


def metric(app: AppTest, label: str) -> str:
    return next(m.value for m in app.metric if m.label == label)


def test_build_a_queue_review_and_see_progress(app: AppTest, lab: Lab, demo: str) -> None:
    open_page(app, PAGE)
    assert app.title[0].value == "Citation spot-check"

    # building needs a reviewer name
    app.button(key="spotcheck.new.build").click().run()
    assert any("Enter your name" in e.value for e in app.error)

    app.text_input(key="spotcheck.reviewer").input("Ana AppTest").run()
    app.text_input(key="spotcheck.new.name").input("apptest queue")
    app.selectbox(key="spotcheck.new.source").set_value("query_set")
    app.number_input(key="spotcheck.new.size").set_value(4)
    app.number_input(key="spotcheck.new.queries").set_value(3)
    app.selectbox(key="spotcheck.new.reranker").set_value("none")
    app.button(key="spotcheck.new.build").click().run()
    no_errors(app)
    assert any("Built queue" in s.value for s in app.success)
    queue = next(q for q in list_queues(lab.store, demo) if q.name == "apptest queue")
    assert app.selectbox(key="spotcheck.queue").value == queue.id
    assert (queue.source, queue.size, queue.item_count, queue.created_by) == ("query_set", 4, 4, "Ana AppTest")
    items = queue_items(lab.store, queue.id)

    assert metric(app, "Your progress") == "0 / 4"
    assert metric(app, "Item") == "1 / 4"
    markdown = " ".join(m.value for m in app.markdown)
    assert items[0].query_id and "**Query**" in markdown and "**Fact**" in markdown
    [episode] = app.tabs[0].get("html")  # the card's source (Adjudicate draws the sources of other tests' splits)
    assert '<div class="spotcheck-episode"' in episode.proto.body

    captions = " ".join(c.value for c in app.caption)
    assert "**3** answers it: answers the query on its own" in captions  # each grade said in words
    app.text_input(key="spotcheck.note").input("checked page 2")
    assert any("Card 1: relevance **A S D F** (0-3) and support **1-4**" in c.value for c in app.caption)
    answer(app, items[0], "r.3")  # an answer is saved on its card, which stays
    no_errors(app)
    assert metric(app, "Your progress") == "1 / 4"
    assert metric(app, "Item") == "1 / 4"
    assert any("Saved on card 1: relevance **3 · answers it**" in s.value for s in app.success)
    assert any("Card 1: support **1-4** (saved on this card" in c.value for c in app.caption)  # the next key
    answer(app, items[0], "v.supported")
    no_errors(app)
    assert metric(app, "Your progress") == "1 / 4"
    assert metric(app, "Item") == "1 / 4"  # both answered: still this card until Enter
    assert any("Card 1 answered (a key changes its answer) · **Enter**: card 2" in c.value for c in app.caption)
    answer(app, items[0], "next")
    assert metric(app, "Item") == "2 / 4"
    assert app.text_input(key="spotcheck.note").value == ""  # the note belongs to the previous card
    mine = reviewer_verdicts(lab.store, queue.id, "Ana AppTest")
    assert [(v.verdict, v.note) for v in mine.values()] == [("supported", "checked page 2")]
    assert next(iter(mine)) == items[0].id
    grades = reviewer_relevance(lab.store, queue.id, "Ana AppTest")
    assert [(g.item_id, g.grade, g.note) for g in grades.values()] == [(items[0].id, 3, "checked page 2")]

    answer(app, items[1], "v.wrong_source")  # one question is enough to count as reviewed
    assert metric(app, "Your progress") == "2 / 4"
    assert metric(app, "Item") == "2 / 4"
    # back to the first card: its answers and note are shown, a re-verdict updates it
    answer(app, items[1], "prev")
    assert metric(app, "Item") == "1 / 4"
    assert app.text_input(key="spotcheck.note").value == "checked page 2"
    assert any("Your answers: relevance **3 · answers it**" in c.value for c in app.caption)
    assert any("support **Supported**" in c.value for c in app.caption)
    answer(app, items[0], "v.not_supported")
    no_errors(app)
    assert metric(app, "Your progress") == "2 / 4"
    assert metric(app, "Item") == "1 / 4"
    updated = reviewer_verdicts(lab.store, queue.id, "Ana AppTest")[items[0].id]
    assert (updated.verdict, updated.revision) == ("not_supported", 2)
    assert len(verdict_history(lab.store, updated.id)) == 2

    # summary: rates with their intervals, agreement (one reviewer: not enough), charts, export
    assert metric(app, "Items reviewed") == "2"
    assert metric(app, "Supported rate") == "0%"
    assert metric(app, "Relevant rate") == "100%"
    assert metric(app, "Relevance agreement") == "—"
    captions = " ".join(c.value for c in app.caption)
    assert "Supported (the source supports the fact): 0% (95% CI 0%-66%, n=2)" in captions
    assert "relevant (grade 2-3): 100% (95% CI 21%-100%, n=1)" in captions
    assert "Not enough overlap: agreement needs two reviewers." in captions
    assert len(app.get("plotly_chart")) == 2
    assert app.get("download_button")
    assert_page_tidy(app)  # rates by channel and document, every answer (its time in UTC), the disagreements
    answers = next(d.value for d in app.dataframe if "Reviewer" in d.value.columns)
    assert str(answers["Updated (UTC)"].dt.tz) == "UTC" and set(answers["Reviewer"]) == {"Ana AppTest"}


def test_a_second_session_resumes_where_the_reviewer_left(app: AppTest, half_done: Queue) -> None:
    """A new browser session (closing the browser loses nothing): the card opens at the first open item."""
    queue = half_done
    open_page(app, PAGE)
    app.text_input(key="spotcheck.reviewer").input("Ana Resume").run()
    app.selectbox(key="spotcheck.queue").set_value(queue.id).run()
    no_errors(app)
    assert metric(app, "Your progress") == "2 / 4"
    assert metric(app, "Item") == "3 / 4"
    app.text_input(key="spotcheck.reviewer").input("Ben AppTest").run()  # another reviewer starts at the top
    assert metric(app, "Your progress") == "0 / 4"
    assert metric(app, "Item") == "1 / 4"


def test_a_link_opens_the_same_queue_at_the_same_card(app: AppTest, half_done: Queue) -> None:
    queue = half_done
    open_page(app, PAGE)
    app.selectbox(key="spotcheck.queue").set_value(queue.id).run()
    assert app.query_params["spotcheck.queue"] in (str(queue.id), [str(queue.id)])
    link = {"spotcheck.queue": str(queue.id), "spotcheck.item": "2"}

    fresh = AppTest.from_file(app._script_path, default_timeout=60)  # a colleague opening the link
    fresh.query_params.update(link)
    open_page(fresh, PAGE)
    fresh.query_params.update(link)
    fresh.run()
    no_errors(fresh)
    assert fresh.selectbox(key="spotcheck.queue").value == queue.id
    assert metric(fresh, "Item") == "2 / 4"
    assert fresh.query_params["spotcheck.item"] in ("2", ["2"])

    bad = AppTest.from_file(app._script_path, default_timeout=60)  # a card the queue does not have: ignored
    bad.query_params.update({"spotcheck.queue": str(queue.id), "spotcheck.item": "99"})
    open_page(bad, PAGE)
    bad.query_params.update({"spotcheck.queue": str(queue.id), "spotcheck.item": "99"})
    bad.run()
    no_errors(bad)
    assert metric(bad, "Item") == "1 / 4"


def test_a_rerun_carrying_a_card_the_reviewer_left_does_not_move_the_card_back(
    app: AppTest, lab: Lab, half_done: Queue
) -> None:
    """The browser sends its address with every rerun: under load a key's rerun leaves before the page's last card
    reached the address, and carries a card the reviewer has already left. The card stays where the keys put it."""
    queue = half_done
    items = queue_items(lab.store, queue.id)
    open_page(app, PAGE)
    app.text_input(key="spotcheck.reviewer").input("Cy Stale").run()
    app.selectbox(key="spotcheck.queue").set_value(queue.id).run()
    answer(app, items[0], "next")
    answer(app, items[1], "next")
    assert metric(app, "Item") == "3 / 4" and app.query_params["spotcheck.item"] in ("3", ["3"])
    app.query_params["spotcheck.item"] = "2"  # the address as the browser had it one card ago
    app.run()
    no_errors(app)
    assert metric(app, "Item") == "3 / 4"
    assert app.query_params["spotcheck.item"] in ("3", ["3"])


HOW = ("Highlighted: the sentence holding", "A weak match", "No sentence matches well")


def build(app: AppTest, name: str, source: str, size: int) -> None:
    app.text_input(key="spotcheck.new.name").input(name)
    app.selectbox(key="spotcheck.new.source").set_value(source)
    app.number_input(key="spotcheck.new.size").set_value(size)
    app.number_input(key="spotcheck.new.queries").set_value(2)
    app.selectbox(key="spotcheck.new.reranker").set_value("none")
    app.button(key="spotcheck.new.build").click().run()
    no_errors(app)


def test_two_reviewers_answer_both_questions_see_kappa_and_adjudicate(app: AppTest, lab: Lab, demo: str) -> None:
    open_page(app, PAGE)
    app.text_input(key="spotcheck.reviewer").input("Ana Two").run()
    build(app, "two reviewers", "query_set", 3)
    queue = next(q for q in list_queues(lab.store, demo) if q.name == "two reviewers")
    items = queue_items(lab.store, queue.id)
    assert len(items) == 3 and all(i.query for i in items)
    ben = [(3, "supported"), (0, "not_supported"), (2, "supported")]
    for item, (grade, verdict) in zip(items, ben, strict=True):
        record_relevance(lab.store, item.id, "Ben Two", grade)
        record_verdict(lab.store, item.id, "Ben Two", verdict)

    for position, grade in enumerate([3, 2, 2], start=1):  # Ana: both questions on every card, in the page
        assert metric(app, "Item") == f"{position} / 3"
        episode = app.get("html")[0]  # the highlighted source on a card with both questions
        assert '<div class="spotcheck-episode"' in episode.proto.body
        assert any(c.value.startswith(HOW) for c in app.caption)
        answer(app, items[position - 1], f"r.{grade}")
        answer(app, items[position - 1], "v.supported")
        if position < 3:
            answer(app, items[position - 1], "next")
        no_errors(app)
    assert metric(app, "Your progress") == "3 / 3"

    # quadratic kappa by hand: Ana 3 2 2, Ben 3 0 2: observed (2-0)^2 / 3 = 4/3, chance 20/9, 1 - 0.6 = 0.40;
    # support: Ana always "supported", so po = pe = 2/3 and kappa = 0
    assert metric(app, "Relevance agreement") == "0.40"
    assert metric(app, "Support agreement") == "0.00"
    captions = " ".join(c.value for c in app.caption)
    assert (
        "Cohen's kappa (quadratic weights) = 0.40, 67% answered alike (Ana Two and Ben Two, 3 shared items)" in captions
    )
    assert "Cohen's kappa = 0.00, 67% answered alike (Ana Two and Ben Two, 3 shared items)" in captions

    # the second item is split on both questions: Ana answered it, so she cannot settle it; an admin can
    app.selectbox(key="spotcheck.adj.item").set_value(items[1].id).run()
    no_errors(app)
    assert any("**Ben Two**: relevance 0 · not relevant · support not supported" in m.value for m in app.markdown)
    assert not [b for b in app.button if b.key == "spotcheck.adj.save"]
    app.text_input(key="admin.name").input("Cleo Two")
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    app.selectbox(key=f"spotcheck.adj.relevance.{items[1].id}").set_value(1)
    app.selectbox(key=f"spotcheck.adj.support.{items[1].id}").set_value("partially_supported")
    app.text_input(key=f"spotcheck.adj.note.{items[1].id}").input("prior year figure")
    app.button(key="spotcheck.adj.save").click().run()
    no_errors(app)
    assert any("Recorded the final answer for item 2" in s.value for s in app.success)
    judged = verdict_judgments(lab.store, demo)
    assert judged[items[1].query_id][items[1].fact_uuid] == 1
    [entry] = lab.store.query(
        "SELECT actor, details FROM audit_log WHERE action = 'spotcheck.adjudicated' AND target = ?",
        (f"item 2 of queue #{queue.id}",),
    )[-1:]
    assert entry["actor"] == "Cleo Two" and "prior year figure" in entry["details"]
    assert metric(app, "Supported rate") == "80%"  # 4 "supported" of 5 counted: item 2 now counts once
    assert_page_tidy(app)


def test_a_fact_sample_card_asks_only_the_support_question(app: AppTest, lab: Lab, demo: str) -> None:
    open_page(app, PAGE)
    app.text_input(key="spotcheck.reviewer").input("Fay Facts").run()
    build(app, "fact sample card", "fact_sample", 2)
    assert not [b for b in app.button if ".r." in str(b.key)]
    captions = " ".join(c.value for c in app.caption)
    assert "A fact sample has no query: only the support question applies." in captions
    episode = app.get("html")[0]  # the card's (the Adjudicate tab may show a source of its own)
    assert '<div class="spotcheck-episode"' in episode.proto.body
    assert any(c.value.startswith(HOW) for c in app.caption)
    [item, _] = queue_items(lab.store, app.selectbox(key="spotcheck.queue").value)
    answer(app, item, "v.supported")  # the only question: saved, and Enter goes on
    no_errors(app)
    assert any("Card 1 answered (a key changes its answer) · **Enter**: card 2" in c.value for c in app.caption)
    answer(app, item, "next")
    assert metric(app, "Item") == "2 / 2"


def test_a_key_pressed_on_a_card_no_longer_shown_is_refused(app: AppTest, lab: Lab, half_done: Queue) -> None:
    """Issue 26: an answer meant for card 2 was saved on card 3. A press that reaches the server after the page
    moved on (the browser still drew the old card) acts on the card it was pressed on, or on none: here, none."""
    items = queue_items(lab.store, half_done.id)
    open_page(app, PAGE)
    app.text_input(key="spotcheck.reviewer").input("Ray Race").run()
    app.selectbox(key="spotcheck.queue").set_value(half_done.id).run()
    assert metric(app, "Item") == "1 / 4"
    positions = app.session_state["spotcheck.positions"]
    positions[(half_done.id, "ray race")] = 2  # the page moved on to card 2 meanwhile (another press, another tab)
    app.session_state["spotcheck.positions"] = positions
    answer(app, items[0], "v.supported")  # card 1's key, pressed while card 1 was still drawn
    no_errors_but = [e.value for e in app.error]
    assert any(
        "Not saved: that key was pressed on card 1, which is no longer shown (card 2 is)" in e for e in no_errors_but
    )
    assert reviewer_verdicts(lab.store, half_done.id, "Ray Race") == {}  # on neither card
    assert metric(app, "Item") == "2 / 4"
