"""Every Cypher statement of ours that the Neo4j path can send, checked by Neo4j's own parser.

No Neo4j server can run here. The statements are collected from the Neo4j dialect
(`pipeline/graph/dialects`: `Neo4jQueries` and the openCypher it inherits) and linted with Neo4j's Cypher
language service (npm `@neo4j-cypher/language-support`, Neo4j 5's functions and procedures): no syntax
error, no unknown function or procedure, no deprecation. Labels, properties and parameters are unknown
to its mock schema and are not judged (see tests/support/cypher_lint.py).
"""

from __future__ import annotations

import pytest

from pipeline.graph.dialects.falkordb import FalkorQueries
from pipeline.graph.dialects.neo4j import Neo4jQueries
from pipeline.graph.dialects.registry import statements
from tests.support import cypher_lint

FALKORDB_ONLY = ("vecf32", "vec.cosineDistance", "GRAPH.", "db.idx.")


@pytest.fixture(scope="module")
def neo4j_statements() -> dict[str, str]:
    found = statements(Neo4jQueries)
    assert len(found) >= 20, sorted(found)  # the dialect really was collected
    return found


def test_neo4j_statements_lint_clean_with_neo4js_own_parser(neo4j_statements: dict[str, str]) -> None:
    if reason := cypher_lint.unavailable():  # scripts/setup.sh --test installs it: missing is a failure
        pytest.fail(reason)
    findings = {name: found for name, found in cypher_lint.lint(neo4j_statements).items() if found}
    assert findings == {}


def test_no_falkordb_construct_on_the_neo4j_path(neo4j_statements: dict[str, str]) -> None:
    leaks = {name: text for name, text in neo4j_statements.items() if any(c in text for c in FALKORDB_ONLY)}
    assert leaks == {}


def test_the_linter_would_catch_a_falkordb_construct() -> None:
    if reason := cypher_lint.unavailable():
        pytest.fail(reason)
    bad = {"vector": "MATCH (e:Entity) SET e.v = vecf32($v) RETURN e.uuid", "syntax": "MATCH (n RETURN n"}
    findings = cypher_lint.lint(bad)
    assert findings["vector"] and findings["syntax"]


def test_both_dialects_send_the_same_operations() -> None:
    assert set(statements(FalkorQueries)) == set(statements(Neo4jQueries))


def test_every_statement_class_in_the_dialects_is_linted_or_falkordb_only() -> None:
    """A new class of statements in pipeline/graph/dialects/ must be reachable from the Neo4j dialect (so the
    linter reads it) or be one that only FalkorDB's dialect uses."""
    import importlib
    import inspect
    import pkgutil

    import pipeline.graph.dialects as package
    from pipeline.graph.dialects.falkordb import FalkorGraphs
    from pipeline.graph.dialects.falkordb_counts import FalkorCounts
    from pipeline.graph.dialects.falkordb_walk import FalkorWalk

    falkordb_only = {FalkorQueries, FalkorWalk, FalkorCounts, FalkorGraphs}
    found = set()
    for module in pkgutil.iter_modules(package.__path__):
        for _name, cls in inspect.getmembers(
            importlib.import_module(f"{package.__name__}.{module.name}"), inspect.isclass
        ):
            if cls.__module__.startswith(package.__name__) and statements(cls):
                found.add(cls)
    linted = set(Neo4jQueries.__mro__)
    assert found - falkordb_only <= linted, sorted(c.__name__ for c in found - falkordb_only - linted)
    assert falkordb_only <= found  # the FalkorDB-only classes were found, so the walk looked in the right place
