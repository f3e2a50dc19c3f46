-- The LLM judge's grades, one per (model, prompt version, query, fact): a run asks only for pairs not graded yet.
-- pair_sha256 is the sha256 of the JSON array [query, fact] (pipeline/judge/repo.py); the texts are kept beside it.
-- Tokens are what grading the pair cost when it was graded; a cached grade costs nothing again.
CREATE TABLE judge_cache (
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    pair_sha256 TEXT NOT NULL,
    query TEXT NOT NULL,
    fact TEXT NOT NULL,
    grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 3),
    reason TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model, prompt_version, pair_sha256)
)
