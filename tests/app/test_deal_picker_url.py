"""The sidebar's deal travels in the URL as its group id: a link names any deal, a pick writes its id."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import no_errors
from tests.support.wide_deal import wide_deal  # noqa: F401 (session fixture)


def test_a_link_opens_the_deal_it_names_and_a_pick_writes_its_group_id(
    app: AppTest,
    wide_deal: str,  # noqa: F811
) -> None:
    app.query_params["sidebar.deal"] = wide_deal  # not the default deal: a bound select box dropped such links
    app.run()
    no_errors(app)
    assert app.selectbox(key="sidebar.deal").value == wide_deal
    assert app.query_params["sidebar.deal"] == wide_deal

    app.selectbox(key="sidebar.deal").set_value("demo").run()  # the default deal: no parameter, as before
    assert app.selectbox(key="sidebar.deal").value == "demo" and "sidebar.deal" not in app.query_params

    app.selectbox(key="sidebar.deal").set_value(wide_deal).run()
    app.switch_page("app_pages/deals.py")
    app.run()
    no_errors(app)
    assert app.selectbox(key="sidebar.deal").value == wide_deal  # kept across pages
    assert app.query_params["sidebar.deal"] == wide_deal


def test_an_unknown_deal_in_the_url_is_dropped(app: AppTest) -> None:
    app.query_params["sidebar.deal"] = "no-such-deal"
    app.run()
    no_errors(app)
    assert app.selectbox(key="sidebar.deal").value == "demo" and "sidebar.deal" not in app.query_params
