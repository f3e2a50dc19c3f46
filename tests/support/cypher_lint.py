"""Neo4j's own Cypher linter, run offline: checks the Cypher we send to Neo4j without a Neo4j server.

No Neo4j server can run here, but Neo4j publishes the linter behind its query editors as an npm package,
`@neo4j-cypher/language-support` (pinned in `neo4j_lint/package.json`, installed by
`scripts/setup.sh --test` into `neo4j_lint/node_modules`). `neo4j_lint/lint.mjs` runs its
`lintCypherQuery` against the package's mock schema, which lists Neo4j 5's (and 25's) built-in functions
and procedures (APOC and GDS only with `plugins=True`). So it catches syntax errors, Neo4j's semantic errors
and deprecations, and functions or procedures Neo4j does not have (FalkorDB's `vecf32`,
`db.idx.fulltext.queryRelationships`, ...), but knows nothing of our labels, relationship types,
properties or parameters: findings about those are dropped here (see `IGNORED`).

    from tests.support import cypher_lint

    if reason := cypher_lint.unavailable():
        pytest.skip(reason)
    findings = cypher_lint.lint({"search": "MATCH (n:Entity) WHERE n.uuid = $uuid RETURN n"})
    assert findings == {"search": []}

Each finding reads `"error 1:8: Function vecf32 is not present in the database. ..."` (severity,
line:column, Neo4j's message). Deprecations come back as warnings (e.g. `id()` in Neo4j 5); pass
`errors_only=True` to drop everything but errors.

Cost: node and the package load in ~0.7 s of CPU, then Neo4j's semantic analysis takes ~100-150 ms of CPU
per distinct statement (identical texts are linted once). Lint many statements in one call.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LINT_DIR = Path(__file__).parent / "neo4j_lint"
LINT_SCRIPT = LINT_DIR / "lint.mjs"
PACKAGE_DIR = LINT_DIR / "node_modules" / "@neo4j-cypher" / "language-support"
TIMEOUT_S = 120.0

# What the mock schema cannot know: our labels, relationship types, property keys and query parameters.
IGNORED = (
    re.compile(r"^(Label|Relationship type) .+ is not present in the database\b"),
    re.compile(r"^\S+ is not present in the database\b"),  # a property key (functions read "Function f is ...")
    re.compile(r"^Parameter \$\S+ is not defined\.$"),
)


class CypherLintUnavailable(RuntimeError):
    """node, or the npm package, is missing."""


def unavailable() -> str | None:
    """Why the linter cannot run here (the tests fail with it), or None when it can."""
    if shutil.which("node") is None:
        return "node is not installed (the Neo4j Cypher linter is an npm package)"
    if not PACKAGE_DIR.is_dir():
        return f"@neo4j-cypher/language-support is not installed: run scripts/setup.sh --test (npm ci in {LINT_DIR})"
    return None


def is_ignored(message: str) -> bool:
    return any(pattern.search(message) for pattern in IGNORED)


@dataclass(frozen=True)
class Finding:
    severity: str  # "error", "warning", "info" or "hint"
    message: str
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.severity} {self.line}:{self.column}: {self.message}"


def lint(
    statements: dict[str, str], *, cypher_version: str = "5", plugins: bool = False, errors_only: bool = False
) -> dict[str, list[str]]:
    """Lint each named statement; return its findings (empty list: clean), in the order given.

    One node process lints them all. `cypher_version` is "5" (Neo4j 5, the default) or "25"; a statement
    may also choose its own with a leading `CYPHER 25`. A stock Neo4j server has no APOC or GDS: their
    functions and procedures are reported as missing unless `plugins=True`.
    """
    return keep(run(statements, cypher_version=cypher_version, plugins=plugins), errors_only=errors_only)


def keep(findings: dict[str, list[Finding]], *, errors_only: bool = False) -> dict[str, list[str]]:
    """Drop what the mock schema cannot judge (and, with `errors_only`, all but errors); as strings."""
    return {
        name: [str(f) for f in found if not is_ignored(f.message) and (f.severity == "error" or not errors_only)]
        for name, found in findings.items()
    }


def run(statements: dict[str, str], *, cypher_version: str = "5", plugins: bool = False) -> dict[str, list[Finding]]:
    """Everything the linter says about each statement, nothing dropped."""
    if reason := unavailable():
        raise CypherLintUnavailable(reason)
    node = shutil.which("node")
    assert node is not None
    proc = subprocess.run(
        [node, str(LINT_SCRIPT), cypher_version, *(["plugins"] if plugins else [])],
        input=json.dumps(statements),
        capture_output=True,
        text=True,
        cwd=LINT_DIR,
        timeout=TIMEOUT_S,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"lint.mjs failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    raw: dict[str, list[dict[str, Any]]] = json.loads(proc.stdout)
    return {
        name: [Finding(str(f["severity"]), str(f["message"]), int(f["line"]), int(f["column"])) for f in raw[name]]
        for name in statements
    }
