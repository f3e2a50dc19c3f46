"""Several groups in ONE FalkorDB graph, written by graphiti's own `add_episode` (tests/support/graphiti_deal.py)
with the scripted LLM: the graph shape of older graphiti versions and of deployments that keep every group in
graphiti's default graph `default_db`.

Three small companies, one per group, each told in the same words: "<company> reported FY2025 revenue of X"
restated in a Q&A answer (graphiti's invalidation supersedes the first figure) and where it is headquartered.
Every group has an entity named "FY2025 revenue", so a read that forgets the group mixes companies at once.

- `legacy-alpha` and `legacy-beta` through `OneGraphFalkorDriver`: graphiti's FalkorDriver as older graphiti
  versions behaved, writing every group_id into the driver's own graph (today's `clone(database=group_id)` gives
  each group_id a graph of its name);
- `_`, graphiti's default group on FalkorDB, through graphiti's plain FalkorDriver: its `clone('_')` puts that
  group in `default_db` by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from falkordb.asyncio import FalkorDB
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.driver.falkordb_driver import FalkorDriver
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.nodes import EpisodeType

from pipeline.graph.graphiti_compat import skip_index_creation
from tests.support.graphiti_deal import GraphitiDeal, build_graphiti_deal
from tests.support.scripted_llm import Script, ScriptedEpisode, ScriptedFact

SHARED_GRAPH = "default_db"  # graphiti's FalkorDriver's database when none is given
ALPHA, BETA, DEFAULT_GROUP = "legacy-alpha", "legacy-beta", "_"


@dataclass(frozen=True)
class Company:
    group_id: str
    name: str
    city: str
    first: str  # the CIM's FY2025 revenue
    restated: str  # the Q&A's restated FY2025 revenue

    @property
    def cim_fact(self) -> str:
        return f"{self.name} reported FY2025 revenue of {self.first}"

    @property
    def restated_fact(self) -> str:
        return f"{self.name}'s FY2025 revenue is {self.restated}, restated after the audit from {self.first}"

    @property
    def city_fact(self) -> str:
        return f"{self.name} is headquartered in {self.city}"


COMPANIES = (
    Company(ALPHA, "Alder Robotics", "Denver", "$4.9M", "$5.2M"),
    Company(BETA, "Birch Foods", "Portland", "$7.1M", "$7.4M"),
    Company(DEFAULT_GROUP, "Cobalt Mining", "Reno", "$2.3M", "$2.6M"),
)


def _t(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def company_script(c: Company) -> Script:
    return Script(
        episodes=(
            ScriptedEpisode(
                name=f"{c.name} CIM p3",
                source=EpisodeType.text,
                source_description="From: cim.pdf | Page 3",
                reference_time=_t("2026-01-12T09:00:00"),
                content=f"{c.name} reported FY2025 revenue of {c.first}. {c.name} is headquartered in {c.city}.",
                entities=(c.name, "FY2025 revenue", c.city),
                facts=(
                    ScriptedFact(c.name, "FY2025 revenue", "REPORTED_REVENUE", c.cim_fact, "2026-01-12T09:00:00Z"),
                    ScriptedFact(c.name, c.city, "HEADQUARTERED_IN", c.city_fact, "2026-01-12T09:00:00Z"),
                ),
            ),
            ScriptedEpisode(
                name=f"{c.name} Q&A 4",
                source=EpisodeType.text,
                source_description="Q&A answer | Question 4",
                reference_time=_t("2026-03-02T16:00:00"),
                content=f"Q: Which FY2025 revenue is right?\nA: {c.restated_fact}.",
                entities=(c.name, "FY2025 revenue"),
                facts=(
                    ScriptedFact(
                        c.name,
                        "FY2025 revenue",
                        "REPORTED_REVENUE",
                        c.restated_fact,
                        "2026-03-02T16:00:00Z",
                        contradicts=(c.cim_fact,),
                    ),
                ),
            ),
        )
    )


class OneGraphFalkorDriver(FalkorDriver):
    """graphiti's FalkorDriver as older graphiti versions used it: every group_id is written into this driver's
    own graph, not into a graph named after the group."""

    def clone(self, database: str) -> GraphDriver:
        return self


async def build_shared_graph(falkor: FalkorDB, embedder: EmbedderClient) -> dict[str, GraphitiDeal]:
    """The three companies' groups, ingested by graphiti into `default_db` (which must hold none of them)."""
    one_graph = skip_index_creation(OneGraphFalkorDriver(falkor_db=falkor, database=SHARED_GRAPH))
    graphiti_default = skip_index_creation(FalkorDriver(falkor_db=falkor, database=SHARED_GRAPH))
    built: dict[str, GraphitiDeal] = {}
    for company in COMPANIES:
        driver = graphiti_default if company.group_id == DEFAULT_GROUP else one_graph
        built[company.group_id] = await build_graphiti_deal(driver, embedder, company.group_id, company_script(company))
    return built
