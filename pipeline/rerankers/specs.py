"""The reranker table: one frozen row per reranker holding every fact about it, and the one place a reranker is added.

A new reranker is one module (its `LabReranker` subclass, and the code the exported module runs for it) plus one row
in `SPECS` below (a plug-in or a test calls `register(row)` instead). Everything that lists or builds rerankers reads
this table when it runs, never a copy taken at import: the CLI's help and `Setting`'s checks (`RERANKERS`, a live
view of the names), the pages' pickers (`reranker_choices`), `retrieve()` and the sweep (`make_reranker`, `traits`),
the exported module (`export_code`), chart colours, costs and `status`. A page, a CLI line or a chart that needs to
know something about a reranker asks `spec(name)` (or `traits(name)`) instead of comparing names.

The CLI's argument parsing imports this table, so importing it stays cheap: a row names its factory and its exported
code as "module:attr" strings, and `load()` imports them with importlib when a reranker is built or exported. That is
the one sanctioned lazy import of the package: it keeps the SDKs (voyageai, cohere) and the local model's code out of
every process that only lists rerankers, and no reranker module has to be imported by this one (or by the package's
`__init__`), so there is no import circle to dodge.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

from pipeline.errors import InvalidInput

if TYPE_CHECKING:
    from pipeline.rerankers.base import LabReranker
    from pipeline.settings import Settings

PriceUnit = Literal["free", "per 1M tokens", "per 1k searches"]
UNKNOWN_COLOUR = "#555"  # a chart marker for a name not in the table


@dataclass(frozen=True)
class ExportCode:
    """What the exported module (pipeline/evaluation/ship.py) runs for a reranker after the first stage."""

    code: str  # ends the module: `async def rerank(graphiti, query, edges) -> edges` and whatever it needs
    imports: str = ""  # import lines of its own, placed before graphiti's in the module's head


# A row's factory: `factory(settings, model)` builds the reranker (`model` None: the settings' model).
Factory = Callable[["Settings", "str | None"], "LabReranker"]
# A row's exported code: `export(model)` (the settings' model; "" for a reranker without one).
Export = Callable[[str], ExportCode]
# A row names each of them as "module:attr" (imported when used: see the docstring) or holds the callable itself.
Ref = str | Callable[..., Any]


@dataclass(frozen=True)
class RerankerTraits:
    hosted: bool = False  # runs on someone else's servers: the candidates leave this machine
    priced: bool = False  # billed (per token from `settings.rerank_prices_per_mtok`, or per search)
    uses_vectors: bool = False  # re-scores with the candidates' stored fact embeddings
    pool_independent: bool = False  # a fact's score ignores the other candidates (a cross-encoder)
    key_env: str | None = None  # the environment variable holding its API key, when it needs one
    key_setting: str | None = None  # the `Settings` field that variable fills
    per_search: bool = False  # billed per search (a query with up to DOCUMENTS_PER_SEARCH documents), not per token


@dataclass(frozen=True)
class RerankerSpec:
    name: str
    # what a picker shows; a hosted reranker's label is its vendor ("Voyage"), shown with its model
    label: str
    note: str  # what it is (a hosted one's note adds its vendor and model in front)
    colour: str  # its marker colour in charts
    traits: RerankerTraits = field(default_factory=RerankerTraits)
    model_setting: str | None = None  # the `Settings` field naming its model (None: no model to choose)
    factory: Ref | None = None  # a `Factory`, or "module:attr" naming one; None: no reranker (first-stage order)
    export: Ref | None = None  # an `Export`, or "module:attr" naming one; None: it cannot be exported

    @property
    def free(self) -> bool:
        """Costs nothing to run: no bill, whatever the prices in the settings say."""
        return not self.traits.priced

    @property
    def price_unit(self) -> PriceUnit:
        if self.free:
            return "free"
        return "per 1k searches" if self.traits.per_search else "per 1M tokens"

    def model(self, settings: Settings) -> str:
        """The model the settings choose for it ("" when it has no model setting)."""
        return str(getattr(settings, self.model_setting)) if self.model_setting else ""

    def label_for(self, model: str) -> str:
        """'Voyage rerank-2.5' for a reranker with a model; its label otherwise."""
        return f"{self.label} {model}" if self.model_setting else self.label

    def display_label(self, settings: Settings) -> str:
        """The label with the model the settings choose."""
        return self.label_for(self.model(settings))

    def key_status(self, has_key: bool) -> str:
        """The `python -m pipeline status` line of a reranker that needs a key."""
        return "API key set" if has_key else f"no API key ({self.label} reranker off)"


def first_stage_order(model: str) -> ExportCode:
    """The exported code of "none": no reranker, the first stage's order."""
    return ExportCode('''

async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """No reranker: the first stage's order."""
    return edges
''')


