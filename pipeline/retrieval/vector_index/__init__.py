"""The graph's own vector index as a named first-stage option ("vector_index"), beside exact search ("exact").

graphiti's cosine method is a brute-force scan, so it grows linearly with the deal. FalkorDB and Neo4j both keep
an HNSW index on a relationship property; with one on the facts' embeddings, the first stage's cosine list can
come from it instead: approximate, so every use of the option shows its measured recall against exact search.
Exact search stays the default; BM25 and the graph walk are the same either way.

- `search.py`: the cosine method answered by the index (filters applied to its hits, asked again for more
  when too few pass);
- `build.py`: create the index on a deal and wait until the database has built it;
- `check.py`: recall@N and latency of the index against exact search over a set of queries;
- `repo.py`: the measurements, kept in the store.
"""

from pipeline.retrieval.vector_index.records import FIRST_STAGES, FirstStageName, RecallCheck

__all__ = ["FIRST_STAGES", "FirstStageName", "RecallCheck"]
