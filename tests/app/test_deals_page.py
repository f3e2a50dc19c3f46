"""The Deals page: read-only without the admin secret, reset the demo with it (on a deal of our own)."""

from streamlit.testing.v1 import AppTest

from pipeline.audit import audit_log
from pipeline.lab import Lab
from tests.app.conftest import no_errors
from tests.conftest import ADMIN_SECRET


def test_deals_are_listed_and_reset_is_locked_without_the_secret(app: AppTest) -> None:
    app.run()
    app.switch_page("app_pages/deals.py")
    app.run()
    no_errors(app)
    deals = app.dataframe[0].value
    assert "demo" in list(deals["deal"])
    assert int(deals.set_index("deal").loc["demo", "facts"]) >= 300
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
    no_errors(app)
    assert any("Demo deal reset" in s.value for s in app.success)
    rows = await lab.backend.query(demo, "MATCH ()-[e:RELATES_TO {fact: 'tampered'}]->() RETURN count(e) AS n")
    assert rows[0]["n"] == 0
    [entry] = audit_log(lab.store, demo, "deal.reset_demo")[:1]
    assert entry.actor == "Ana"
