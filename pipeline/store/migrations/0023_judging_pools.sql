-- Judging pools: a spot-check queue (source 'query_set') holding the union of several settings' top k for
-- each query of a stored query set (depth-k pooling), each (query, fact) pair once, pairs already judged left
-- out; or a calibration sample: pairs an LLM judge graded, drawn (seeded) for analysts to grade too.
-- The queue and its pool row are written in one transaction; removing the queue removes its pool row.
CREATE TABLE judging_pools (
    queue_id INTEGER PRIMARY KEY REFERENCES spotcheck_queues (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('pool', 'calibration')),
    set_name TEXT NOT NULL,
    settings TEXT NOT NULL,
    pairs INTEGER NOT NULL,
    skipped INTEGER NOT NULL,
    of_queue INTEGER REFERENCES spotcheck_queues (id) ON DELETE SET NULL
)
