-- Our bookkeeping of each deal (the deal itself is whatever group_id holds graphiti nodes in the graph):
-- what built it, for deals we built (NULL for a deal only graphiti wrote), and whether it is read-only here.
CREATE TABLE deals (
    group_id TEXT PRIMARY KEY,
    name TEXT,
    description TEXT,
    source TEXT,
    embedder_model TEXT,
    embedder_dim INTEGER,
    content_hash TEXT,
    created_at TEXT,
    read_only INTEGER NOT NULL DEFAULT 0
)
