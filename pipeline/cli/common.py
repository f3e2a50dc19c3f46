"""What every command line shares: a parser whose errors are one line, the number, date and path checks, and
`run()`, which opens the Lab, runs one command and turns errors into one line and an exit code (bad input,
a bad setting or data file, unreachable or lost backend, missing or damaged store, unknown deal: 2; a bug: 1,
with the traceback under --debug; Ctrl-C: 130).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import logging
import math
import os
import sqlite3
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from pydantic import ValidationError

from pipeline import api  # the engine, loaded as a command first uses it (`api.Lab`): `--help` loads none of it
from pipeline.api import date_field, decimal_number, one_line, whole_number
from pipeline.api.models import DATE_RULE, MAX_INTEGER
from pipeline.errors import InvalidInput, RetrievalLabError

if TYPE_CHECKING:
    from pipeline.api import Lab

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

Command = Callable[["Lab", argparse.Namespace], Awaitable[Any]]  # set as `run`; `no_lab=True`: called with args only


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (no usage block) and exit 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def integer(text: str) -> int:
    """An argparse type: a whole number in digits 0-9 (a leading `-` allowed); the command checks its range."""
    number = whole_number(text, -MAX_INTEGER, MAX_INTEGER, signed=True)
    if number is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (digits 0-9)")
    return number


def whole(low: int = 1, high: int = 1_000_000) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high]; anything else names the range allowed."""

    def convert(text: str) -> int:
        number = whole_number(text, low, high, signed=low < 0)
        if number is None:
            raise argparse.ArgumentTypeError(f"{text!r} is not allowed: give a whole number from {low} to {high:,}")
        return number

    return convert


def seconds(high: float = 86_400.0) -> Callable[[str], float]:
    """An argparse type: a number of seconds in (0, high] in digits 0-9 ("2", "0.5"); NaN, infinities, signs
    and exponents are refused."""

    def convert(text: str) -> float:
        value = decimal_number(text)
        if value is None or not (math.isfinite(value) and 0 < value <= high):
            raise argparse.ArgumentTypeError(f"{text!r} is not allowed: give seconds above 0, at most {high:,.0f}")
        return value

    return convert


def check_writable(path: str | None) -> None:
    """An output file the command will write: its folder must exist and it must not be a folder itself."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir() or not target.parent.is_dir():
        raise InvalidInput(f"{path}: cannot be written (give a file path in an existing folder).")


def parse_int_list(value: str, what: str) -> tuple[int, ...]:
    """'10,25,50' -> (10, 25, 50); anything else (or a number under 1) is one clear error."""
    parsed = [whole_number(v.strip(), 0) for v in value.split(",") if v.strip()]
    if any(n is None for n in parsed):
        raise InvalidInput(f"{what} {value!r} is not a comma-separated list of numbers (digits 0-9).")
    numbers = tuple(n for n in parsed if n is not None)
    if not numbers or min(numbers) < 1:
        raise InvalidInput(f"{what} {value!r}: give positive numbers, e.g. 10,25,50,100.")
    return numbers


def parse_date(value: str | None, what: str = "--as-of") -> datetime | None:
    try:
        return date_field(value, what)
    except ValueError:
        raise InvalidInput(f"{what} {value!r} is not a date; use {DATE_RULE}.") from None


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
    lab = await api.Lab.open()
    if getattr(args, "candidates", 0) is None:
        args.candidates = lab.settings.default_candidates
    if getattr(args, "top_k", 0) is None:
        args.top_k = lab.settings.default_top_k
    try:
        return await command(lab, args)
    except Exception as exc:  # a graph server lost or a store damaged mid-way: one line naming which
        problem = lab.backend.connection_lost(exc) or _store_problem(lab, exc)
        if problem is None:
            raise
        raise problem from exc
    finally:
        await lab.close()


def _store_problem(lab: Lab, exc: Exception) -> RetrievalLabError | None:
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    return api.damaged_store(api.store_path(lab.settings.resolved_data_dir), exc)


def _unexpected(exc: Exception) -> int:
    print(f"error: unexpected {type(exc).__name__}: {one_line(exc)} (rerun with --debug for details)", file=sys.stderr)
    return 1


@dataclass(frozen=True)
class Failed:
    """What a command returns when it ran to its end and found what it checks for (a gate that does not hold): its
    result, printed as any result is (JSON under --json), and the exit code."""

    result: dict[str, Any]
    code: int = 1


def run(parser: argparse.ArgumentParser, argv: list[str] | None = None, started: float | None = None) -> int:
    """Parse `argv`, run the chosen command, print its result as JSON under --json; the exit code. `started`: the
    `time.monotonic()` the command started at (`python -m pipeline` takes it before its imports), else now."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a bad argument (one line already printed) or --help: the code, not an exit
        return exc.code if isinstance(exc.code, int) else 2
    args.started = time.monotonic() if started is None else started  # progress lines time from here
    if not args.debug:  # graphiti logs each failed query (statement and parameters); the error is our one line
        logging.getLogger("graphiti_core.driver").setLevel(logging.CRITICAL)
    try:
        result = args.run(args) if getattr(args, "no_lab", False) else asyncio.run(_with_lab(args, args.run))
    except RetrievalLabError as exc:
        print(f"error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except ValidationError as exc:  # settings built outside get_settings(): still one line naming the variable
        print(f"error: {one_line(api.settings_error_line(exc))}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        if args.debug:
            raise
        if not exc.filename:  # not a path the user gave: a bug like any other
            return _unexpected(exc)
        print(f"error: {exc.filename}: {exc.strerror or type(exc).__name__}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        return _unexpected(exc)
    code = 0
    if isinstance(result, Failed):
        result, code = result.result, result.code
    if args.json:
        print(json.dumps(result, default=str, indent=2))
    return code
