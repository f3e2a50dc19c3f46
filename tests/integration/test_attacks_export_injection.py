"""The exported setting ("Setting as code", `eval --export-config`) is a module that runs on its own and holds
text from users only as data.

- Every reranker kind's module imports in a fresh interpreter (`python -I`, another working directory) where
  this package cannot be imported at all; the local re-scorer's module ranks as the tool's re-scorer does.
- Hostile experiment names and deal ids (closing quotes, line breaks of every kind, backslash escapes, a
  comment sign) stay inside the docstring: importing the module runs nothing of them and reads them back.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pipeline.evaluation.ship import setting_module
from pipeline.rerankers.local import bm25_scores, fuse
from pipeline.retrieval.rerank import rank_order
from pipeline.settings import Settings
from tests.support.sweeps import hybrid_walk_sweep

KINDS = ("none", "local", "voyage", "cohere")
PWN = 'import os;os.system("touch pwned");open("pwned","w")'
HOSTILE = (
    f'x""";{PWN};"""',
    f"x''';{PWN};'''",
    f'x"\n{PWN}\n#',
    f"x\r{PWN}\r#",
    f"x\u2028{PWN}\u2029#",
    f'x\\\n"""\n{PWN}\n"""',
    'x\\"""',
    "tail backslash\\",
    "\\N{LATIN SMALL LETTER A} \\N{bogus} \\x41 \\u0041 \\0",
    f"#{PWN}",
    f"x\x0c\x0b\x00\x1b[31m\x85{PWN}",
    "lone surrogate \ud800",
)

# run in a fresh interpreter: `pipeline` cannot be imported (the editable install would find it otherwise)
RUNNER = textwrap.dedent(
    """
    import importlib.abc, importlib.util, json, sys

    class NoPipeline(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "pipeline" or name.startswith("pipeline."):
                raise ImportError("the exported module imported " + name)
            return None

    sys.meta_path.insert(0, NoPipeline())
    out = {}
    for path in sys.argv[1:]:
        spec = importlib.util.spec_from_file_location("exported_setting", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out[path] = {"doc": module.__doc__, "n": module.CANDIDATES, "k": module.TOP_K}
    assert not [m for m in sys.modules if m == "pipeline" or m.startswith("pipeline.")]
    print(json.dumps(out))
    """
)


