"""The chosen setting as code a team pastes into its service: graphiti's `SearchConfig`, the `search_()` call at
limit N, and the reranker call cut to k.

The module written needs graphiti-core alone for the first stage; its `rerank()` is the code the reranker's row in
the table (`pipeline/rerankers/specs.py`, `export_code`) gives: the SDK's call for Voyage and Cohere (with this
tool's model names), and for `local` (this tool's offline re-scorer, not a cross-encoder) its BM25-and-cosine code
copied from `pipeline.rerankers.local`, which then needs numpy besides graphiti-core and nothing of this package.
Its top k is the tool's top k for the same query (`tests/integration/test_ship.py`).

Text that comes from users or files (an experiment's name, a deal id, a date) enters the module only as data:
escaped inside the docstring and comments (`_doc`: a backslash, a quote and every character that is not
printable become escapes, so no text can close the docstring or end a comment's line) and as `repr` in code.
"""

from __future__ import annotations

from pipeline.evaluation.records import SettingResult, SweepResult
from pipeline.graph.dialects.falkordb import FalkorQueries
from pipeline.rerankers.specs import export_code
from pipeline.retrieval.filters import temporal_filter
from pipeline.settings import Settings

_HEAD = '''"""Retrieval setting chosen with Retrieval Lab: {label}.

{why}
Deal {group}, {queries} judged queries, {when}. Call `await retrieve(graphiti, query, group_ids)`: the top k facts.
"""

from __future__ import annotations
{imports}
from graphiti_core import Graphiti
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_config import EdgeReranker, SearchConfig
from graphiti_core.search.search_filters import SearchFilters

# graphiti's search recipe {recipe} (its limit is set to N below)
SEARCH_CONFIG = SearchConfig.model_validate_json({config!r})
# {filter_note}
SEARCH_FILTER = SearchFilters.model_validate_json({search_filter!r})
CANDIDATES = {n}  # N: first-stage candidates handed to the reranker
TOP_K = {k}  # k: facts handed on
CENTER_NODE_UUID: str | None = {center!r}


async def first_stage(graphiti: Graphiti, query: str, group_ids: list[str]) -> list[EntityEdge]:
    """graphiti's search with the recipe at limit N."""
    config = SEARCH_CONFIG.model_copy(deep=True)
    config.limit = CANDIDATES
    center = CENTER_NODE_UUID
    if config.edge_config is not None and config.edge_config.reranker == EdgeReranker.node_distance and center is None:
        # no center given: the source entity of the best BM25/cosine hit (RRF of the same lists), as Retrieval Lab
        # and graphiti's quickstart pick it
        seed = config.model_copy(deep=True)
        seed.edge_config.reranker = EdgeReranker.rrf  # type: ignore[union-attr]
        found = await graphiti.search_(query, seed, group_ids=group_ids, search_filter=SEARCH_FILTER)
        if not found.edges:
            return []
        center = found.edges[0].source_node_uuid
    results = await graphiti.search_(
        query, config, group_ids=group_ids, search_filter=SEARCH_FILTER, center_node_uuid=center
    )
    return results.edges


async def retrieve(graphiti: Graphiti, query: str, group_ids: list[str]) -> list[EntityEdge]:
    """The top k facts for `query`: the first stage at N, reranked, cut at k."""
    edges = await first_stage(graphiti, query, group_ids)
    if not edges:
        return []
    return (await rerank(graphiti, query, edges))[:TOP_K]
'''


def _doc(text: object) -> str:
    """`text` as it may stand inside a triple-quoted docstring or a comment of the module: a backslash, a double
    quote and every character that is not printable (line breaks of any kind, NUL, a lone surrogate) become
    escapes, so the text can neither close the docstring nor end a comment's line, and reads back as it was."""
    out = []
    for char in str(text):
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char.isprintable():
            out.append(char)
        else:
            out.append(repr(char)[1:-1])  # \\n, \\r, \\x00, \\u2028, \\ud800...
    return "".join(out)


def setting_module(result: SweepResult, key: str, settings: Settings, experiment: str = "") -> str:
    """The Python module of one setting of a sweep (by key), with the recommendation's numbers when it is the
    recommended one."""
    found: SettingResult = result.setting(key)
    chosen = found.setting
    spec = result.spec
    recipe = chosen.recipe
    rec = result.recommendation()
    base = result.setting(result.baseline)
    if rec.key == key and rec.beats_baseline:
        why = [f"Recommended: {rec.sentence}"]
    else:
        why = [f"nDCG@k {found.metric('ndcg@k'):.3f}; the baseline ({base.key}) {base.metric('ndcg@k'):.3f}."]
    if settings.graph_backend != "neo4j" and FalkorQueries.fulltext_groups([spec.group_id]) is None:
        why.append(
            f"WARNING: on FalkorDB, graphiti's full-text search finds nothing in group {spec.group_id!r} (RediSearch "
            "splits the id where graphiti's filter does not), so search_() below runs without BM25 and its top k "
            "can differ from the one measured, which searched without that filter."
        )
    when = "current facts"
    if spec.as_of:
        when = f"facts valid on {spec.as_of}"
    elif spec.include_superseded:
        when = "superseded facts included"
    search_filter = temporal_filter(spec.include_superseded, spec.as_of_datetime())
    rerank = export_code(chosen.reranker, settings)  # from the reranker's row, with the settings' model
    head = _HEAD.format(
        label=_doc(chosen.label),
        why="\n".join(_doc(line) for line in why),
        group=_doc(repr(spec.group_id)),
        queries=result.stats.queries,
        when=_doc(f"{when}{', experiment ' + experiment if experiment else ''}"),
        imports=rerank.imports,
        recipe=_doc(repr(recipe.key)),
        config=recipe.config.model_dump_json(),
        filter_note=_doc(f"the sweep's filter: {when}"),
        search_filter=search_filter.model_dump_json(),
        n=int(chosen.candidates),
        k=int(chosen.top_k),
        center=recipe.center,
    )
    return head + rerank.code
