"""The repo's own import graph, read from the code (stdlib `ast`, nothing is imported or run), and what issue 39
measures on it: import circles, imports that run back up the layers, and the figures of its table.

What counts as an import: every `import` / `from ... import` that runs, at module level or inside a function
(an import inside a function still ties the two modules; the issue forbids the ones that dodge a cycle), but not
one under `if TYPE_CHECKING:` (annotations only; it never runs). `from pkg import name` is an arrow to the
submodule `pkg/name.py` when there is one, else to `pkg/__init__.py`; relative imports are resolved. A module's
parent packages run first, but that is Python's order, not an arrow: only an import that names the package is
one (so `pipeline/rerankers/local.py` taking a name from `pipeline.rerankers` is an arrow to its `__init__.py`,
and an `__init__` importing that module back closes a circle). Imports by `importlib` are strings: not read.

    .venv/bin/python -m tests.support.import_graph [--root DIR] [--upward] [--local]

prints the figures (run from the repository, or name it with --root); tests/unit/test_architecture.py holds them.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

SOURCES = ("pipeline", "dashboard", "app_pages", "benchmarks", "streamlit_app.py")  # tests/ are no part of it

# The layers, from the ground up: a module may import its own layer and those below it. An entry is a file or a
# folder (ending in "/"); the longest entry that holds a file places it. Every room (a module or package directly
# under pipeline/, and each of the other SOURCES) must be placed: a new package fails the architecture test until
# it is added here. This is the architecture issue 39 asks for (Lab and an application layer, `pipeline/api/`,
# above the features; the pages, the CLI and the benchmarks on top, talking to that layer), not a picture of
# today's code: where the code differs, it shows up as upward imports.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base",  # no import of the repo's own but each other: words, numbers, times, errors, the embedder's name
        (
            "pipeline/__init__.py",
            "pipeline/errors.py",
            "pipeline/text.py",
            "pipeline/utc.py",
            "pipeline/numbers.py",
            "pipeline/timing.py",
            "pipeline/figures.py",
            "pipeline/sentences.py",
            "pipeline/csv_cells.py",
            "pipeline/json_input.py",
            "pipeline/processes.py",
            "pipeline/openai_errors.py",
            "pipeline/embedder_spec.py",
        ),
    ),
    ("settings", ("pipeline/settings.py",)),
    ("store", ("pipeline/store/",)),
    ("graph", ("pipeline/graph/",)),  # backends, dialects (every Cypher statement), the embedded server
    ("models", ("pipeline/embedders/", "pipeline/rerankers/")),
    ("records", ("pipeline/audit/", "pipeline/admin/", "pipeline/journal/", "pipeline/deals/")),
    # the loaders' building blocks (graph writes, file readers, the demo's bundled files), which query sets use
    ("loading", ("pipeline/ingest/", "pipeline/ingest/demo/__init__.py")),
    ("retrieval", ("pipeline/retrieval/",)),
    (
        "features",
        (
            "pipeline/query_sets/",
            "pipeline/temporal/",
            "pipeline/corrections/",
            "pipeline/merges/",
            "pipeline/history/",
            "pipeline/spotcheck/",
            "pipeline/judge/",
            "pipeline/backup/",
        ),
    ),
    ("evaluation", ("pipeline/evaluation/", "pipeline/pools/")),
    ("decisions", ("pipeline/gate/", "pipeline/comparison/", "pipeline/why/")),
    # what loads whole deals with their labels through the features (the demo deal, a BEIR import), warming one up;
    # the loaders' handle on Lab (`lab.ingest`) with them
    ("loaders", ("pipeline/ingest/demo/", "pipeline/ingest/beir.py", "pipeline/ingest/api.py", "pipeline/warm_up.py")),
    ("lab", ("pipeline/lab.py",)),  # Lab opens the graph and the store: above every feature (issue 39)
    ("api", ("pipeline/api/",)),  # the application layer: all that the pages, the CLI and benchmarks import
    ("cli", ("pipeline/cli/", "pipeline/__main__.py")),
    ("dashboard", ("dashboard/",)),
    ("entry", ("app_pages/", "streamlit_app.py", "benchmarks/")),
)

# where the table counts what the front ends import from the engine
FRONT_ENDS = ("dashboard/", "app_pages/", "pipeline/cli/", "benchmarks/", "streamlit_app.py")
SEARCH_HOMES = ("pipeline/retrieval/", "pipeline/graph/")  # the only places that may build a first-stage search
SEARCH_NAMES = frozenset(
    {"MethodLists", "search_recipe", "edge_similarity_search", "edge_fulltext_search", "edge_bfs_search", "search_"}
)
PAGE_STATE_HOME = "dashboard/common/page_state/"
SMALL, LARGE = 40, 400  # lines: a stub module, a module too long to read


@dataclass(frozen=True)
class Import:
    source: str  # the importing file, relative to the root ("pipeline/lab.py")
    target: str  # the imported file ("pipeline/journal/recovery.py")
    names: tuple[str, ...]  # what it takes ("recover",); the module itself for `import a.b`
    line: int
    local: bool  # inside a function (it runs when the function does)
    type_only: bool  # under `if TYPE_CHECKING:`: never runs, no arrow


@dataclass(frozen=True)
class Statement:
    """One import statement of a source file that names a module of the repo."""

    source: str
    line: int
    targets: tuple[str, ...]
    local: bool
    type_only: bool


@dataclass
class Circle:
    files: tuple[str, ...]
    edges: list[tuple[str, str, tuple[str, ...]]]  # (from, to, names), each arrow inside the circle

    def describe(self) -> list[str]:
        lines = [f"circle of {len(self.files)} files: {', '.join(self.files)}"]
        lines += [f"  {a} -> {b}: {', '.join(names)}" for a, b, names in self.edges]
        return lines


@dataclass
class Upward:
    source_room: str  # the LAYERS entries that place the two ends
    target_room: str
    source_layer: str
    target_layer: str
    imports: list[Import] = field(default_factory=list)

    def describe(self) -> str:
        files = sorted({f"{i.source} -> {i.target}" for i in self.imports})
        more = f" (+{len(files) - 2} more)" if len(files) > 2 else ""
        return (
            f"{self.source_room} ({self.source_layer}) -> {self.target_room} ({self.target_layer}): "
            f"{'; '.join(files[:2])}{more}"
        )


def python_files(root: Path) -> list[str]:
    found: list[str] = []
    for source in SOURCES:
        path = root / source
        if path.is_file():
            found.append(source)
        elif path.is_dir():
            found += sorted(p.relative_to(root).as_posix() for p in path.rglob("*.py") if "__pycache__" not in p.parts)
    return found


def module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(body: list[ast.stmt], local: bool = False, type_only: bool = False) -> Iterator[tuple[ast.stmt, bool, bool]]:
    """Every import statement in `body`, with whether it is inside a function and under TYPE_CHECKING. Only
    statements are visited (an import is one), which keeps reading the whole repo well under a second."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, local, type_only
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _walk(node.body, local, True)
            yield from _walk(node.orelse, local, type_only)
        else:
            inner = local or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, name, ()):
                    yield from _walk(
                        child.body if isinstance(child, ast.excepthandler | ast.match_case) else [child],
                        inner,
                        type_only,
                    )


