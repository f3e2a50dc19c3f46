"""`python -m pipeline judge --group G --pool ID`: an LLM judge grades every pair of a judging pool on the
analysts' 0-3 rubric (pipeline/pools/judging.py), through graphiti's OpenAI clients: OPENAI_API_KEY, and
OPENAI_BASE_URL for any OpenAI-compatible server (vLLM, Ollama); the model is RETRIEVAL_LAB_JUDGE_MODEL.
`--show-prompt` prints the prompt and its version. A failure keeps the grades obtained and exits 2 in one line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pipeline.api import Lab
from pipeline.cli.common import cli_actor, whole
from pipeline.errors import InvalidInput


def add_arguments(judge: argparse.ArgumentParser) -> None:
    judge.add_argument("--group", required=True)
    judge.add_argument("--pool", type=whole(1, 2**62), required=True)
    judge.add_argument("--show-prompt", action="store_true", help="print the judge's prompt and its version first")
    judge.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    from pipeline.api.models import PROMPT_VERSION

    if args.show_prompt:
        print(f"prompt {PROMPT_VERSION}:\n{lab.judge.prompt_text()}\n", file=sys.stderr)
    bar: tqdm | None = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, desc="judging", unit="pairs", file=sys.stderr, disable=None)
        bar.update(done - bar.n)

    try:
        judged = await lab.pools.judge(args.group, args.pool, cli_actor(), progress)
    finally:
        if bar is not None:
            bar.close()
    print(judged.text(), file=sys.stderr)
    if judged.report.failure:
        raise InvalidInput(judged.report.failure)
    r = judged.report
    return {
        "pool": args.pool,
        "reviewer": judged.reviewer,
        "model": r.model,
        "prompt_version": r.prompt_version,
        "graded": len(r.grades),
        "written": judged.written,
        "cached": r.cached,
        "requests": r.calls,
        "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens,
        "cost_usd": r.cost_usd,
        "elapsed_s": r.elapsed_s,
    }