SPECS: dict[str, RerankerSpec] = {
    s.name: s
    for s in (
        RerankerSpec(
            "none",
            "No reranking (first-stage order)",
            "the recipe's own fused order",
            colour="#8c9bb5",
            export=first_stage_order,
        ),
        RerankerSpec(
            "local",
            "Local re-scorer (offline)",
            "bi-encoder + BM25 re-score, not a cross-encoder",
            colour="#2f6fde",
            traits=RerankerTraits(uses_vectors=True),
            factory="pipeline.rerankers.local:for_settings",
            export="pipeline.rerankers.local:export_code",
        ),
        RerankerSpec(
            "voyage",
            "Voyage",
            "hosted cross-encoder",
            colour="#e8912d",
            traits=RerankerTraits(
                hosted=True, priced=True, pool_independent=True, key_env="VOYAGE_API_KEY", key_setting="voyage_api_key"
            ),
            model_setting="voyage_rerank_model",
            factory="pipeline.rerankers.voyage:VoyageReranker",
            export="pipeline.rerankers.voyage:export_code",
        ),
        RerankerSpec(
            "cohere",
            "Cohere",
            "hosted cross-encoder",
            colour="#39a37b",
            traits=RerankerTraits(
                hosted=True,
                priced=True,
                pool_independent=True,
                key_env="COHERE_API_KEY",
                key_setting="cohere_api_key",
                per_search=True,
            ),
            model_setting="cohere_rerank_model",
            factory="pipeline.rerankers.cohere:CohereReranker",
            export="pipeline.rerankers.cohere:export_code",
        ),
    )
}
_UNKNOWN_TRAITS = RerankerTraits()  # a name not in the table (a stored run of a test reranker): nothing special


class _Names(Sequence[str]):
    """The table's names in its order, read from `SPECS` at each use (a view, not a copy: a row registered after
    import is in it), so `name in RERANKERS`, `", ".join(RERANKERS)` and `RERANKERS[-1]` are always the table's."""

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return tuple(SPECS)[index]

    def __len__(self) -> int:
        return len(SPECS)

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(SPECS))

    def __contains__(self, name: object) -> bool:
        return name in SPECS

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, _Names) else other)

    __hash__ = None  # type: ignore[assignment]  # it changes with the table

    def __repr__(self) -> str:
        return repr(tuple(self))


RERANKERS: Sequence[str] = _Names()


def register(row: RerankerSpec) -> Callable[[], None]:
    """Add a reranker to the table (a plug-in's, a test's fake) and return the undo that takes it out again. A name
    already in the table is refused: a row is replaced by editing it, not by shadowing it."""
    if row.name in SPECS:
        raise ValueError(f"reranker {row.name!r} is in the table already")
    SPECS[row.name] = row

    def undo() -> None:
        if SPECS.get(row.name) is row:
            del SPECS[row.name]

    return undo


def spec(name: str) -> RerankerSpec | None:
    """The spec of `name`; None for a name not in the table."""
    return SPECS.get(name)


def traits(name: str) -> RerankerTraits:
    found = SPECS.get(name)
    return found.traits if found else _UNKNOWN_TRAITS


def colour(name: str) -> str:
    found = SPECS.get(name)
    return found.colour if found else UNKNOWN_COLOUR


def is_free(name: str) -> bool:
    """True for a reranker that is never billed; an unknown name counts as not free (its price is looked up)."""
    found = SPECS.get(name)
    return found is not None and found.free


def load(ref: Ref) -> Callable[..., Any]:
    """A row's factory or export: the callable itself, or the one "package.module:attr" (attr may be dotted) names,
    imported now (the sanctioned lazy import: see the module's docstring)."""
    if callable(ref):
        return ref
    module, _, attr = ref.partition(":")
    found: Any = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


def _row(name: str) -> RerankerSpec:
    found = SPECS.get(name)
    if found is None:
        raise InvalidInput(f"Unknown reranker {name!r}; choose one of: {', '.join(RERANKERS)}.")
    return found


def make_reranker(name: str, settings: Settings, model: str | None = None) -> LabReranker | None:
    """The reranker called `name`, built by its row's factory (None for a row without one: "none"); an unknown name
    is rejected with the valid ones."""
    row = _row(name)
    if row.factory is None:
        return None
    factory: Factory = load(row.factory)
    return factory(settings, model)


def export_code(name: str, settings: Settings) -> ExportCode:
    """What the exported module runs for reranker `name`, with the model the settings choose."""
    row = _row(name)
    if row.export is None:
        raise InvalidInput(f"Reranker {name!r} has no exported code: its setting cannot be exported.")
    export: Export = load(row.export)
    return export(row.model(settings))