class ImportGraph:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = python_files(root)
        self.modules = {module_name(path): path for path in self.files}
        self.trees = {path: ast.parse((root / path).read_text(encoding="utf-8"), path) for path in self.files}
        self.imports: list[Import] = []
        self.statements: list[Statement] = []
        for path in self.files:
            self._read(path)

    # --- reading -------------------------------------------------------------------------------------------

    def _resolve(self, name: str) -> str | None:
        """The repo file of a dotted module name (the longest prefix that is one), None for another package's."""
        parts = name.split(".")
        while parts:
            found = self.modules.get(".".join(parts))
            if found:
                return found
            parts.pop()
        return None

    def _base(self, path: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = module_name(path).split(".")
        if not path.endswith("__init__.py"):
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        return ".".join([*package, node.module] if node.module else package)

    def _read(self, path: str) -> None:
        for node, local, type_only in _walk(self.trees[path].body):
            found: dict[str, list[str]] = defaultdict(list)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = self._resolve(alias.name)
                    if target:
                        found[target].append(alias.name)
            else:
                assert isinstance(node, ast.ImportFrom)
                base = self._base(path, node)
                for alias in node.names:
                    target = self.modules.get(f"{base}.{alias.name}") or self._resolve(base)
                    if target:
                        found[target].append(alias.name)
            for target, names in found.items():
                self.imports.append(Import(path, target, tuple(names), node.lineno, local, type_only))
            if found:
                self.statements.append(Statement(path, node.lineno, tuple(found), local, type_only))

    # --- the graph ---------------------------------------------------------------------------------------

    @cached_property
    def arrows(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """source -> target -> names taken, for every import that runs."""
        graph: dict[str, dict[str, tuple[str, ...]]] = {path: {} for path in self.files}
        for imp in self.imports:
            if not imp.type_only:
                names = graph[imp.source].get(imp.target, ())
                graph[imp.source][imp.target] = tuple(dict.fromkeys((*names, *imp.names)))
        return graph

    def circles(self) -> list[Circle]:
        """Strongly connected components of more than one file, and files that import themselves."""
        found: list[Circle] = []
        for component in _components(self.arrows):
            members = set(component)
            if len(members) > 1 or component[0] in self.arrows[component[0]]:
                edges = [
                    (a, b, names)
                    for a in sorted(members)
                    for b, names in sorted(self.arrows[a].items())
                    if b in members
                ]
                found.append(Circle(tuple(sorted(members)), edges))
        return sorted(found, key=lambda c: c.files)

    # --- the layers --------------------------------------------------------------------------------------

    @staticmethod
    def room_of(path: str) -> str:
        """The room a file belongs to: a module or package directly under pipeline/, else its top folder."""
        parts = path.split("/")
        if parts[0] == "pipeline" and len(parts) > 2:
            return f"pipeline/{parts[1]}/"
        if parts[0] == "pipeline" or len(parts) == 1:
            return path
        return f"{parts[0]}/"

    @staticmethod
    def place(path: str) -> tuple[int, str] | None:
        """(layer index, the LAYERS entry) that places `path`, the longest entry holding it; None if none."""
        best: tuple[int, str] | None = None
        for index, (_, entries) in enumerate(LAYERS):
            for entry in entries:
                holds = path.startswith(entry) if entry.endswith("/") else path == entry
                if holds and (best is None or len(entry) > len(best[1])):
                    best = (index, entry)
        return best

    def unplaced_rooms(self) -> list[str]:
        return sorted({self.room_of(path) for path in self.files if self.place(path) is None})

    def upward(self) -> list[Upward]:
        """Arrows from a lower layer to a higher one, grouped by the pair of LAYERS entries they join."""
        found: dict[tuple[str, str], Upward] = {}
        for imp in self.imports:
            if imp.type_only:
                continue
            low, high = self.place(imp.source), self.place(imp.target)
            if low is None or high is None or low[0] >= high[0]:
                continue
            key = (low[1], high[1])
            if key not in found:
                found[key] = Upward(low[1], high[1], LAYERS[low[0]][0], LAYERS[high[0]][0])
            found[key].imports.append(imp)
        return [found[key] for key in sorted(found)]

    # --- the figures of the table ----------------------------------------------------------------

    def front_end_imports(self) -> tuple[set[str], list[Statement]]:
        """The `pipeline` modules the front ends import (every import statement: in functions and for types too),
        and those statements."""
        modules: set[str] = set()
        statements: list[Statement] = []
        for statement in self.statements:
            if not statement.source.startswith(FRONT_ENDS):
                continue
            engine = [t for t in statement.targets if t.startswith("pipeline/") and not t.startswith(FRONT_ENDS)]
            if engine:
                modules.update(engine)
                statements.append(statement)
        return modules, statements

    def files_naming(self, names: frozenset[str], module_prefix: str = "") -> dict[str, list[str]]:
        """file -> the `names` its code uses (names, attributes, imported names; not text in strings), and the
        modules it imports from under `module_prefix`."""
        found: dict[str, list[str]] = {}
        for path, tree in self.trees.items():
            used: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and node.id in names:
                    used.add(node.id)
                elif isinstance(node, ast.Attribute) and node.attr in names:
                    used.add(node.attr)
                elif isinstance(node, ast.alias) and node.name.rpartition(".")[2] in names:
                    used.add(node.name.rpartition(".")[2])
                elif isinstance(node, ast.Import | ast.ImportFrom) and module_prefix:
                    modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                    used.update(m for m in modules if m == module_prefix or m.startswith(module_prefix + "."))
            if used:
                found[path] = sorted(used)
        return found

    def search_outside_retrieval(self) -> dict[str, list[str]]:
        found = self.files_naming(SEARCH_NAMES, "graphiti_core.search")
        return {path: names for path, names in found.items() if not path.startswith(SEARCH_HOMES)}

    def query_params_outside_page_state(self) -> list[str]:
        found = self.files_naming(frozenset({"query_params"}))
        return sorted(path for path in found if not path.startswith(PAGE_STATE_HOME))

    def lines(self, path: str) -> int:
        return len((self.root / path).read_text(encoding="utf-8").splitlines())

    def is_face(self, path: str) -> bool:
        """A package's `__init__` that only hands names on (docstring, imports, `__all__`): no module of its own."""
        return path.endswith("__init__.py") and all(
            isinstance(node, ast.Import | ast.ImportFrom | ast.Expr)
            or (isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["__all__"])
            for node in self.trees[path].body
        )

    def sizes(self) -> tuple[list[str], list[str]]:
        """Modules under SMALL lines (a package's face aside) and over LARGE."""
        counted = {path: self.lines(path) for path in self.files}
        return (
            sorted(p for p, n in counted.items() if n < SMALL and not self.is_face(p)),
            sorted(p for p, n in counted.items() if n > LARGE),
        )

    def local_imports(self) -> list[Import]:
        """Imports of the repo's own modules inside a function."""
        return [imp for imp in self.imports if imp.local and not imp.type_only]

    def figures(self) -> dict[str, int]:
        modules, statements = self.front_end_imports()
        small, large = self.sizes()
        local = self.local_imports()
        return {
            "front-end imported pipeline modules": len(modules),
            "front-end import statements": len(statements),
            "front-end imported repo modules": sum(m.endswith("/repo.py") for m in modules),
            "files naming first-stage search outside retrieval/graph": len(self.search_outside_retrieval()),
            "files naming st.query_params outside page_state": len(self.query_params_outside_page_state()),
            "modules under 40 lines": len(small),
            "modules over 400 lines": len(large),
            "function-local imports of repo modules": len({(i.source, i.line) for i in local}),
            "import circles": len(self.circles()),
            "upward imports (pairs of layer entries)": len(self.upward()),
            "upward imports (file -> file)": len({(i.source, i.target) for u in self.upward() for i in u.imports}),
        }


def _components(graph: dict[str, dict[str, tuple[str, ...]]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iterative (no recursion limit on long chains)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _table(rows: Iterable[tuple[str, object]]) -> str:
    rows = list(rows)
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name.ljust(width)}  {value}" for name, value in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.import_graph", description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    parser.add_argument("--upward", action="store_true", help="list every upward import")
    parser.add_argument("--local", action="store_true", help="list every function-local import of a repo module")
    args = parser.parse_args(argv)
    graph = ImportGraph(args.root.resolve())
    print(_table(graph.figures().items()))
    for path, names in graph.search_outside_retrieval().items():
        print(f"first-stage search outside retrieval/graph: {path}: {', '.join(names)}")
    for path in graph.query_params_outside_page_state():
        print(f"st.query_params outside page_state: {path}")
    for circle in graph.circles():
        print("\n".join(circle.describe()))
    for room in graph.unplaced_rooms():
        print(f"not placed in LAYERS: {room}")
    if args.upward:
        print("\n".join(u.describe() for u in graph.upward()))
    if args.local:
        print("\n".join(f"{i.source}:{i.line} -> {i.target}: {', '.join(i.names)}" for i in graph.local_imports()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
