"""A reranker is one module plus one row of the table (pipeline/rerankers/specs.py): a fake one, registered there and
nowhere else, is offered and run by the CLI, the pages, the sweep and the exported module (issue 39, item 5).

The fake scores a passage by the words it shares with the query. Its factory and its exported code are named in its
row as "module:attr" strings, as the real rows name theirs, so the row is all any of those places gets to see.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.cli import main
from pipeline.errors import InvalidInput
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.ship import setting_module
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.rerankers import (
    RERANKERS,
    SPECS,
    ExportCode,
    LabReranker,
    RerankerSpec,
    RerankOutcome,
    make_reranker,
    register,
    reranker_choices,
)
from pipeline.retrieval.setting import Setting
from pipeline.settings import Settings
from tests.app.conftest import APP, no_errors, open_page

NAME = "overlap"
MODEL = "word-overlap-v1"
LABEL = "Word overlap (a test's fake)"
QUERY = "What was Halcyon's FY2025 revenue?"


def overlap(query: str, passage: str) -> float:
    """How many distinct words the passage shares with the query."""
    words = set(re.findall(r"\w+", query.lower()))
    return float(len(words & set(re.findall(r"\w+", passage.lower()))))


class WordOverlap(LabReranker):
    """The fake: free, local, not a cross-encoder; it counts its calls, so a test sees it ran."""

    name = NAME
    model = MODEL
    calls = 0

    def __init__(self, settings: Settings, model: str | None = None) -> None:
        self.settings = settings

    async def score(
        self, query: str, passages: Sequence[str], vectors: Sequence[Sequence[float]] | None = None
    ) -> RerankOutcome:
        WordOverlap.calls += 1
        return RerankOutcome(scores=tuple(overlap(query, p) for p in passages), model=MODEL)


EXPORTED = '''
RERANK_MODEL = "word-overlap-v1"  # a test's fake: {model!r} has no model setting


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Word overlap with the query, most shared words first; ties keep first-stage order."""
    import re

    words = set(re.findall(r"\\w+", query.lower()))
    shared = [len(words & set(re.findall(r"\\w+", e.fact.lower()))) for e in edges]
    return [edges[i] for i in sorted(range(len(edges)), key=lambda i: (-shared[i], i))]
'''


def exported(model: str) -> ExportCode:
    return ExportCode(EXPORTED.format(model=model))


ROW = RerankerSpec(
    NAME,
    LABEL,
    "shared words with the query",
    colour="#654321",
    factory=f"{__name__}:WordOverlap",
    export=f"{__name__}:exported",
)


@pytest.fixture
def fake() -> Iterator[RerankerSpec]:
    """The fake's row, in the table for the test only."""
    undo = register(ROW)
    WordOverlap.calls = 0
    try:
        yield ROW
    finally:
        undo()
    assert NAME not in RERANKERS and NAME not in SPECS


def test_registering_adds_one_row_that_every_list_reads_and_the_undo_takes_it_out() -> None:
    before = tuple(RERANKERS)
    with pytest.raises(InvalidInput, match=f"Unknown reranker '{NAME}'"):
        make_reranker(NAME, Settings())
    undo = register(ROW)
    try:
        assert tuple(RERANKERS) == (*before, NAME) and RERANKERS[-1] == NAME
        assert [(c.name, c.label, c.available) for c in reranker_choices(Settings())][-1] == (NAME, LABEL, True)
        assert isinstance(make_reranker(NAME, Settings()), WordOverlap)
        assert Setting.parse(f"{NAME}:10:5", "--setting").reranker == NAME  # Setting's check reads the table
        SweepSpec("demo", (10,), (5,), ("none", NAME)).validate()
        with pytest.raises(ValueError, match="in the table already"):
            register(ROW)
    finally:
        undo()
    assert tuple(RERANKERS) == before
    with pytest.raises(InvalidInput):
        Setting.parse(f"{NAME}:10:5", "--setting")


def test_the_cli_lists_and_runs_the_registered_reranker(
    fake: RerankerSpec, demo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["query", "--help"]) == 0
    assert f"cohere or {NAME}" in " ".join(capsys.readouterr().out.split())  # argparse wraps the help

    args = ["query", QUERY, "--group", demo, "--candidates", "10", "--top-k", "5", "--reranker", NAME, "--json"]
    assert main(args) == 0
    run = json.loads(capsys.readouterr().out)
    assert (run["reranker"], run["reranker_model"], run["rerank_used"]) == (NAME, MODEL, True), run["fallback_reason"]
    assert [r["rerank_score"] for r in run["reranked"]] == [overlap(QUERY, r["fact"]) for r in run["reranked"]]
    assert WordOverlap.calls == 1


def test_the_compare_page_offers_and_runs_the_registered_reranker(fake: RerankerSpec, demo: str) -> None:
    app = open_page(AppTest.from_file(APP, default_timeout=60), "app_pages/compare.py")
    picker = app.selectbox(key="compare.b.reranker")
    assert LABEL in picker.options
    picker.set_value(NAME)
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    assert not [w.value for w in app.warning if "fell back" in w.value]
    assert MODEL in [c.value for c in app.caption]  # side B's heading names the model its run recorded
    assert WordOverlap.calls == 1


async def test_the_sweep_runs_it_and_the_exported_module_carries_its_code(
    fake: RerankerSpec, lab: Lab, demo: str
) -> None:
    spec = SweepSpec(demo, (10,), (5,), ("none", NAME), limit_queries=3, use_cache=False)
    result = await run_sweep(lab, spec)
    (swept,) = [s for s in result.grid if s.setting.reranker == NAME]
    assert (swept.reranker_model, swept.fallbacks, swept.cost_usd) == (MODEL, 0, 0.0)
    assert WordOverlap.calls == 3  # one pool a query

    module = setting_module(result, swept.key, lab.settings)
    assert EXPORTED.format(model="") in module
    compile(module, "overlap_setting.py", "exec")
