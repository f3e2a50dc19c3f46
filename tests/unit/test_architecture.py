"""The layers run one way (issue 39): the repo's import graph, read from the code by tests/support/import_graph.py,
has no import circle but the known ones being removed, no more upward imports than measured, and every room placed
in its layer table. `.venv/bin/python -m tests.support.import_graph` prints the figures and what they are made of."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.import_graph import LAYERS, ImportGraph

ROOT = Path(__file__).resolve().parents[2]

# No circle is known: any circle fails.
KNOWN_CIRCLES: list[str] = []
# Upward imports (pairs of layer-table entries joined by an arrow from the lower to the higher): the 3 left are
# pipeline/deals/replace.py clearing feature tables when a deal is replaced. Modules below Lab import it for their
# annotations only (under TYPE_CHECKING). Lower it as they go; never raise it.
MAX_UPWARD = 3
# `pipeline` modules the front ends (dashboard/, app_pages/, pipeline/cli/, benchmarks/) import: the goal is the
# application layer alone (pipeline.api, pipeline.api.models, pipeline.errors). Features move behind their handle on
# Lab one at a time; lower this as they go, never raise it.
MAX_FRONT_END_MODULES = 3


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_reader_finds_a_known_circle_and_a_known_upward_import_exactly(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pipeline/__init__.py": "",
            "pipeline/errors.py": "import os\n",
            # a circle kept alive by an import inside a function (it still counts), and an upward import
            "pipeline/embedder_spec.py": "from pipeline.settings import LOCAL\n",
            "pipeline/settings.py": "LOCAL = 1\n\n\ndef spec():\n    from pipeline.embedder_spec import parse\n",
            # a package's __init__ importing its own module, which takes a name back from the package
            "pipeline/rerankers/__init__.py": "from pipeline.rerankers.local import LocalReranker\ntraits = {}\n",
            "pipeline/rerankers/local.py": "from pipeline.rerankers import traits\n",
            # a circle closed only for the type checker: no arrow at run time
            "pipeline/journal/__init__.py": "",
            "pipeline/journal/kinds.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pipeline.lab import Lab\n"
            ),
            "pipeline/lab.py": "from pipeline.journal.kinds import KINDS\nfrom pipeline import errors\n",
            # a relative import of a submodule, from a lower layer to a higher one
            "pipeline/store/__init__.py": "",
            "pipeline/store/db.py": "from ..graph import backend\n",
            "pipeline/graph/__init__.py": "",
            "pipeline/graph/backend.py": "import graphiti_core\n",
        },
    )
    graph = ImportGraph(tmp_path)

    assert [(c.files, c.edges) for c in graph.circles()] == [
        (
            ("pipeline/embedder_spec.py", "pipeline/settings.py"),
            [
                ("pipeline/embedder_spec.py", "pipeline/settings.py", ("LOCAL",)),
                ("pipeline/settings.py", "pipeline/embedder_spec.py", ("parse",)),
            ],
        ),
        (
            ("pipeline/rerankers/__init__.py", "pipeline/rerankers/local.py"),
            [
                ("pipeline/rerankers/__init__.py", "pipeline/rerankers/local.py", ("LocalReranker",)),
                ("pipeline/rerankers/local.py", "pipeline/rerankers/__init__.py", ("traits",)),
            ],
        ),
    ]
    upward = graph.upward()
    assert [(u.source_room, u.target_room, u.source_layer, u.target_layer) for u in upward] == [
        ("pipeline/embedder_spec.py", "pipeline/settings.py", "base", "settings"),
        ("pipeline/store/", "pipeline/graph/", "store", "graph"),
    ]
    assert [(i.source, i.target) for i in upward[1].imports] == [("pipeline/store/db.py", "pipeline/graph/backend.py")]
    assert [(i.source, i.target, i.local) for i in graph.local_imports()] == [
        ("pipeline/settings.py", "pipeline/embedder_spec.py", True)
    ]
    assert graph.arrows["pipeline/lab.py"] == {
        "pipeline/journal/kinds.py": ("KINDS",),
        "pipeline/errors.py": ("errors",),
    }
    assert graph.unplaced_rooms() == []

    write(tmp_path, {"pipeline/newfeature/__init__.py": "", "pipeline/newfeature/repo.py": ""})
    assert ImportGraph(tmp_path).unplaced_rooms() == ["pipeline/newfeature/"]


@pytest.fixture(scope="module")
def repo() -> ImportGraph:
    return ImportGraph(ROOT)


def test_every_room_of_the_repo_stands_on_a_layer(repo: ImportGraph) -> None:
    unplaced = repo.unplaced_rooms()
    assert not unplaced, (
        f"{', '.join(unplaced)}: in no layer; add it to LAYERS in tests/support/import_graph.py, on the layer of "
        "what it may import (a module may import its own layer and those below)"
    )


def test_no_import_circle_but_the_known_ones_being_removed(repo: ImportGraph) -> None:
    new = [c for c in repo.circles() if not any(all(f.startswith(known) for f in c.files) for known in KNOWN_CIRCLES)]
    assert not new, "\n".join(line for circle in new for line in circle.describe())


def test_no_more_upward_imports_than_measured(repo: ImportGraph) -> None:
    upward = repo.upward()
    assert len(upward) <= MAX_UPWARD, "\n".join(u.describe() for u in upward)


def test_the_front_ends_import_no_more_engine_modules_than_measured(repo: ImportGraph) -> None:
    modules, _ = repo.front_end_imports()
    assert len(modules) <= MAX_FRONT_END_MODULES, sorted(modules)


# what the front ends reach only through the application layer (`lab.<feature>`, `pipeline.api`, its models)
THROUGH_THE_API = (
    "pipeline/lab.py",
    "pipeline/spotcheck/",
    "pipeline/evaluation/",
    "pipeline/gate/",
    "pipeline/comparison/",
    "pipeline/why/",
    "pipeline/history/",
    "pipeline/temporal/",
    "pipeline/corrections/",
    "pipeline/merges/",
    "pipeline/audit/",
    "pipeline/admin/",
    "pipeline/backup/",
    "pipeline/deals/",
    "pipeline/query_sets/",
    "pipeline/pools/",
    "pipeline/judge/",
    "pipeline/ingest/",
    "pipeline/journal/",
    "pipeline/warm_up.py",
    "pipeline/retrieval/",
    "pipeline/rerankers/",
    "pipeline/graph/",
    "pipeline/store/",
    "pipeline/settings.py",
    "pipeline/text.py",
    "pipeline/utc.py",
    "pipeline/numbers.py",
    "pipeline/timing.py",
    "pipeline/figures.py",
    "pipeline/csv_cells.py",
)


@pytest.mark.parametrize("engine", THROUGH_THE_API)
def test_the_front_ends_reach_these_through_the_api_only(repo: ImportGraph, engine: str) -> None:
    modules, _ = repo.front_end_imports()
    assert not [m for m in modules if m.startswith(engine)]


def test_the_layer_table_names_each_entry_once() -> None:
    entries = [entry for _, layer in LAYERS for entry in layer]
    assert len(entries) == len(set(entries))
