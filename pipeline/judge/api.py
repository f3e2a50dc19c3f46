"""The LLM judge as the pages and the CLI use it: `lab.judge` (its configuration from the lab's settings, its
prompt). Running it on a pool is `lab.pools.judge`; the values it hands out are in `pipeline.api.models`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.judge.client import JudgeConfig, judge_config
from pipeline.judge.prompt import prompt_text

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Judge:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    def config(self) -> JudgeConfig:
        """The judge's configuration from the settings; no key is one line naming OPENAI_API_KEY."""
        return judge_config(self.lab.settings)

    prompt_text = staticmethod(prompt_text)
