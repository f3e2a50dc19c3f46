"""The retrieval-quality regression gate as `pipeline gate` uses it: `lab.gate`. A candidate setting ranked against
a baseline on the same queries, the checks, and the baseline and JUnit files; the values it hands out are in
`pipeline.api.models`, the logic lives in the modules named beside each call."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pipeline.gate import checks, files, ranking, records
from pipeline.gate.records import Selection, Side
from pipeline.retrieval.setting import Setting

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Gate:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    async def rank_sides(
        self,
        group_id: str,
        sides: Sequence[tuple[Setting, str, bool]],
        selection: Selection,
        metric: str,
        expected: Mapping[str, Any] | None = None,
        say: Callable[[str], None] = lambda _line: None,
    ) -> ranking.Ranking:
        """Rank each (setting, name, fresh) over the selection's queries with the sweep engine, nothing saved."""
        return await ranking.rank_sides(self.lab, group_id, sides, selection, metric, expected, say)

    def experiment_baseline(
        self, exp_id: int, group_id: str, metric: str
    ) -> tuple[Side, Selection, dict[str, Any] | None, dict[str, Any]]:
        """An experiment's recommended setting with its stored per-query numbers, selection, judgments version and
        manifest."""
        return ranking.experiment_baseline(self.lab.store, exp_id, group_id, metric)

    # --- the checks (checks.py) and the files (files.py, records.py) ---

    evaluate = staticmethod(checks.evaluate)
    pool_gap = staticmethod(checks.pool_gap)
    is_baseline_file = staticmethod(files.is_baseline_file)
    baseline_to_dict = staticmethod(files.baseline_to_dict)
    baseline_from_dict = staticmethod(files.baseline_from_dict)
    junit_xml = staticmethod(files.junit_xml)
    command_name = staticmethod(records.command_name)
