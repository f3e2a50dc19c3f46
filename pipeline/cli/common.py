"""What every command line shares: the number and date parsers, and `run()`, which opens the Lab, runs
one command and turns errors into one line and an exit code (bad input, unreachable backend, unknown
deal: 2; a bug: 1, with the traceback under --debug; Ctrl-C: 130).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.lab import Lab
from pipeline.utc import parse_time

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

Command = Callable[[Lab, argparse.Namespace], Awaitable[Any]]  # set as `run`; `no_lab=True`: called with args only


def parse_int_list(value: str, what: str) -> tuple[int, ...]:
    """'10,25,50' -> (10, 25, 50); anything else (or a number under 1) is one clear error."""
    try:
        numbers = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise InvalidInput(f"{what} {value!r} is not a comma-separated list of numbers.") from None
    if not numbers or min(numbers) < 1:
        raise InvalidInput(f"{what} {value!r}: give positive numbers, e.g. 10,25,50,100.")
    return numbers


def parse_date(value: str | None, what: str = "--as-of") -> datetime | None:
    try:
        return parse_time(value)
    except ValueError:
        raise InvalidInput(f"{what} {value!r} is not a date; use YYYY-MM-DD.") from None


def cli_actor() -> str:
    """Who runs the command, for the audit log: cli:<user>."""
    try:
        return f"cli:{getpass.getuser()}"
    except Exception:  # no user name in this environment
        return "cli"


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def add_json_flag(*commands: argparse.ArgumentParser) -> None:
    for command in commands:
        command.add_argument("--json", action="store_true", help="print one JSON object")


async def _with_lab(args: argparse.Namespace, command: Command) -> Any:
    lab = await Lab.open()
    if getattr(args, "candidates", 0) is None:
        args.candidates = lab.settings.default_candidates
    if getattr(args, "top_k", 0) is None:
        args.top_k = lab.settings.default_top_k
    try:
        return await command(lab, args)
    finally:
        await lab.close()


def run(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> int:
    """Parse `argv`, run the chosen command, print its result as JSON under --json; the exit code."""
    args = parser.parse_args(argv)
    try:
        result = args.run(args) if getattr(args, "no_lab", False) else asyncio.run(_with_lab(args, args.run))
    except RetrievalLabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        print(f"error: unexpected {type(exc).__name__}: {exc} (rerun with --debug for details)", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, default=str, indent=2))
    return 0
