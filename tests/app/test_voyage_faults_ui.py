"""Compare with the Voyage reranker, through AppTest, against the loopback Voyage stand-in.

The app is configured only the way a user would configure it (environment variables), and the real
voyageai SDK talks HTTP to `tests/support/fakes/voyage_server.py`. A working Voyage shows its scores and no
banner; a hang past the timeout, a 429 storm and a 500 each show the fallback banner with the reason,
keep both columns of k first-stage cards, and the rerun that runs the query is not left hanging.

No bound here is a speed target (those are in `benchmarks/`): the statuses get a request timeout no loaded
machine can reach, so only the scripted answer decides the reason; the hang gets a short one, told from the
overall deadline (twice it) by the reason's wording, and the stand-in hangs far longer than STUCK_S.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.rerankers.voyage import LAST_FAILURE
from pipeline.settings import get_settings
from tests.app.conftest import app_env, no_errors
from tests.support.fakes.voyage_server import FakeVoyageServer, rerank_score

KEY = "vk-ui-fault-test"
ROOMY_TIMEOUT_S = 30.0  # RETRIEVAL_LAB_VOYAGE_TIMEOUT_S for answers: the stand-in answers at once
HANG_TIMEOUT_S = 3.0  # ... for the hang: one request; the reranker's hard deadline is twice this
MAX_RETRIES = 2
HANG_S = 180.0  # the stand-in's "hang": far past STUCK_S (teardown releases it at once)
STUCK_S = 90.0  # only a rerun that waited on the hanging stand-in (or hung itself) takes this long
QUERY = "What was Halcyon's FY2025 revenue?"
N, K = 20, 5
RANK = re.compile(r"^\*\*#(\d+)\*\*$")
SCORE = re.compile(r"^rerank (-?\d+\.\d{3}) \(norm \d\.\d{2}\)$")


@pytest.fixture
def voyage(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeVoyageServer]:
    """The fake Voyage API, and the app's settings pointing at it (restored afterwards)."""
    saved_failures = dict(LAST_FAILURE)
    LAST_FAILURE.clear()  # a failure left by another test would mark Voyage as failing in the sidebar
    try:
        with (
            FakeVoyageServer(api_key=KEY, hang_s=HANG_S) as server,
            app_env(
                monkeypatch,
                VOYAGE_API_KEY=KEY,
                VOYAGE_BASE_URL=server.base_url,
                RETRIEVAL_LAB_VOYAGE_TIMEOUT_S=str(ROOMY_TIMEOUT_S),
                RETRIEVAL_LAB_VOYAGE_MAX_RETRIES=str(MAX_RETRIES),
            ),
        ):
            yield server
    finally:
        LAST_FAILURE.clear()
        LAST_FAILURE.update(saved_failures)


def use_voyage_timeout(monkeypatch: pytest.MonkeyPatch, timeout_s: float) -> None:
    """Another request timeout for the app (before its first run: the settings and the lab are cached)."""
    monkeypatch.setenv("RETRIEVAL_LAB_VOYAGE_TIMEOUT_S", str(timeout_s))
    get_settings.cache_clear()
    runtime._lab.clear()


def open_compare_with_voyage(app: AppTest) -> AppTest:
    app.run()
    app.switch_page("app_pages/compare.py")
    app.run()
    no_errors(app)
    # AppTest lists options by label: "Voyage rerank-2.5" alone means the key was picked up and Voyage is
    # available (without a key, or after a failure, the label says why not)
    assert "Voyage rerank-2.5" in app.selectbox(key="compare.b.reranker").options
    app.selectbox(key="compare.b.reranker").set_value("voyage")
    for side in ("a", "b"):
        app.slider(key=f"compare.{side}.n").set_value(N)
        app.slider(key=f"compare.{side}.k").set_value(K)
    app.run()
    no_errors(app)
    return app


def run_query(app: AppTest) -> float:
    """Type the query and run the page once; the seconds that rerun took."""
    app.text_input(key="compare.q").input(QUERY)
    started = time.monotonic()
    app.run()
    return time.monotonic() - started


