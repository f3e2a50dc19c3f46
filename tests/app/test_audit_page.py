"""The Audit log page: every admin action with who, when, what, before and after; filters by deal, action and
person; a CSV whose text cells a spreadsheet will not run; and the way to the record of an action that can
still be undone (on the Timeline or Entity merges page, picked there, in the same session)."""

from __future__ import annotations

import io
from datetime import date

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.audit.view import audit_frame
from dashboard.common.exports import csv_bytes
from pipeline.admin.unlock import try_unlock
from pipeline.audit import AuditFilter, filtered_audit_log
from pipeline.corrections.actions import CorrectionRequest, correct_fact
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.merges.actions import merge_entities, undo_merge
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET
from tests.support.tables import assert_tidy

PAGE = "app_pages/audit.py"
DEAL = "demo_audit_app"
HOSTILE = '=HYPERLINK("http://evil")'  # an admin name a spreadsheet would run


async def _entity(lab: Lab, name: str) -> str:
    rows = await lab.backend.query(DEAL, "MATCH (n:Entity {name: $name}) RETURN n.uuid AS u", name=name)
    return rows[0]["u"]


@pytest.fixture(scope="module")
async def deal(lab: Lab) -> dict[str, str]:
    """Our own deal with one correction (open), one merge undone and one merge still recorded, by two people."""
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    correction = await correct_fact(
        lab,
        DEAL,
        CorrectionRequest(
            stable_uuid(DEAL, "fact", "f216"),
            "Halcyon's cash balance was $1.45 million.",
            "qa_response",
            "Dana Whitfield (CFO)",
            date(2026, 4, 2),
        ),
        actor="Ana",
    )
    greyfield = await merge_entities(
        lab, DEAL, await _entity(lab, "Greyfield Venture Partners"), await _entity(lab, "Greyfield Ventures"), HOSTILE
    )
    await undo_merge(lab, DEAL, greyfield.uuid, "Ana")
    kept = await merge_entities(
        lab, DEAL, await _entity(lab, "Greyfield Venture Partners"), await _entity(lab, "Greyfield Ventures"), "Ana"
    )
    return {"correction": correction.id, "undone_merge": greyfield.uuid, "merge": kept.uuid}


def table(app: AppTest) -> pd.DataFrame:
    [frame] = [d.value for d in app.dataframe if "Before" in d.value.columns]
    return frame


def test_every_action_is_listed_with_who_what_before_and_after(app: AppTest, deal: dict[str, str]) -> None:
    open_page(app, PAGE, DEAL)
    assert [t.value for t in app.title] == ["Audit log"]
    assert app.multiselect(key="audit.deals").value == [DEAL]  # opens on the sidebar's deal
    rows = table(app)
    assert list(rows["Action"]) == ["Entities merged", "Merge undone", "Entities merged", "Fact corrected"]
    assert list(rows["Who"]) == ["Ana", "Ana", HOSTILE, "Ana"]
    fix = rows.iloc[3]
    assert fix["Before"].startswith("Halcyon") and "$1.45 million" in fix["After"] and "2026-04-02" in fix["After"]
    undo = rows.iloc[1]
    assert undo["What"] == "Greyfield Venture Partners → Greyfield Ventures"
    assert undo["After"] == "2 facts back on Greyfield Venture Partners"
    # an undo exists for the open correction and the recorded merge, not for the undone merge nor the undo itself
    links = list(rows["Undo"])
    assert links[0] == f"merges?sidebar.deal={DEAL}&merges.merge={deal['merge']}"
    assert pd.isna(links[1]) and pd.isna(links[2])
    fix_tab = "timeline.tab=Correct+a+fact"
    assert links[3] == f"timeline?sidebar.deal={DEAL}&{fix_tab}&timeline.correction={deal['correction']}"
    assert all(pd.notna(rows["When (UTC)"])) and str(rows["When (UTC)"].dt.tz) == "UTC"  # shown 2026-11-23 17:00
    assert_tidy(rows.drop(columns=["Undo"]))  # the Undo links are empty where there is none (a link column)


