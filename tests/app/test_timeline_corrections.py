"""Two corrections in a row on the Timeline: after a write the form is emptied and stays on the fact it named (its
successor), never on another fact with the old statement still in it (issue 38)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.corrections.actions import list_corrections
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET

PAGE = "app_pages/timeline.py"
DEAL = "demo_two_corrections"


@pytest.fixture
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    return DEAL


def correct(app: AppTest, fact_uuid: str, statement: str, when: date) -> str:
    """Pick `fact_uuid`, fill the form, Correct, then Confirm; the question Confirm answered."""
    app.selectbox(key="timeline.fix.fact").set_value(fact_uuid)
    app.text_area(key="timeline.fix.statement").input(statement)
    app.text_input(key="timeline.fix.author").input("Tom Becker")
    app.date_input(key="timeline.fix.date").set_value(when)
    app.button(key="timeline.fix.submit").click().run()
    no_errors(app)
    [ask] = [w.value for w in app.warning if w.value.startswith("Correct “")]
    app.button(key="timeline.fix.submit.confirm").click().run()
    no_errors(app)
    return ask.replace("\\", "")  # as written, not Markdown-escaped


async def test_two_corrections_in_a_row_each_on_the_fact_it_named(app: AppTest, lab: Lab, deal: str) -> None:
    open_page(app, PAGE, deal)
    app.text_input(key="admin.name").input("Ana")
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    app.text_input(key="timeline.entity_search").input("Halcyon Freight").run()
    no_errors(app)
    picker = app.selectbox(key="timeline.fix.fact")
    cash = stable_uuid(deal, "fact", "f216")
    first = picker.value
    assert first is not None and first != cash  # the fresh form opens on the first fact: cash is another one

    ask = correct(app, cash, "Halcyon's cash balance was $1.45 million at March 31, 2026.", date(2026, 4, 1))
    [one] = list_corrections(lab.store, deal)
    assert one.old_uuid == cash and one.old_fact in ask
    # the form is empty and on the corrected fact's successor, not on the list's first fact
    assert app.selectbox(key="timeline.fix.fact").value == one.new_uuid
    assert app.text_area(key="timeline.fix.statement").value == ""
    assert app.text_input(key="timeline.fix.author").value == ""
    assert app.date_input(key="timeline.fix.date").value == datetime.now(UTC).date()
    assert not [w for w in app.warning if w.value.startswith("Correct “")]  # nothing pending

    # Correct at once, without picking: Confirm names the fact it changes, the successor
    app.text_area(key="timeline.fix.statement").input("Halcyon's cash balance was $1.5 million at April 30, 2026.")
    app.text_input(key="timeline.fix.author").input("Tom Becker")
    app.date_input(key="timeline.fix.date").set_value(date(2026, 5, 1))
    app.button(key="timeline.fix.submit").click().run()
    [ask] = [w.value.replace("\\", "") for w in app.warning if w.value.startswith("Correct “")]
    assert "$1.45 million at March 31, 2026" in ask.split("”")[0]  # the fact it will change, by its text
    app.button(key="timeline.fix.submit.confirm").click().run()
    no_errors(app)

    # and a second fact, picked in the list
    correct(app, first, "Halcyon's FY2026 budget targets revenue of $5.5 million.", date(2026, 4, 2))
    records = sorted(list_corrections(lab.store, deal), key=lambda r: r.created_at)
    assert [r.old_uuid for r in records] == [cash, one.new_uuid, first]
    assert [r.new_fact.split(" ")[-1] for r in records] == ["2026.", "2026.", "million."]
    assert app.selectbox(key="timeline.fix.fact").value == records[-1].new_uuid
