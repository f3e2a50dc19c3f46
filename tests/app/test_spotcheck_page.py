"""The Citation spot-check page through AppTest: build a queue from the demo query set, give verdicts."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from pipeline.lab import Lab
from pipeline.spotcheck.repo import list_queues, queue_items, reviewer_verdicts, verdict_history
from tests.app.conftest import no_errors, open_page

PAGE = "app_pages/spotcheck.py"


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
    [episode] = app.get("html")
    assert '<div class="spotcheck-episode"' in episode.proto.body

    app.text_input(key="spotcheck.note").input("checked page 2")
    app.button(key="spotcheck.v.supported").click().run()
    no_errors(app)
    assert metric(app, "Your progress") == "1 / 4"
    assert metric(app, "Item") == "2 / 4"  # one click to the next
    assert app.text_input(key="spotcheck.note").value == ""  # the note belongs to the previous card
    mine = reviewer_verdicts(lab.store, queue.id, "Ana AppTest")
    assert [(v.verdict, v.note) for v in mine.values()] == [("supported", "checked page 2")]
    assert next(iter(mine)) == items[0].id

    app.button(key="spotcheck.v.wrong_source").click().run()
    assert metric(app, "Your progress") == "2 / 4"
    # back to the first card: its verdict and note are shown, a re-verdict updates it
    app.button(key="spotcheck.prev").click().run()
    app.button(key="spotcheck.prev").click().run()
    assert metric(app, "Item") == "1 / 4"
    assert app.text_input(key="spotcheck.note").value == "checked page 2"
    assert any("Your verdict: **Supported**" in c.value for c in app.caption)
    app.button(key="spotcheck.v.not_supported").click().run()
    no_errors(app)
    assert metric(app, "Your progress") == "2 / 4"
    assert metric(app, "Item") == "3 / 4"  # the first item still open
    updated = reviewer_verdicts(lab.store, queue.id, "Ana AppTest")[items[0].id]
    assert (updated.verdict, updated.revision) == ("not_supported", 2)
    assert len(verdict_history(lab.store, updated.id)) == 2

    # summary: rates, charts, export
    assert metric(app, "Verdicts") == "2"
    assert metric(app, "Supported rate") == "0%"
    assert len(app.get("plotly_chart")) == 2
    assert app.get("download_button")


def test_a_second_session_resumes_where_the_reviewer_left(app: AppTest, lab: Lab, demo: str) -> None:
    """A new browser session (closing the browser loses nothing): the card opens at the first open item."""
    queue = next(q for q in list_queues(lab.store, demo) if q.name == "apptest queue")
    open_page(app, PAGE)
    app.text_input(key="spotcheck.reviewer").input("Ana AppTest").run()
    app.selectbox(key="spotcheck.queue").set_value(queue.id).run()
    no_errors(app)
    assert metric(app, "Your progress") == "2 / 4"
    assert metric(app, "Item") == "3 / 4"
    app.text_input(key="spotcheck.reviewer").input("Ben AppTest").run()  # another reviewer starts at the top
    assert metric(app, "Your progress") == "0 / 4"
    assert metric(app, "Item") == "1 / 4"