def test_filters_by_action_and_person(app: AppTest, deal: dict[str, str]) -> None:
    open_page(app, PAGE, DEAL)
    app.multiselect(key="audit.actions").set_value(["merge", "merge.undo"]).run()
    no_errors(app)
    assert set(table(app)["Action"]) == {"Entities merged", "Merge undone"} and len(table(app)) == 3
    app.multiselect(key="audit.actors").set_value([HOSTILE]).run()
    assert list(table(app)["Who"]) == [HOSTILE]
    app.multiselect(key="audit.actions").set_value(["fact.correct"]).run()
    no_errors(app)
    assert not app.dataframe and any("No admin action matches" in i.value for i in app.info)
    app.multiselect(key="audit.actors").set_value([]).run()
    assert list(table(app)["Action"]) == ["Fact corrected"]


def test_a_link_opens_the_same_filters(app: AppTest, deal: dict[str, str]) -> None:
    """The filters are bound to the URL by their labels; the link's deals win over the sidebar's on opening."""
    app.query_params.update({"audit.actions": ["Entities merged"], "audit.actors": ["Ana"], "audit.deals": [DEAL]})
    open_page(app, PAGE)
    assert app.multiselect(key="audit.deals").value == [DEAL]
    assert app.multiselect(key="audit.actions").value == ["merge"]
    assert app.multiselect(key="audit.actors").value == ["Ana"]
    assert list(table(app)["Action"]) == ["Entities merged"] and list(table(app)["Who"]) == ["Ana"]


def test_filters_by_deal(app: AppTest, deal: dict[str, str], lab: Lab) -> None:
    try_unlock(lab.store, "not-the-secret", ADMIN_SECRET, "Mallory")  # an entry of no deal
    open_page(app, PAGE, DEAL)
    app.multiselect(key="audit.deals").set_value([]).run()
    no_errors(app)
    everything = table(app)
    assert {DEAL, "—"} <= set(everything["Deal"]) and "Wrong admin secret" in set(everything["Action"])
    app.multiselect(key="audit.deals").set_value([""]).run()
    assert set(table(app)["Deal"]) == {"—"} and "Mallory" in set(table(app)["Who"])


def test_the_csv_neutralises_formula_cells(lab: Lab, deal: dict[str, str]) -> None:
    entries = filtered_audit_log(lab.store, AuditFilter(deals=[DEAL]))
    frame = audit_frame(entries, set())
    text = csv_bytes(frame.drop(columns=["Undo"])).decode()
    back = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert list(back.columns) == ["When (UTC)", "Who", "Action", "Deal", "What", "Before", "After"]
    assert "'" + HOSTILE in set(back["Who"]) and HOSTILE not in set(back["Who"])


def test_the_undo_link_opens_the_record_on_its_page_still_unlocked(app: AppTest, deal: dict[str, str]) -> None:
    open_page(app, PAGE, DEAL)
    app.text_input(key="admin.name").input("Ana")
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    picker = app.selectbox(key="audit.undo_pick")
    assert len(picker.options) == 2  # the open correction and the recorded merge
    merge_entry = next(o for o in picker.options if "Entities merged" in o)
    picker.select_index(picker.options.index(merge_entry)).run()
    no_errors(app)
    [link] = app.get("page_link")
    assert link.proto.label == "Open on Entity merges to undo"

    # what the link does: the Merges page with the merge's query parameter, in the same session
    app.query_params["merges.merge"] = deal["merge"]
    app.switch_page("app_pages/merges.py").run()
    no_errors(app)
    assert app.selectbox(key="merges.undo_pick").value == deal["merge"]
    assert any("From the audit log: the merge of 'Greyfield Venture Partners'" in i.value for i in app.info)
    assert "merges.merge" not in app.query_params  # taken once

    app.query_params["timeline.correction"] = deal["correction"]
    app.switch_page("app_pages/timeline.py").run()
    no_errors(app)
    assert app.selectbox(key="timeline.undo.pick").value == deal["correction"]
    assert any("From the audit log: the correction" in i.value for i in app.info)
