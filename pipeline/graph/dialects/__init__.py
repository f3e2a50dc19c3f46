"""Every Cypher statement Retrieval Lab writes itself, one module per graph dialect.

Like graphiti's `driver/operations/` with `driver/falkordb/operations/`: one query interface
(`common.GraphQueries`, openCypher that both databases run, with its first-stage searches in `search.py` and
its merges in `merges.py`) and one subclass per backend that overrides only what its dialect spells differently
(`falkordb.FalkorQueries`, `neo4j.Neo4jQueries`). They run on the backend through `connection.GraphConnection`
and never import the backend, which builds its dialect from the registry. Features call
`backend.cypher.<operation>(...)`; retrieval, which holds one deal's graphiti driver, calls the dialect's search
operations, graphiti's `SearchInterface` (`for_driver(driver).edge_fulltext_search(driver, ...)`). No Cypher is
written anywhere else (graphiti's own queries are graphiti's).
Statements are upper-case `str` class attributes, so a test can list and lint every one a dialect can send.

The registry (`registry.py`: `DIALECTS`, `queries_for`, `for_driver`) is a module of its own, so this package
imports nothing: the embedded server's supervisor reads `falkordb_counts` without loading graphiti.
"""
