"""The exported setting is code that runs: imported as a module, run through graphiti against the demo deal, it
returns exactly the tool's top k for every setting of a sweep (recipes, N, k, no reranker and the local one)."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path
from types import ModuleType

import pytest
from graphiti_core.search.search_config import EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, SearchConfig

from pipeline.errors import InvalidInput
from pipeline.evaluation import judgments
from pipeline.evaluation.experiments import spec_from_json
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.ship import setting_module
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.retrieval.recipes import CUSTOM, Recipe, custom
from pipeline.retrieval.retrieve import rank
from pipeline.retrieval.setting import Setting
from pipeline.retrieval.stock import graphiti_for
from tests.integration.test_retrieve import Failing


def load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


async def test_every_exported_setting_returns_the_tools_top_k(lab: Lab, demo: str, tmp_path: Path) -> None:
    spec = SweepSpec(
        demo, (25,), (5, 10), ("none", "local"), limit_queries=4, recipes=("graphiti-default", "node-distance")
    )
    result = await run_sweep(lab, spec)
    queries = [q.text for q in (await judgments.load_eval_set(lab, demo)).select(None, 4).queries]
    graphiti = graphiti_for(lab, demo, Failing())
    compared = 0
    for s in result.grid:
        path = tmp_path / f"setting_{compared}.py"
        path.write_text(setting_module(result, s.key, lab.settings, "#1 'test'"))
        module = load_module(path)
        assert (s.setting.candidates, s.setting.top_k) == (module.CANDIDATES, module.TOP_K)
        for query in queries:
            exported = await module.retrieve(graphiti, query, [demo])
            (tool,) = await rank(lab, query, demo, [s.setting])
            assert [e.uuid for e in exported] == [r.uuid for r in tool.results], (s.key, query)
            assert exported, (s.key, query)
        compared += 1
    assert compared == len(spec.grid()) == 8
    # graphiti's own full-text filter finds nothing in a FalkorDB group whose id holds a hyphen (a UUID): the module
    # says its search_() then runs without BM25; a plain id gets no such line
    assert "WARNING" not in setting_module(result, s.key, lab.settings)
    hyphenated = replace(result, spec=replace(result.spec, group_id="3f1c9a52-acme"))
    said = setting_module(hyphenated, s.key, lab.settings)
    assert "WARNING: on FalkorDB, graphiti's full-text search finds nothing in group '3f1c9a52-acme'" in said
    compile(said, "hyphenated.py", "exec")  # still a module


def test_the_cli_writes_the_recommended_setting(demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli import main

    path = tmp_path / "retrieval_setting.py"
    args = ["eval", "--group", demo, "--recipes", "vector,graphiti-default", "--candidates", "25", "--top-k", "10"]
    assert main([*args, "--limit-queries", "6", "--no-save", "--export-config", str(path)]) == 0
    out = capsys.readouterr().out
    recommendation = out.strip().splitlines()[-1]
    # the recipes include pure vector search: each reranked setting is set against it, in percent with p
    assert (
        "Against pure vector search" in out
        and "local N=25 k=10: " in out
        and "% ndcg@k over vector none N=25 k=10" in out
    )
    text = path.read_text()
    module = load_module(path)
    assert module.CANDIDATES in (25, 50) and module.TOP_K == 10  # a winner at N=25, or the baseline kept
    assert "graphiti's search recipe" in text and "def rerank(" in text
    # the module names the setting the recommendation names
    head = text.splitlines()[0]
    assert (
        head.startswith('"""Retrieval setting chosen with Retrieval Lab: ')
        and head.split(": ", 1)[1].rstrip(".") in recommendation
    )
    assert main([*args, "--export-config", str(tmp_path / "missing" / "x.py")]) == 2


# a team's production config: no preset runs BM25 and a two-hop walk without cosine
PRODUCTION = SearchConfig(
    edge_config=EdgeSearchConfig(
        search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.bfs], reranker=EdgeReranker.rrf, bfs_max_depth=2
    )
)


async def test_a_pasted_search_config_is_swept_kept_with_its_experiment_and_shipped(
    lab: Lab, demo: str, tmp_path: Path
) -> None:
    path = tmp_path / "production.json"
    path.write_text(PRODUCTION.model_dump_json())
    mine = Recipe.parse(str(path))
    assert mine.name == CUSTOM
    spec = SweepSpec.with_recipes(
        demo, (mine, Recipe.preset("graphiti-default")), candidates=(25,), top_ks=(10,), limit_queries=4
    ).validate()
    assert spec.custom_recipes == ((mine.key, mine.config_json),)
    # as a job stores it and reads it back: the config travels with the spec
    assert spec_from_json(json.dumps(asdict(spec))) == spec
    result = await run_sweep(lab, spec_from_json(json.dumps(asdict(spec))))
    queries = [q.text for q in (await judgments.load_eval_set(lab, demo)).select(None, 4).queries]
    graphiti = graphiti_for(lab, demo, Failing())
    for reranker in ("none", "local"):
        key = f"{mine.key} {reranker} N=25 k=10"
        module_path = tmp_path / f"production_{reranker}.py"
        module_path.write_text(setting_module(result, key, lab.settings))
        module = load_module(module_path)
        for query in queries:
            exported = await module.retrieve(graphiti, query, [demo])
            (tool,) = await rank(lab, query, demo, [Setting(mine, 25, reranker, 10)])
            assert [e.uuid for e in exported] == [r.uuid for r in tool.results] and exported, (key, query)


def test_the_cli_sweeps_a_search_config_file(demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It takes the file among the recipes, and refuses a file that is no SearchConfig in one line."""
    from pipeline.cli import main

    path = tmp_path / "production.json"
    path.write_text(PRODUCTION.model_dump_json())
    mine = custom(PRODUCTION)
    args = ["eval", "--group", demo, "--candidates", "25", "--top-k", "10", "--reranker", "none", "--no-save"]
    assert main([*args, "--limit-queries", "3", "--recipes", f"graphiti-default,{path}"]) == 0
    assert f"{mine.key} none N=25 k=10" in capsys.readouterr().out
    broken = tmp_path / "broken.json"
    broken.write_text('{"edge_config": {"search_methods": ["nope"]}}')
    assert main([*args, "--recipes", f"graphiti-default,{broken}"]) == 2
    assert "not a graphiti SearchConfig" in capsys.readouterr().err


def test_a_custom_recipe_key_without_its_config_or_with_another_is_refused(demo: str, tmp_path: Path) -> None:
    mine = custom(PRODUCTION)
    with pytest.raises(InvalidInput, match="comes without its SearchConfig"):
        SweepSpec(demo, recipes=(mine.key,)).validate()
    other = Recipe.preset("vector").config_json
    with pytest.raises(InvalidInput, match="does not match its SearchConfig"):
        SweepSpec(demo, recipes=(mine.key,), custom_recipes=((mine.key, other),)).validate()
