-- Citation spot-check: review queues, their items in order, and reviewers' verdicts.
-- A queue is reproducible from (deal, source, size, seed, priority, params) on the same graph; its items
-- keep a snapshot of the citation they were drawn with. One verdict per (item, reviewer): a re-verdict
-- updates it (revision + 1, updated_at) and every recorded verdict is kept in spotcheck_verdict_history.
CREATE TABLE spotcheck_queues (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    group_id TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('query_set', 'runs', 'fact_sample')),
    size INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    priority TEXT NOT NULL CHECK (priority IN ('random', 'lowest_score', 'disagreement')),
    params TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (group_id, name)
);
CREATE TABLE spotcheck_items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue_id INTEGER NOT NULL REFERENCES spotcheck_queues (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    query_id TEXT NOT NULL,
    query TEXT NOT NULL,
    run_id INTEGER,
    fact_uuid TEXT NOT NULL,
    fact TEXT NOT NULL,
    rank INTEGER,
    score REAL,
    superseded INTEGER NOT NULL,
    signals TEXT NOT NULL,
    episode_uuid TEXT NOT NULL,
    channel TEXT NOT NULL,
    document_name TEXT NOT NULL,
    citation TEXT NOT NULL,
    UNIQUE (queue_id, position)
);
CREATE TABLE spotcheck_verdicts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id INTEGER NOT NULL REFERENCES spotcheck_items (id) ON DELETE CASCADE,
    reviewer TEXT NOT NULL COLLATE NOCASE,
    verdict TEXT NOT NULL CHECK (verdict IN ('supported', 'partially_supported', 'not_supported', 'wrong_source')),
    note TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    revision INTEGER NOT NULL,
    UNIQUE (item_id, reviewer)
);
CREATE TABLE spotcheck_verdict_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    verdict_id INTEGER NOT NULL REFERENCES spotcheck_verdicts (id) ON DELETE CASCADE,
    revision INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    note TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE INDEX spotcheck_queues_group ON spotcheck_queues (group_id, id);
CREATE INDEX spotcheck_verdicts_reviewer ON spotcheck_verdicts (reviewer, item_id)
