"""The import's progress lines: times from the command's start, rates over the real time elapsed on those items
(a fake clock makes it exact), and no rate at all before any time has passed on them."""

from __future__ import annotations

from pipeline.ingest.progress import ProgressLines, Step


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_each_line_is_timed_from_the_start_and_rates_count_real_elapsed_time() -> None:
    clock, lines = FakeClock(), []
    report = ProgressLines("import tatqa", lines.append, clock=clock, since=0.0)
    clock.now = 2.0
    report(Step("reading", "files"))
    clock.now = 3.0
    report(Step("embedding", "entity names", 0, 3_191))
    clock.now = 13.0
    report(Step("embedding", "entity names", 500, 3_191))
    clock.now = 80.0
    report(Step("embedding", "facts", 0, 3_190))
    clock.now = 160.0  # the first 500 facts took 80 s to embed and write
    report(Step("writing", "facts", 500, 3_190))
    assert lines == [
        "import tatqa     2.0 s  reading files",
        "import tatqa     3.0 s  embedding entity names: 0 of 3,191 (0%)",
        "import tatqa    13.0 s  embedding entity names: 500 of 3,191 (15%), 50.0 entity names/s, ~54 s left",
        "import tatqa    80.0 s  embedding facts: 0 of 3,190 (0%)",
        "import tatqa   160.0 s  writing facts: 500 of 3,190 (15%), 6.2 facts/s, ~7 min left",
    ]


def test_no_rate_before_time_has_passed_on_the_items() -> None:
    """The bar this replaces started its clock at its first update: "500/3190 [00:00, 83886080.00facts/s]"."""
    clock, lines = FakeClock(), []
    report = ProgressLines("import tatqa", lines.append, clock=clock, since=0.0)
    clock.now = 80.0
    report(Step("writing", "facts", 500, 3_190))
    assert lines == ["import tatqa    80.0 s  writing facts: 500 of 3,190 (15%)"]
    clock.now = 100.0
    report(Step("writing", "facts", 1_000, 3_190))
    assert lines[-1] == "import tatqa   100.0 s  writing facts: 1,000 of 3,190 (31%), 50.0 facts/s, ~44 s left"


def test_the_last_step_says_nothing_is_left() -> None:
    clock, lines = FakeClock(), []
    report = ProgressLines("import mini", lines.append, clock=clock)
    report(Step("embedding", "facts", 0, 8))
    clock.now = 4.0
    report(Step("writing", "facts", 8, 8))
    assert lines[-1] == "import mini     4.0 s  writing facts: 8 of 8 (100%), 2.0 facts/s"
