"""The Deals page: every discovered deal with its vector size and embedder match (and the sidebar's caption);
read-only without the admin secret, reset the demo with it."""

import socket

from streamlit.testing.v1 import AppTest

from pipeline.audit import audit_log
from pipeline.lab import Lab
from tests.app.conftest import no_errors
from tests.conftest import ADMIN_SECRET
from tests.support.graphiti_deal import GROUP_ID, GraphitiDeal, graphiti_deal  # noqa: F401 (session fixture)
from tests.support.tables import assert_tidy
from tests.support.wide_deal import wide_deal  # noqa: F401 (session fixture)


def test_deals_are_listed_and_reset_is_locked_without_the_secret(app: AppTest) -> None:
    app.run()
    app.switch_page("app_pages/deals.py")
    app.run()
    no_errors(app)
    deals = app.dataframe[0].value
    assert "demo" in list(deals["Deal"])
    assert_tidy(deals) and str(deals["Built (UTC)"].dt.tz) == "UTC"
    assert int(deals.set_index("Deal").loc["demo", "Facts"]) >= 300
    assert not [b for b in app.button if b.key == "deals.reset"]
    assert any("Read-only" in i.value for i in app.info)


async def test_reset_demo_restores_the_bundled_deal_and_is_audited(app: AppTest, lab: Lab, demo: str) -> None:
    await lab.backend.query(demo, "MATCH ()-[e:RELATES_TO]->() WITH e LIMIT 1 SET e.fact = 'tampered'")
    app.run()
    app.switch_page("app_pages/deals.py")
    app.run()
    app.text_input(key="admin.name").input("Ana").run()
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    app.button(key="deals.reset").click().run()
    assert any(w.value.startswith("Reset the demo deal: its ") for w in app.warning)
    app.button(key="deals.reset.confirm").click().run()
    no_errors(app)
    assert any("Demo deal reset" in s.value for s in app.success)
    rows = await lab.backend.query(demo, "MATCH ()-[e:RELATES_TO {fact: 'tampered'}]->() RETURN count(e) AS n")
    assert rows[0]["n"] == 0
    [entry] = audit_log(lab.store, demo, "deal.reset_demo")[:1]
    assert entry.actor == "Ana"


def test_every_discovered_deal_is_listed_with_its_vector_size_and_embedder_match(
    app: AppTest,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    wide_deal: str,  # noqa: F811
) -> None:
    app.run()
    app.switch_page("app_pages/deals.py")
    app.run()
    no_errors(app)
    table = app.dataframe[0].value.set_index("Deal")
    assert (table.loc[GROUP_ID, "Source"], table.loc[GROUP_ID, "Name"]) == ("graphiti", GROUP_ID)
    assert (int(table.loc[GROUP_ID, "Facts"]), int(table.loc[GROUP_ID, "Superseded facts"])) == (19, 2)
    assert (int(table.loc[GROUP_ID, "Vector dim"]), table.loc[GROUP_ID, "Embedder match"]) == (384, "yes")
    assert int(table.loc[wide_deal, "Vector dim"]) == 1536
    assert table.loc[wide_deal, "Embedder match"] == "no: RETRIEVAL_LAB_EMBEDDER=openai:text-embedding-3-small"

    deal_box = app.selectbox(key="sidebar.deal")
    # each deal by its name, short enough for the sidebar; a graphiti deal's name is its group id
    assert GROUP_ID in deal_box.options and "Project Hal" in " ".join(deal_box.options)
    assert all(len(option) <= 24 for option in deal_box.options)
    deal_box.set_value(GROUP_ID).run()
    no_errors(app)
    assert any(c.value == f"group id: {GROUP_ID}" for c in app.sidebar.caption)  # the whole id, under the box
    assert any("384-d vectors" in c.value and "embedder matches" in c.value for c in app.sidebar.caption)
    app.selectbox(key="sidebar.deal").set_value(wide_deal).run()
    no_errors(app)
    [caption] = [c.value for c in app.sidebar.caption if "1536-d vectors" in c.value]
    assert "does not match" in caption and "RETRIEVAL_LAB_EMBEDDER=openai:text-embedding-3-small" in caption


def test_an_interrupted_import_is_said_in_the_sidebar_and_on_the_deals_page(app: AppTest, lab: Lab, demo: str) -> None:
    """The deal's row says an import wrote 1,000 of 3,190 facts and its process is gone (a killed import-beir)."""
    gone = f"{socket.gethostname()}:0:1"  # this host, no such pid
    with lab.store.transaction() as conn:
        conn.execute(
            "UPDATE deals SET import_done = 1000, import_total = 3190, import_owner = ? WHERE group_id = ?",
            (gone, demo),
        )
    try:
        app.run()
        app.switch_page("app_pages/deals.py")
        app.run()
        no_errors(app)
        note = "import interrupted at 1,000 of 3,190 facts — re-run the same command"
        assert any(note in w.value.replace("\\", "") for w in app.warning), [w.value for w in app.warning]
        captions = [c.value.replace("\\", "") for c in app.sidebar.caption]
        assert any("Import interrupted at 1,000 of 3,190 facts" in c for c in captions), captions
        assert app.dataframe[0].value.set_index("Deal").loc[demo, "Import"] == note
    finally:
        with lab.store.transaction() as conn:
            conn.execute(
                "UPDATE deals SET import_done = NULL, import_total = NULL, import_owner = NULL WHERE group_id = ?",
                (demo,),
            )
