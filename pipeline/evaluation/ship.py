"""The chosen setting as code a team pastes into its service: graphiti's `SearchConfig`, the `search_()` call at
limit N, and the reranker call cut to k.

The module written needs graphiti-core alone for the first stage, and the SDK for Voyage and Cohere (with this
tool's model names). `local` is this tool's offline re-scorer, not a cross-encoder: its code (BM25 over the
candidates fused with cosine) is copied into the module from `pipeline.rerankers.local`, which then needs numpy
besides graphiti-core and nothing of this package; its cosine comes from the graph's own embedder
(`graphiti.embedder`), the same numbers as here when the deal is embedded with the local MiniLM. Its top k is
the tool's top k for the same query (`tests/integration/test_ship.py`).

Text that comes from users or files (an experiment's name, a deal id, a date) enters the module only as data:
escaped inside the docstring and comments (`_doc`: a backslash, a quote and every character that is not
printable become escapes, so no text can close the docstring or end a comment's line) and as `repr` in code.
"""

from __future__ import annotations

import inspect
import textwrap

from pipeline.evaluation.records import SettingResult, SweepResult
from pipeline.graph.dialects.common import GraphQueries
from pipeline.graph.dialects.falkordb import FalkorQueries
from pipeline.rerankers import local as local_reranker
from pipeline.rerankers.specs import spec as reranker_spec
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

_RERANK = {
    "none": '''

async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """No reranker: the first stage's order."""
    return edges
''',
    "voyage": '''
RERANK_MODEL = {model!r}


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Voyage's reranker over all N (VOYAGE_API_KEY from the environment)."""
    import voyageai

    client = voyageai.AsyncClient()
    found = await client.rerank(query, [e.fact for e in edges], model=RERANK_MODEL, truncation=True)
    return [edges[r.index] for r in sorted(found.results, key=lambda r: (-r.relevance_score, r.index))]
''',
    "cohere": '''
RERANK_MODEL = {model!r}


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Cohere's reranker over all N (COHERE_API_KEY / CO_API_KEY from the environment)."""
    import cohere

    client = cohere.AsyncClientV2()
    found = await client.rerank(model=RERANK_MODEL, query=query, documents=[e.fact for e in edges], top_n=len(edges))
    return [edges[r.index] for r in sorted(found.results, key=lambda r: (-r.relevance_score, r.index))]
''',
}

# the local re-scorer: its constants and functions copied from pipeline/rerankers/local.py as they are, so the
# module scores exactly as the tool does without importing it
_LOCAL_IMPORTS = """
import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
"""
_LOCAL_FUNCTIONS = (
    local_reranker.tokenize,
    local_reranker._fold_plural,
    local_reranker.bm25_scores,
    local_reranker.minmax,
    local_reranker.fuse,
)
_LOCAL_TAIL = '''

async def _fact_vectors(graphiti: Graphiti, edges: list[EntityEdge], dim: int) -> np.ndarray:
    """The facts' stored embeddings (one indexed lookup each), or, when one is missing or of another size, the
    facts embedded by the graph's embedder."""
    records, _, _ = await graphiti.driver.execute_query(
        FACT_VECTORS, uuids=list(dict.fromkeys(e.uuid for e in edges)), routing_="r"
    )
    stored = {r["uuid"]: r["vector"] for r in records if r["vector"] is not None}
    vectors = [stored.get(e.uuid) for e in edges]
    if any(v is None or len(v) != dim for v in vectors):
        vectors = await graphiti.embedder.create_batch([e.fact for e in edges])
    return np.asarray(vectors, dtype=np.float32)


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Retrieval Lab's offline re-scorer over all N: cosine (the graph's embedder: the query, and the facts'
    stored vectors) fused with BM25 over the candidates. It is not a cross-encoder: a service would measure
    Voyage or Cohere the same way and ship one of those. Ties keep first-stage order."""
    query_vector = np.asarray(await graphiti.embedder.create(input_data=[query]), dtype=np.float32)
    matrix = await _fact_vectors(graphiti, edges, len(query_vector))
    cosine = (matrix @ query_vector) / np.clip(np.linalg.norm(matrix, axis=1), 1e-12, None)
    scores = fuse(cosine.astype(np.float64), bm25_scores(query, [e.fact for e in edges]))
    return [edges[i] for i in sorted(range(len(edges)), key=lambda i: (-float(scores[i]), i))]
'''


def _local_rerank() -> str:
    constants = [
        "",
        "# Retrieval Lab's offline re-scorer (pipeline/rerankers/local.py), copied here: numpy and graphiti only",
        f"COSINE_WEIGHT = {local_reranker.COSINE_WEIGHT!r}",
        f"BM25_K1 = {local_reranker.BM25_K1!r}",
        f"BM25_B = {local_reranker.BM25_B!r}",
        f"MAX_CHARS = {local_reranker.MAX_CHARS!r}  # the embedding model's reach: later text does not count",
        f"_TOKEN = re.compile({local_reranker._TOKEN.pattern!r})",
        "STOP_WORDS = frozenset(",
        *(
            f"    {line!r}"
            for line in textwrap.wrap(" ".join(sorted(local_reranker.STOP_WORDS)) + " ", 100, drop_whitespace=False)
        ),
        "    .split()",
        ")",
        f"FACT_VECTORS = {' '.join(GraphQueries.FACT_VECTORS.split())!r}",
    ]
    functions = "".join(f"\n\n{inspect.getsource(fn)}" for fn in _LOCAL_FUNCTIONS)
    return "\n".join(constants) + "\n" + functions + _LOCAL_TAIL


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
    reranker = reranker_spec(chosen.reranker)  # its model setting (none, local: no model)
    model = reranker.model(settings) if reranker else ""
    head = _HEAD.format(
        label=_doc(chosen.label),
        why="\n".join(_doc(line) for line in why),
        group=_doc(repr(spec.group_id)),
        queries=result.stats.queries,
        when=_doc(f"{when}{', experiment ' + experiment if experiment else ''}"),
        imports=_LOCAL_IMPORTS if chosen.reranker == "local" else "",
        recipe=_doc(repr(recipe.key)),
        config=recipe.config.model_dump_json(),
        filter_note=_doc(f"the sweep's filter: {when}"),
        search_filter=search_filter.model_dump_json(),
        n=int(chosen.candidates),
        k=int(chosen.top_k),
        center=recipe.center,
    )
    if chosen.reranker == "local":
        return head + _local_rerank()
    return head + _RERANK[chosen.reranker].format(model=model)
