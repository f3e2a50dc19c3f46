-- Two questions per spot-check card (issue 17): "Does the fact answer the query?" (relevance, graded 0-3)
-- and "Does the cited source support the fact?" (support). Every verdict stored so far answered the support
-- question: the verdicts stay where they are, unchanged, as support verdicts (spotcheck_verdicts and its
-- history), and from now on they count as support only, never as relevance. Relevance answers are new rows
-- here, one per (item, reviewer), with every revision kept, as verdicts are. An adjudication is the final
-- answer to one question on one item where reviewers disagree; it is what counts once recorded, and each
-- one is also written to the audit log.
CREATE TABLE spotcheck_relevance (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id INTEGER NOT NULL REFERENCES spotcheck_items (id) ON DELETE CASCADE,
    reviewer TEXT NOT NULL COLLATE NOCASE,
    grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 3),
    note TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    revision INTEGER NOT NULL,
    UNIQUE (item_id, reviewer)
);
CREATE TABLE spotcheck_relevance_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    relevance_id INTEGER NOT NULL REFERENCES spotcheck_relevance (id) ON DELETE CASCADE,
    revision INTEGER NOT NULL,
    grade INTEGER NOT NULL,
    note TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE TABLE spotcheck_adjudications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id INTEGER NOT NULL REFERENCES spotcheck_items (id) ON DELETE CASCADE,
    question TEXT NOT NULL CHECK (question IN ('relevance', 'support')),
    answer TEXT NOT NULL,
    adjudicator TEXT NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    revision INTEGER NOT NULL,
    UNIQUE (item_id, question)
);
CREATE INDEX spotcheck_relevance_reviewer ON spotcheck_relevance (reviewer, item_id)
