-- Candidate pairs an admin rejected: never suggested again (uuid_a < uuid_b).
CREATE TABLE merge_rejections (
    group_id TEXT NOT NULL,
    uuid_a TEXT NOT NULL,
    uuid_b TEXT NOT NULL,
    name_a TEXT NOT NULL,
    name_b TEXT NOT NULL,
    score REAL,
    rejected_by TEXT NOT NULL,
    rejected_at TEXT NOT NULL,
    PRIMARY KEY (group_id, uuid_a, uuid_b)
);
-- Undone merges: the merge record as it was in the graph, kept after the graph forgets it.
CREATE TABLE merge_undos (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id TEXT NOT NULL,
    merge_uuid TEXT NOT NULL,
    alias_uuid TEXT NOT NULL,
    canonical_uuid TEXT NOT NULL,
    record TEXT NOT NULL,
    undone_by TEXT NOT NULL,
    undone_at TEXT NOT NULL
);
CREATE INDEX merge_undos_group ON merge_undos (group_id, id)
