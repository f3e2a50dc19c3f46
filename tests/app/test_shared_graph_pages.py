"""The pages on groups that share one FalkorDB graph (tests/support/shared_graph.py): the sidebar offers each
group, and Home's counts, the Timeline, Evidence and Compare's results show that group's facts and nothing of
another's."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, no_errors, open_page
from tests.integration.test_shared_graph import shared  # noqa: F401 (the groups in default_db)
from tests.support.graphiti_deal import GraphitiDeal
from tests.support.shared_graph import COMPANIES, Company
from tests.support.shown import shown as displayed


def page(name: str, group: str) -> AppTest:
    return open_page(AppTest.from_file(APP, default_timeout=60), f"app_pages/{name}.py", group)


def texts(app: AppTest) -> str:
    kinds = ("markdown", "caption", "text", "dataframe")
    return "\n".join(displayed(str(e.value)) for kind in kinds for e in app.get(kind))


def others(company: Company) -> list[str]:
    return [c.name for c in COMPANIES if c is not company]


@pytest.mark.parametrize("company", COMPANIES, ids=[c.group_id for c in COMPANIES])
def test_each_group_sharing_a_graph_has_its_own_pages(
    shared: dict[str, GraphitiDeal],  # noqa: F811
    company: Company,
) -> None:
    home = page("home", company.group_id)
    assert company.group_id in home.selectbox(key="sidebar.deal").options
    expected = shared[company.group_id].expected
    metrics = {m.label: int(m.value) for m in home.metric}
    assert (metrics["Facts"], metrics["Superseded"], metrics["Entities"], metrics["Episodes"]) == (
        expected.facts,
        expected.superseded,
        expected.entities,
        expected.episodes,
    )

    timeline = page("timeline", company.group_id)
    shown = texts(timeline)
    assert company.name in shown and not any(name in shown for name in others(company))

    evidence = page("evidence", company.group_id)  # its default focus, read through the same dialect
    shown = texts(evidence)
    assert company.name in shown and not any(name in shown for name in others(company))

    compare = page("compare", company.group_id)
    compare.text_input(key="compare.q").input("What was the FY2025 revenue?").run()
    no_errors(compare)
    shown = texts(compare)
    assert company.restated_fact in shown and not any(name in shown for name in others(company))
