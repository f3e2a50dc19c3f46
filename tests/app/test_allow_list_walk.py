"""A restricted deployment (RETRIEVAL_LAB_ALLOWED_DEALS=demo) over a graph and store that also hold another
deal, walked page by page: nothing of the other deal (its name, or the marker word in every one of its
passages, documents, queries, runs, experiments, queues, verdicts, corrections and audit entries) reaches
any element of any page, whatever the URL asks for. Property-based: the allow-list's spelling, the page
order and the deal the URL names vary. A positive control shows the same walk unrestricted finds it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.errors import UnknownDeal
from pipeline.ingest.demo.seed import reset_demo
from pipeline.lab import Lab
from pipeline.settings import get_settings
from tests.app.conftest import APP
from tests.conftest import ADMIN_SECRET
from tests.support.shown import shown
from tests.support.two_deals import OtherDeal, build_other_deal, leaks, leave_traces

PAGES = sorted(str(p.relative_to(Path(APP).parent)) for p in (Path(APP).parent / "app_pages").glob("*.py"))
ENV = "RETRIEVAL_LAB_ALLOWED_DEALS"


@pytest.fixture(scope="module")
async def other(lab: Lab, demo: str, tmp_path_factory: pytest.TempPathFactory) -> OtherDeal:
    other = await build_other_deal(lab, tmp_path_factory.mktemp("walk"), "walk_other", "quokkalith")
    await leave_traces(lab, demo)
    return other


@pytest.fixture
def deployment(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Set the allow-list for the app under test (settings and the cached Lab re-read); restored afterwards."""
    yield monkeypatch
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def restrict(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, value)
    get_settings.cache_clear()
    runtime._lab.clear()


def rendered(app: AppTest) -> str:
    """Every element's serialized proto (text, tables as Arrow, charts as JSON, widget options) and the URL."""
    parts: list[str] = [repr(dict(app.query_params))]

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "SerializeToString"):
            parts.append(shown(proto.SerializeToString().decode("utf-8", "replace")))  # escapes must not hide a leak
        children = getattr(node, "children", None)
        for child in children.values() if isinstance(children, dict) else children or ():
            walk(child)

    walk(app._tree)
    return "\n".join(parts)


def visit(page: str, url_deal: str | None) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=90)
    if url_deal is not None:
        app.query_params["sidebar.deal"] = url_deal
    app.run()
    app.switch_page(page)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.title, f"{page} drew no title"  # the page really ran
    return app


def test_positive_control_unrestricted_pages_show_the_other_deal(
    other: OtherDeal, deployment: pytest.MonkeyPatch
) -> None:
    restrict(deployment, None)
    found = {
        page for page in ("app_pages/history.py", "app_pages/deals.py") if leaks(rendered(visit(page, None)), other)
    }
    assert found == {"app_pages/history.py", "app_pages/deals.py"}


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    allowed=st.sampled_from(["demo", " demo ", "demo,ghost_deal", "ghost_deal,demo"]),
    pages=st.permutations(PAGES),
    url_deal=st.sampled_from([None, "walk_other", "demo", "ghost_deal"]),
)
def test_a_restricted_deployment_shows_nothing_of_another_deal(
    other: OtherDeal, deployment: pytest.MonkeyPatch, allowed: str, pages: list[str], url_deal: str | None
) -> None:
    restrict(deployment, allowed)
    for page in pages:
        app = visit(page, url_deal)
        if page.endswith("history.py"):  # open the newest run it lists: the stored run's page is walked too
            assert len(app.selectbox(key="history.open").options) > 1  # the allowed deal's runs are listed
            app.selectbox(key="history.open").select_index(1).run()
        text = rendered(app)
        found = leaks(text, other)
        assert not found, f"{page} (allowed={allowed!r}, url deal={url_deal!r}) shows {found}"
        if url_deal == other.group_id:
            assert app.selectbox(key="sidebar.deal").value == "demo"  # the URL cannot pick it


async def test_an_admin_of_a_deployment_without_the_demo_deal_cannot_reset_it(
    lab: Lab, other: OtherDeal, deployment: pytest.MonkeyPatch
) -> None:
    restrict(deployment, other.group_id)
    app = visit("app_pages/deals.py", None)
    app.text_input(key="admin.name").input("Ana")
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    assert any(s.value == "Admin actions on for Ana." for s in app.sidebar.success)  # unlocked, yet:
    assert "deals.reset" not in {b.key for b in app.button}
    assert any("does not include the demo deal" in i.value for i in app.info)
    restricted = Lab(get_settings(), lab.backend, lab.embedder)  # the page's Lab, restricted
    with pytest.raises(UnknownDeal, match="reset-demo"):
        await reset_demo(restricted, "Ana")


@pytest.mark.parametrize("value", ["", ",", " "])
def test_a_blank_allow_list_is_one_line_on_every_page_not_every_deal(
    other: OtherDeal, deployment: pytest.MonkeyPatch, value: str
) -> None:
    restrict(deployment, value)
    for page in PAGES:
        app = AppTest.from_file(APP, default_timeout=90)
        app.run()
        app.switch_page(page)
        app.run()
        assert not app.exception, [e.value for e in app.exception]
        errors = [shown(e.value) for e in app.main.error]
        assert errors and all("RETRIEVAL_LAB_ALLOWED_DEALS is set but names no deal" in e for e in errors), errors
        assert [shown(e.value) for e in app.sidebar.error] == [f"**Settings error.** {errors[0]}"]
        assert not leaks(rendered(app), other) and "demo —" not in rendered(app)  # no deal is opened at all
