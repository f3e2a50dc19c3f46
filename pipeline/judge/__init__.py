"""The LLM relevance judge: grades (query, fact) pairs on the analysts' 0-3 rubric (docs/llm-judge.md).

- `prompt`: the prompt (from the spot-check rubric), its version, the answer's schema, the judge's reviewer name.
- `client`: configuration from the settings, graphiti's LLM client over the openai SDK, one request, failures.
- `grade`: `grade_pairs`: cache, concurrency, retries, deadline, tokens and cost, a one-line failure.
- `repo`: the cache's SQL.
"""

from pipeline.judge.client import JudgeConfig, judge_config, make_llm
from pipeline.judge.grade import JudgeGrade, JudgePair, JudgeReport, grade_pairs
from pipeline.judge.prompt import (
    JUDGE_PREFIX,
    PROMPT_VERSION,
    JudgeAnswer,
    is_judge,
    judge_messages,
    judge_reviewer,
    prompt_text,
)

__all__ = [
    "JUDGE_PREFIX",
    "PROMPT_VERSION",
    "JudgeAnswer",
    "JudgeConfig",
    "JudgeGrade",
    "JudgePair",
    "JudgeReport",
    "grade_pairs",
    "is_judge",
    "judge_config",
    "judge_messages",
    "judge_reviewer",
    "make_llm",
    "prompt_text",
]