def _run(cwd: Path, script: str, *args: str) -> str:
    # -I: no PYTHON* variables, no user site, neither the script's folder nor the working directory on sys.path
    done = subprocess.run(
        [sys.executable, "-I", "-c", script, *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _imports(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_kind_imports_without_this_package(tmp_path: Path) -> None:
    result, settings = hybrid_walk_sweep(KINDS), Settings()
    paths = []
    for kind in KINDS:
        path = tmp_path / "out" / f"setting_{kind}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(setting_module(result, f"hybrid-walk {kind} N=50 k=10", settings), encoding="utf-8")
        paths.append(path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    loaded = json.loads(_run(elsewhere, RUNNER, *map(str, paths)))
    assert {(v["n"], v["k"]) for v in loaded.values()} == {(50, 10)}
    allowed = {"__future__", "graphiti_core", "math", "re", "collections", "numpy", "voyageai", "cohere"}
    for path in paths:
        assert _imports(path.read_text(encoding="utf-8")) <= allowed, path.name
    assert {"numpy", "graphiti_core"} <= _imports(paths[1].read_text(encoding="utf-8"))  # the local one


# the local module's rerank() with a stand-in graphiti: its stored vectors and its embedder
RERANK_RUNNER = textwrap.dedent(
    """
    import asyncio, importlib.util, json, sys
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("exported_setting", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    case = json.loads(open(sys.argv[2]).read())

    class Driver:
        async def execute_query(self, statement, uuids, routing_):
            assert "RELATES_TO" in statement and routing_ == "r"
            stored = case["stored"]
            return [{"uuid": u, "vector": stored.get(u)} for u in uuids if u in stored], None, None

    class Embedder:
        async def create(self, input_data):
            assert input_data == [case["query"]]
            return case["query_vector"]

        async def create_batch(self, texts):
            return [case["embedded"][t] for t in texts]

    graphiti = SimpleNamespace(driver=Driver(), embedder=Embedder())
    edges = [SimpleNamespace(uuid=u, fact=f) for u, f in zip(case["uuids"], case["facts"])]
    ranked = asyncio.run(module.rerank(graphiti, case["query"], edges))
    print(json.dumps([e.uuid for e in ranked]))
    """
)


@pytest.mark.parametrize("stored", [True, False], ids=["stored vectors", "embedded by graphiti"])
def test_the_local_module_ranks_as_the_tools_re_scorer(tmp_path: Path, stored: bool) -> None:
    rng = np.random.default_rng(7)
    facts = [
        "Revenue grew to $1,496.5 million in 2019",
        "Operating expenses fell in 2019",
        "The companies' revenues were stable",
        "Net income per share rose",
        "Revenue growth slowed in 2020",
        "The board approved a dividend",
        "Revenue grew to $1,496.5 million in 2019",  # a tie: first-stage order is kept
    ]
    uuids = [f"u{i}" for i in range(len(facts))]
    vectors = rng.normal(size=(len(facts), 8)).astype(np.float32)
    vectors[6] = vectors[0]  # the same fact, the same vector
    query_vector = rng.normal(size=8).astype(np.float32)
    query = "How much did revenue grow in 2019?"
    cosine = (vectors @ query_vector) / np.clip(np.linalg.norm(vectors, axis=1), 1e-12, None)
    expected = [uuids[i] for i in rank_order(fuse(cosine.astype(np.float64), bm25_scores(query, facts)).tolist())]
    case = {
        "query": query,
        "query_vector": query_vector.tolist(),
        "uuids": uuids,
        "facts": facts,
        # one vector missing: the module embeds every fact with the graph's embedder, as the tool does
        "stored": {u: v.tolist() for u, v in zip(uuids, vectors, strict=True) if stored or u != "u3"},
        "embedded": {f: v.tolist() for f, v in zip(facts, vectors, strict=True)},
    }
    (tmp_path / "case.json").write_text(json.dumps(case))
    path = tmp_path / "setting_local.py"
    path.write_text(setting_module(hybrid_walk_sweep(("none", "local")), "hybrid-walk local N=50 k=10", Settings()))
    blocked = RUNNER.split("out = {}")[0] + RERANK_RUNNER  # `pipeline` cannot be imported here either
    ranked = json.loads(_run(tmp_path, blocked, str(path), str(tmp_path / "case.json")))
    assert ranked == expected and ranked.index("u0") < ranked.index("u6")


@pytest.mark.parametrize("kind", ["none", "local"])
def test_hostile_names_stay_data(tmp_path: Path, kind: str) -> None:
    settings = Settings()
    paths, said = [], {}
    for i, name in enumerate(HOSTILE):
        for j, (group, experiment) in enumerate(
            ((f"deal {name}", f"#1 {name!r}"), ("demo", name))  # as eval / the page pass it, and raw
        ):
            text = setting_module(
                hybrid_walk_sweep(("none", kind), group), f"hybrid-walk {kind} N=50 k=10", settings, experiment
            )
            compile(text, "setting.py", "exec")
            path = tmp_path / "modules" / f"m{i}_{j}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")  # strict: no raw surrogate gets in
            paths.append(path)
            said[str(path)] = (group, experiment)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    loaded = json.loads(_run(cwd, RUNNER, *map(str, paths)))
    assert not list(tmp_path.rglob("pwned")), "a name ran as code"
    for path, (group, experiment) in said.items():
        doc = loaded[path]["doc"]
        assert experiment in doc and repr(group) in doc, (path, doc)  # read back as it was written
