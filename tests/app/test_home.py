from streamlit.testing.v1 import AppTest

from tests.app.conftest import no_errors


def test_home_shows_the_demo_deal_and_its_counts(app: AppTest) -> None:
    app.run()
    no_errors(app)
    assert app.title[0].value == "Retrieval Lab"
    assert app.selectbox(key="sidebar.deal").value == "demo"
    metrics = {m.label: int(m.value) for m in app.metric}
    assert metrics["Facts"] >= 300
    assert metrics["Superseded"] >= 8
    assert metrics["Facts"] == metrics["Current"] + metrics["Superseded"]
    assert metrics["Entities"] >= 60 and metrics["Episodes"] >= 80
