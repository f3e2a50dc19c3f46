-- A run is cold when it was the first of its reranker on its deal in the process that ran it (model loading,
-- connections, compiled statements paid inside its timings); runs recorded before this was kept count as warm.
ALTER TABLE runs ADD COLUMN cold INTEGER NOT NULL DEFAULT 0;
