"""First-stage recipes: graphiti's edge `SearchConfig`, named as a Graphiti user knows them.

A recipe is what `graphiti.search_(query, config)` runs over facts: its search methods (BM25, cosine, graph walk),
its fusion step (RRF, MMR, node distance, episode mentions), the cosine floor (`sim_min_score`), the walk depth and
the fusion's `reranker_min_score`. The limit is not part of it: that is a setting's N. A custom recipe is graphiti's
own `SearchConfig` JSON (what `model_dump_json()` writes), so a team pastes the config its service runs.

Presets copy graphiti's recipes (`search_config_recipes`), never share them: graphiti's `Graphiti.search()` sets
`limit` on its module-level recipe in place.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from graphiti_core.search.search_config import EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, SearchConfig
from graphiti_core.search.search_config_recipes import (
    EDGE_HYBRID_SEARCH_EPISODE_MENTIONS,
    EDGE_HYBRID_SEARCH_MMR,
    EDGE_HYBRID_SEARCH_NODE_DISTANCE,
    EDGE_HYBRID_SEARCH_RRF,
)
from pydantic import ValidationError

from pipeline.errors import InvalidInput
from pipeline.json_input import loads_bounded

# how this tool names graphiti's methods (ranks, timings, charts)
METHOD_NAMES = {
    EdgeSearchMethod.bm25: "bm25",
    EdgeSearchMethod.cosine_similarity: "cosine",
    EdgeSearchMethod.bfs: "bfs",
}
FUSIONS = {
    EdgeReranker.rrf: "rrf",
    EdgeReranker.mmr: "mmr",
    EdgeReranker.node_distance: "node_distance",
    EdgeReranker.episode_mentions: "episode_mentions",
}
CUSTOM = "custom"


def _edges_only(config: SearchConfig) -> SearchConfig:
    """The facts part of a config, at graphiti's default limit (a setting's N replaces it)."""
    return SearchConfig(edge_config=config.edge_config, reranker_min_score=config.reranker_min_score)


def _preset(config: SearchConfig, **changes: object) -> SearchConfig:
    copy = _edges_only(config.model_copy(deep=True))
    assert copy.edge_config is not None
    for field, value in changes.items():
        setattr(copy.edge_config, field, value)
    return copy


_HYBRID = [EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity]
PRESETS: dict[str, SearchConfig] = {
    # exactly what `Graphiti.search()` runs without a center node, its 0.6 cosine floor included
    "graphiti-default": _preset(EDGE_HYBRID_SEARCH_RRF),
    "vector": _preset(EDGE_HYBRID_SEARCH_RRF, search_methods=[EdgeSearchMethod.cosine_similarity]),
    "bm25": _preset(EDGE_HYBRID_SEARCH_RRF, search_methods=[EdgeSearchMethod.bm25]),
    # BM25 + cosine + a graph walk from their hits, every cosine neighbour kept: a reranker needs the pool filled
    "hybrid-walk": _preset(EDGE_HYBRID_SEARCH_RRF, search_methods=[*_HYBRID, EdgeSearchMethod.bfs], sim_min_score=0.0),
    "mmr": _preset(EDGE_HYBRID_SEARCH_MMR),
    "node-distance": _preset(EDGE_HYBRID_SEARCH_NODE_DISTANCE),
    "episode-mentions": _preset(EDGE_HYBRID_SEARCH_EPISODE_MENTIONS),
}
# what a setting runs when none is named, and the baseline every setting is tested against: what a Graphiti user
# ships when they call `Graphiti.search()`
DEFAULT_RECIPE = "graphiti-default"
# what every run, experiment and cached pool recorded before recipes existed ran (migrations 0020, 0021)
LEGACY_RECIPE = "hybrid-walk"
RECIPE_NAMES = tuple(PRESETS)


@dataclass(frozen=True)
class Recipe:
    """A preset by name, or a custom `SearchConfig`; `center` is node-distance's center entity when one is given
    (otherwise the source entity of the recipe's own best BM25/cosine hit, as graphiti's quickstart picks it)."""

    name: str
    config_json: str  # the `SearchConfig` (facts only, default limit) as graphiti's model_dump_json writes it
    center: str | None = None

    @cached_property
    def config(self) -> SearchConfig:
        return SearchConfig.model_validate_json(self.config_json)

    @property
    def edge_config(self) -> EdgeSearchConfig:
        edge = self.config.edge_config
        assert edge is not None  # `custom` refuses a config without one
        return edge

    @property
    def methods(self) -> tuple[str, ...]:
        """The methods it runs, in graphiti's order (bm25, cosine, bfs), by this tool's names."""
        used = set(self.edge_config.search_methods)
        return tuple(name for method, name in METHOD_NAMES.items() if method in used)

    @property
    def fusion(self) -> str:
        return FUSIONS[self.edge_config.reranker]

    @property
    def key(self) -> str:
        """Stable and short: the preset's name, or `custom-` and a digest of the config."""
        digest = hashlib.sha256(self.config_json.encode()).hexdigest()[:10]
        base = self.name if self.name != CUSTOM else f"{CUSTOM}-{digest}"
        return f"{base}@{self.center}" if self.center else base

    def search_config(self, limit: int) -> SearchConfig:
        """graphiti's `SearchConfig` for this recipe at limit N: what `search_()` runs."""
        config = self.config.model_copy(deep=True)
        config.limit = limit
        return config

    @property
    def fusion_label(self) -> str:
        return FUSION_LABELS[self.fusion]

    def floors(self, first_stage: str = "exact") -> list[str]:
        """The floors that can leave a pool short of N: graphiti's cosine floor (`sim_min_score`, not applied by
        the vector index), and the fusion's `reranker_min_score` (MMR drops scores below it, 0 included)."""
        edge = self.edge_config
        found = []
        if "cosine" in self.methods and edge.sim_min_score > 0 and first_stage == "exact":
            found.append(f"cosine floor {edge.sim_min_score:g}")
        if self.fusion_floor:
            found.append(f"{self.fusion_label} floor {self.config.reranker_min_score:g}")
        return found

    @property
    def fusion_floor(self) -> bool:
        """Whether `reranker_min_score` can drop a fused fact: above 0, or MMR's (whose scores go below 0)."""
        return self.config.reranker_min_score > 0 or self.fusion == "mmr"

    def describe(self) -> str:
        """One line from the recipe's own config, e.g. "BM25 + cosine, RRF, cosine floor 0.6"."""
        edge = self.edge_config
        methods = " + ".join(
            METHOD_LABELS[m] + (f" (depth {edge.bfs_max_depth})" if m == "bfs" else "") for m in self.methods
        )
        fusion = self.fusion_label
        if self.fusion == "mmr":
            fusion += f" (λ {edge.mmr_lambda:g})"
        elif self.fusion == "node_distance":
            fusion += f" from entity {self.center}" if self.center else " from the top hit's entity"
        return ", ".join([methods, fusion, *self.floors()])

    @classmethod
    def preset(cls, name: str, center: str | None = None) -> Recipe:
        if name not in PRESETS:
            raise InvalidInput(
                f"Unknown recipe {name!r}; one of: {', '.join(RECIPE_NAMES)}, or a SearchConfig .json file."
            )
        return cls(name, PRESETS[name].model_dump_json(), center)

    @classmethod
    def parse(cls, text: str) -> Recipe:
        """A preset name (`node-distance@<entity uuid>` gives its center), or a path to a SearchConfig .json file;
        anything else is refused in one line."""
        text = text.strip()
        name, _, center = text.partition("@")
        if name in PRESETS:
            if center and PRESETS[name].edge_config.reranker != EdgeReranker.node_distance:  # type: ignore[union-attr]
                raise InvalidInput(f"Only node-distance takes a center entity (`node-distance@UUID`); got {text!r}.")
            return cls.preset(name, center or None)
        path = Path(text)
        if not text.endswith(".json") or not path.is_file():
            raise InvalidInput(
                f"Unknown recipe {text!r}; one of: {', '.join(RECIPE_NAMES)}, or a SearchConfig .json file."
            )
        try:
            config_text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"{path}: cannot be read ({type(exc).__name__}).") from None
        return cls.from_config(config_text, str(path))

    @classmethod
    def from_config(cls, text: str, where: str = "The recipe") -> Recipe:
        """graphiti's `SearchConfig` JSON (or its `edge_config` alone) as a recipe; anything else is refused in one
        line that starts with `where` and names the field at fault. NaN and Infinity (which Python's json reads, and
        pydantic would store as null) and nesting deeper than any SearchConfig are refused before validation."""
        try:
            raw = loads_bounded(text, "it", max_nesting=MAX_DEPTH, finite=True)
            if not isinstance(raw, dict):
                raise TypeError(f"a JSON {type(raw).__name__}, not an object")
            config = SearchConfig.model_validate(raw if "edge_config" in raw else {"edge_config": raw})
        except ValidationError as exc:
            raise InvalidInput(f"{where}: not a graphiti SearchConfig ({validation_line(exc)[:200]}).") from None
        except (ValueError, TypeError, RecursionError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InvalidInput(f"{where}: not a graphiti SearchConfig ({first[:200]}).") from None
        return custom(config)


METHOD_LABELS = {"bm25": "BM25", "cosine": "cosine", "bfs": "graph BFS"}
FUSION_LABELS = {"rrf": "RRF", "mmr": "MMR", "node_distance": "node distance", "episode_mentions": "episode mentions"}


def custom(config: SearchConfig) -> Recipe:
    edge = config.edge_config
    if edge is None or not edge.search_methods:
        raise InvalidInput("The SearchConfig has no edge_config with search methods: this tool ranks facts (edges).")
    if edge.reranker not in FUSIONS:
        raise InvalidInput(
            f"The SearchConfig's edge reranker {edge.reranker.value!r} is not a first-stage fusion here; use one of "
            f"{', '.join(r.value for r in FUSIONS)} and choose the reranker as the setting's reranker."
        )
    _check_ranges(edge)
    edges_only = _edges_only(config)
    for name, known in PRESETS.items():
        if known == edges_only:
            return Recipe.preset(name)  # a pasted preset is that preset
    return Recipe(CUSTOM, edges_only.model_dump_json())


# graphiti validates only the types: a walk 1,000,000 hops deep took 1,033 ms against 27 ms at depth 3 on the demo,
# and a deal's facts are reached in a few hops; cosine similarity and MMR's lambda have ranges of their own
BFS_MAX_DEPTH = 10
RANGES: dict[str, tuple[float, float]] = {"sim_min_score": (-1.0, 1.0), "mmr_lambda": (0.0, 1.0)}


def _check_ranges(edge: EdgeSearchConfig) -> None:
    """A value graphiti accepts but that is no sensible recipe: one line naming the field and its range."""
    if not 1 <= edge.bfs_max_depth <= BFS_MAX_DEPTH:
        raise InvalidInput(
            f"The SearchConfig's edge_config.bfs_max_depth is {edge.bfs_max_depth}; give 1 to {BFS_MAX_DEPTH}."
        )
    for name, (low, high) in RANGES.items():
        value = getattr(edge, name)
        if not low <= value <= high:
            raise InvalidInput(f"The SearchConfig's edge_config.{name} is {value:g}; give {low:g} to {high:g}.")


# a SearchConfig is three levels deep (config, edge_config, a list of methods): far deeper is no config
MAX_DEPTH = 20


def validation_line(exc: ValidationError, echo: bool = True) -> str:
    """pydantic's first error in one line, naming the field: `edge_config.reranker: Input should be ...`; with
    `echo`, a short value given is quoted (`'rrf' is refused: ...`). Every JSON file this tool reads (a recipe, a
    setting, a gate baseline) is refused through here."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    given = first.get("input")
    short = isinstance(given, str | int | float) and len(repr(given)) <= 40
    got = f"{given!r} is refused: " if echo and short else ""
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where + ': ' if where else ''}{got}{first['msg']}{more}"


# the deal's closest facts whatever their cosine (the low-confidence rule's fallback): the cosine method alone, its
# floor at the bottom of the cosine range
NEAREST = custom(
    SearchConfig(
        edge_config=EdgeSearchConfig(
            search_methods=[EdgeSearchMethod.cosine_similarity], reranker=EdgeReranker.rrf, sim_min_score=-1.0
        )
    )
)
