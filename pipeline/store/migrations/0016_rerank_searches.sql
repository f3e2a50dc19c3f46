-- Cohere bills per search (one query with up to 100 documents), not per token: each run keeps the search
-- units its reranker was billed, beside its tokens, so the Latency page can price it per 1,000 searches.
ALTER TABLE runs ADD COLUMN rerank_searches INTEGER NOT NULL DEFAULT 0;