def cards(app: AppTest) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(rank, fact) of the cards on the left, then on the right (the fact follows its rank; the cards come a row at
    a time, A's then B's)."""
    values = [m.value for m in app.markdown]
    found = [(int(m.group(1)), values[i + 1]) for i, v in enumerate(values) if (m := RANK.match(v))]
    return found[0::2], found[1::2]


def banner(app: AppTest) -> str:
    return " ".join(w.value for w in app.warning if "fell back" in w.value)


def test_voyage_answering_shows_its_scores_and_no_banner(app: AppTest, voyage: FakeVoyageServer) -> None:
    open_compare_with_voyage(app)

    elapsed = run_query(app)

    no_errors(app)
    assert not banner(app)
    assert [s.value for s in app.subheader] == ["A: without reranking", "B: with voyage"]
    left, right = cards(app)
    assert [r for r, _ in left] == [r for r, _ in right] == list(range(1, K + 1))
    [request] = voyage.requests_to("/v1/rerank")
    assert request.body["query"] == QUERY and len(request.body["documents"]) == N
    # the right column is Voyage's order with Voyage's scores: the fake's score of each fact, best first
    shown = [float(m.group(1)) for c in app.caption if (m := SCORE.match(c.value))]
    expected = [round(rerank_score(QUERY, fact), 3) for _, fact in right]
    assert shown == expected
    assert shown == sorted(shown, reverse=True)
    assert max(rerank_score(QUERY, d) for d in request.body["documents"]) == pytest.approx(shown[0], abs=1e-3)
    assert any(c.value == "rerank-2.5" for c in app.caption)  # the model under "With reranking"
    assert elapsed < STUCK_S, f"rerun took {elapsed:.2f} s"  # not stuck; how fast is a benchmark's business


@pytest.mark.parametrize(
    ("script", "timeout_s", "reason", "requests"),
    [
        # the request's own timeout, not the overall deadline (6 s) nor the stand-in's release: not retried
        (["hang"], HANG_TIMEOUT_S, f"timed out after {HANG_TIMEOUT_S:.1f} s", 1),
        (["429"] * 20, ROOMY_TIMEOUT_S, f"rate limited (429) after {MAX_RETRIES} retries", 1 + MAX_RETRIES),
        (["500"] * 20, ROOMY_TIMEOUT_S, f"server error 500 after {MAX_RETRIES} retries", 1 + MAX_RETRIES),
    ],
    ids=["hang-past-timeout", "429-storm", "500"],
)
def test_a_failing_voyage_falls_back_with_a_banner_and_is_not_left_hanging(
    app: AppTest,
    voyage: FakeVoyageServer,
    monkeypatch: pytest.MonkeyPatch,
    script: list[str],
    timeout_s: float,
    reason: str,
    requests: int,
) -> None:
    use_voyage_timeout(monkeypatch, timeout_s)
    open_compare_with_voyage(app)
    voyage.script(script)

    elapsed = run_query(app)

    no_errors(app)
    text = banner(app)
    assert "fell back to first-stage order" in text and f"Voyage rerank-2.5: {reason}" in text, text
    assert len(voyage.requests_to("/v1/rerank")) == requests
    left, right = cards(app)
    assert [r for r, _ in left] == [r for r, _ in right] == list(range(1, K + 1))
    assert [f for _, f in right] == [f for _, f in left]  # first-stage order kept on the right
    assert not [c for c in app.caption if SCORE.match(c.value)]  # no rerank scores shown
    assert sum(c.value.startswith("fused RRF ") for c in app.caption) == 2 * K
    if script == ["hang"]:
        assert elapsed >= HANG_TIMEOUT_S - 0.05, f"rerun took {elapsed:.2f} s"  # it did wait for the timeout
    assert elapsed < STUCK_S, f"rerun took {elapsed:.2f} s"  # ... and no longer: the hang did not hold it
    # from the next rerun on (the sidebar is drawn before the query runs), Voyage is shown as failing
    app.run()
    no_errors(app)
    assert any(f"unreachable or failing: Voyage rerank-2.5: {reason}" in c.value for c in app.sidebar.caption)
    assert len(voyage.requests_to("/v1/rerank")) == requests  # the run is kept: no second call
