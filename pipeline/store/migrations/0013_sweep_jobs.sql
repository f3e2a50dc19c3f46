-- Sweeps as server-side jobs (issue 17): what to run, who started it and when, where it is, how it ended.
-- A job is run by one process (`owner`: host, pid and a token of that process); `state` moves
-- queued -> running -> done | failed | cancelled, or cancelling (asked from any session; the runner polls it)
-- -> cancelled; a job left active by a process that died is marked interrupted by the next start.
CREATE TABLE sweep_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    owner TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'running', 'cancelling', 'done', 'failed', 'cancelled', 'interrupted')),
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    elapsed_s REAL NOT NULL DEFAULT 0,
    started_at TEXT,
    progress_at TEXT,
    cancel_at_done INTEGER,
    finished_at TEXT,
    error TEXT,
    experiment_id INTEGER REFERENCES experiments (id) ON DELETE SET NULL
);
CREATE INDEX sweep_jobs_group ON sweep_jobs (group_id, id);
CREATE INDEX sweep_jobs_state ON sweep_jobs (state)
