"""A sweep's records: what to run (`SweepSpec`), what came out per query and setting, and the metric names.

`pipeline/evaluation/sweep.py` runs a sweep into these; experiments store them, the page and the CLI show them.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Protocol

from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.evaluation.coverage import JudgmentKind, judgment_kind, unjudged_pairs
from pipeline.evaluation.recommend import Recommendation, pareto_front, recommend
from pipeline.evaluation.significance import PairedTest, paired_test_cached
from pipeline.ingest.fields import DATE_RULE, date_field
from pipeline.rerankers import RERANKERS
from pipeline.retrieval.recipes import CUSTOM, DEFAULT_RECIPE, RECIPE_NAMES, Recipe
from pipeline.retrieval.setting import MAX_CANDIDATES, MAX_TOP_K, Setting

FIXED = ("ndcg@10", "recall@10", "mrr@10")  # on the top 10 of the reranked list, whatever k
AT_K = ("ndcg", "recall", "precision", "hit")  # on the setting's top k: stored as "ndcg@k", ...
# quality metrics (higher is better), the ones a user can pick; the first, nDCG of what the setting hands on, is the
# default of the page, the CLI and the recommendation
METRIC_NAMES = (*(f"{kind}@k" for kind in AT_K), *FIXED)
DEFAULT_METRIC = METRIC_NAMES[0]
TOKENS = "tokens@k"  # the context the setting hands on: tokens of its top k facts, per query
STALE = "stale@k"  # share of the top k that would be superseded facts without the filter (when measured)
# share of the top k that has a judgment (any grade; an empty top k has nothing unjudged: 1): how far the
# setting's metrics rest on judged facts; an unjudged fact counts as not relevant, so a setting that finds facts
# nobody judged scores low for that alone
JUDGED = "judged@k"
EXTRA_NAMES = (TOKENS, JUDGED, STALE)  # per query and setting beside the quality metrics; STALE only when measured
# "ndcg@k'": the metric on the ranking with its unjudged facts left out (condensed lists, Sakai 2007), to compare
# settings whose coverage differs without counting the unjudged as not relevant
CONDENSED = "'"
CONDENSED_NAMES = tuple(f"{name}{CONDENSED}" for name in METRIC_NAMES)
# what every setting is tested against: what a Graphiti user ships when they call `Graphiti.search()`
BASELINE = Setting(Recipe.preset(DEFAULT_RECIPE), 50, "none", 10)
# settings (reranker x N x k with k <= N) one sweep may hold, on the page and in the CLI alike: each is reranked,
# tested and stored per query, and an experiment's per-query rows grow with it (uncapped, N 1..200 x k 1..100 on 3
# queries stored 90,300 rows, 322 MB)
MAX_GRID_SETTINGS = 200
# the queries a sweep runs on unless told otherwise (page and CLI): a seeded random sample, every query of a smaller
# set; a sweep over every query of TAT-QA took 110 minutes
DEFAULT_SAMPLE = 150
SIGNIFICANCE_METRIC = DEFAULT_METRIC  # the p-value stored with each setting (the page tests the metric picked)


class SweepCancelled(RetrievalLabError):
    """The sweep was cancelled; `partial`: the sweep over the queries it finished (None when none did)."""

    def __init__(self, message: str, partial: SweepResult | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


Progress = Callable[[int, int, str], None]  # (queries done, queries in all, message)


@dataclass(frozen=True)
class SweepSpec:
    group_id: str
    candidates: tuple[int, ...] = (10, 25, 50, 100)
    top_ks: tuple[int, ...] = (3, 5, 10)
    rerankers: tuple[str, ...] = ("none", "local")
    judgments: str = "labelled"
    split: str | None = None
    limit_queries: int | None = None
    sample: int | None = None  # a seeded random sample of this many queries (None: every query)
    seed: int = 0  # the sample's seed: the same seed and set pick the same queries
    include_superseded: bool = False
    use_cache: bool = True
    as_of: str | None = None  # ISO date: retrieve the facts valid then (graphiti's date filters)
    stale_rate: bool = False  # also rank every query without the superseded filter, to measure STALE
    recipes: tuple[str, ...] = (DEFAULT_RECIPE,)  # first-stage recipes by key (presets, `node-distance@UUID`)
    # (key, graphiti SearchConfig JSON) of each custom recipe among `recipes`: the spec, its job and its experiment
    # carry the very config that ran
    custom_recipes: tuple[tuple[str, str], ...] = ()
    trust_judge: bool = False  # use an LLM judge's grades even below the agreement threshold

    @classmethod
    def with_recipes(cls, group_id: str, recipes: tuple[Recipe, ...], **fields: Any) -> SweepSpec:
        """A spec over these recipes (presets and custom ones alike)."""
        customs = tuple((r.key, r.config_json) for r in recipes if r.name == CUSTOM)
        return cls(group_id, recipes=tuple(r.key for r in recipes), custom_recipes=customs, **fields)

    def recipe(self, key: str) -> Recipe:
        """The recipe a key of this spec names."""
        for custom_key, config_json in self.custom_recipes:
            if custom_key == key:
                return Recipe(CUSTOM, config_json)
        return Recipe.parse(key)

    def validate(self) -> SweepSpec:
        if not self.candidates or not self.top_ks or not self.rerankers or not self.recipes:
            raise InvalidInput("Pick at least one recipe, one candidate count, one top-k and one reranker.")
        for key, config_json in self.custom_recipes:
            if Recipe(CUSTOM, config_json).key != key:
                raise InvalidInput(f"Custom recipe {key!r} does not match its SearchConfig.")
        for text in self.recipes:
            if text.startswith(f"{CUSTOM}-") and not any(key == text for key, _ in self.custom_recipes):
                raise InvalidInput(f"Custom recipe {text!r} comes without its SearchConfig.")
            if self.recipe(text).key != text:
                raise InvalidInput(
                    f"A sweep takes recipes by name ({', '.join(RECIPE_NAMES)}) or as SearchConfig .json files; "
                    f"got {text!r}."
                )
        for n in self.candidates:
            if not 1 <= n <= MAX_CANDIDATES:
                raise InvalidInput(f"Candidates (N) must be between 1 and {MAX_CANDIDATES}; got {n}.")
        for k in self.top_ks:
            if not 1 <= k <= MAX_TOP_K:
                raise InvalidInput(f"Top-k must be between 1 and {MAX_TOP_K}; got {k}.")
        for name in self.rerankers:
            if name not in RERANKERS:
                raise InvalidInput(f"Unknown reranker {name!r}; choose one of: {', '.join(RERANKERS)}.")
        if not any(k <= n for n in self.candidates for k in self.top_ks):
            raise InvalidInput("Every top-k is larger than every candidate count: no setting to run.")
        settings = (
            len(set(self.recipes))
            * len(set(self.rerankers))
            * sum(k <= n for n in set(self.candidates) for k in set(self.top_ks))
        )
        if settings > MAX_GRID_SETTINGS:
            raise InvalidInput(
                f"A sweep grid may hold at most {MAX_GRID_SETTINGS} settings; this one has {settings:,} "
                "(recipes x rerankers x N x k, k at most N): pick fewer values."
            )
        if self.sample is not None and self.sample < 1:
            raise InvalidInput(f"The sample must be at least 1 query (0: every query); got {self.sample}.")
        if self.seed < 0:
            raise InvalidInput(f"The seed must be 0 or more; got {self.seed}.")
        as_of = self.as_of_datetime().date().isoformat() if self.as_of else None
        if as_of and self.include_superseded:
            raise InvalidInput("As of a date and including superseded facts do not go together: pick one.")
        return replace(
            self,
            candidates=tuple(sorted(set(self.candidates))),
            top_ks=tuple(sorted(set(self.top_ks))),
            rerankers=tuple(dict.fromkeys(self.rerankers)),
            recipes=tuple(dict.fromkeys(self.recipes)),
            custom_recipes=tuple(dict.fromkeys((k, c) for k, c in self.custom_recipes if k in self.recipes)),
            as_of=as_of,
        )

    def as_of_datetime(self) -> datetime | None:
        """The as-of date as an aware datetime (midnight UTC, as `query --as-of` reads it); None without one."""
        if not self.as_of:
            return None
        try:
            parsed = date_field(str(self.as_of), "as of")
        except ValueError:
            raise InvalidInput(f"As of {str(self.as_of)[:40]!r} is not a date; use {DATE_RULE}.") from None
        assert parsed is not None
        return parsed

    def grid(self) -> list[Setting]:
        """Every setting asked for, in sweep order (recipe, reranker, N, k); k > N is skipped (k cannot exceed N)."""
        recipes = [self.recipe(key) for key in self.recipes]
        return [
            Setting(recipe, n, r, k)
            for recipe in recipes
            for r in self.rerankers
            for n in self.candidates
            for k in self.top_ks
            if k <= n
        ]


@dataclass(frozen=True)
class QueryRow:
    setting: Setting  # stored under its `Setting.key`
    query_id: str
    metrics: dict[str, float]
    latency_ms: float
    ranking: tuple[str, ...]  # the top max(10, k) fact uuids

    def to_dict(self) -> dict[str, Any]:
        """As `eval --json` has always written a row: its setting by key."""
        return {
            "setting": self.setting.key,
            "query_id": self.query_id,
            "metrics": dict(self.metrics),
            "latency_ms": self.latency_ms,
            "ranking": self.ranking,
        }


@dataclass(frozen=True)
class SettingResult:
    setting: Setting
    reranker_model: str
    in_grid: bool  # False: the baseline, added because the grid lacks it
    metrics: dict[str, float]  # mean over queries
    by_type: dict[str, dict[str, float]]  # query type -> metric -> mean
    p50_ms: float
    p95_ms: float
    tokens: int
    cost_usd: float | None  # for all the queries of the sweep
    fallbacks: int  # queries where the reranker failed and first-stage order was kept
    p_value: float | None  # Fisher randomization against the baseline, on SIGNIFICANCE_METRIC
    p_ttest: float | None

    @property
    def key(self) -> str:
        return self.setting.key

    def to_dict(self) -> dict[str, Any]:
        """The flat shape `eval --json` has always written: the setting's fields beside its numbers."""
        s = self.setting
        data = {"key": s.key, "reranker": s.reranker, "candidates": s.candidates, "top_k": s.top_k}
        data.update({f.name: getattr(self, f.name) for f in fields(self) if f.name != "setting"})
        data["recipe"] = s.recipe.key
        return data

    def metric(self, name: str) -> float:
        return self.metrics.get(name, 0.0)  # an experiment saved before a metric existed: 0

    @property
    def judged(self) -> float | None:
        """judged@k; None for an experiment saved before coverage was measured."""
        return self.metrics.get(JUDGED)


@dataclass(frozen=True)
class SweepStats:
    queries: int
    pools_retrieved: int
    pools_cached: int
    rerank_calls: int
    rerank_cached: int
    seconds: float
    phases_ms: dict[str, float] = field(default_factory=dict)  # summed per phase over queries (pipeline/timing.py)


@dataclass(frozen=True)
class SweepResult:
    spec: SweepSpec
    eval_set: dict[str, Any]  # EvalSet.summary() of the queries evaluated
    created_at: str
    settings: tuple[SettingResult, ...]
    rows: tuple[QueryRow, ...]
    queries: dict[str, tuple[str, str]]  # query id -> (text, type)
    qrels: dict[str, dict[str, int]]
    facts: dict[str, str]  # uuid -> fact text, for every uuid in a ranking or a judgment
    stats: SweepStats
    baseline: str = field(default=BASELINE.key)  # its `Setting.key`
    fingerprint: dict[str, Any] = field(default_factory=dict)  # the run's graph, judgments and settings (issue 17)
    # empty: the sweep ran to its end. Else why it stopped ("reason": "cancelled"), the queries it finished of how
    # many ("queries", "of"), and what was not measured ("missing", e.g. "stale@k"): its numbers rest on those only
    partial: dict[str, Any] = field(default_factory=dict)

    @property
    def partial_text(self) -> str:
        """One line saying the run is partial and on what it rests ("" for a complete run)."""
        return partial_words(self.partial)

    def setting(self, key: str) -> SettingResult:
        for s in self.settings:
            if s.key == key:
                return s
        raise InvalidInput(f"No setting {key!r} in this sweep.")

    @property
    def grid(self) -> tuple[SettingResult, ...]:
        return tuple(s for s in self.settings if s.in_grid)

    def scores(self, metric: str) -> dict[str, list[float]]:
        """Per-query values of `metric` for every setting, aligned on the baseline's queries (paired tests)."""
        by_setting: dict[str, dict[str, float]] = {}
        for r in self.rows:
            by_setting.setdefault(r.setting.key, {})[r.query_id] = r.metrics.get(metric, 0.0)
        order = sorted(by_setting.get(self.baseline, {}))
        return {s.key: [by_setting.get(s.key, {}).get(q, 0.0) for q in order] for s in self.settings}

    def significance(self, metric: str = DEFAULT_METRIC) -> dict[str, PairedTest]:
        """Each setting but the baseline against the baseline on `metric`, query by query."""
        scores = self.scores(metric)
        base = scores[self.baseline]
        return {key: paired_test_cached(base, values) for key, values in scores.items() if key != self.baseline}

    @property
    def judgment_kind(self) -> JudgmentKind:
        """Sparse (only relevant facts listed) or pooled judgments, of the queries evaluated (`coverage.py`)."""
        return judgment_kind(self.qrels, self.spec.judgments)

    def recommendation(self, metric: str = DEFAULT_METRIC) -> Recommendation:
        """The recommendation; on a partial run its sentence starts by saying so; when a lead rests on unjudged
        facts, it ends with the pool that would settle it."""
        check_metric(metric)
        measured = not metric.endswith(CONDENSED) and all(s.judged is not None for s in self.settings)
        condensed = self.scores(metric + CONDENSED) if measured else None
        baseline = self.setting(self.baseline)
        rec = recommend(
            self.grid, baseline, self.scores(metric), metric, self.stats.queries, condensed, self.judgment_kind
        )
        gap = self.unjudged_gap(rec)
        if gap is not None:
            rec = replace(rec, sentence=f"{rec.sentence} {gap.text()}")
        if not self.partial:
            return rec
        return replace(rec, sentence=f"On a partial run ({self.partial_text}): {rec.sentence}")

    def unjudged_gap(self, rec: Recommendation) -> PoolGap | None:
        """What would settle a lead that rests on unjudged facts: the best such setting and the baseline, pooled."""
        return self.pool_gap((rec.unsure[0], self.baseline)) if rec.unsure else None

    def pool_gap(self, keys: tuple[str, ...]) -> PoolGap:
        """The (query, fact) pairs in these settings' top k that nobody judged (None when the result was read
        without its rankings), and the command that pools them."""
        settings = [self.setting(key) for key in keys]
        tops = [(s.setting.top_k, r) for s in settings for r in self.rows if r.setting == s.setting]
        pairs = unjudged_pairs(((r.query_id, r.ranking[:k]) for k, r in tops), self.qrels)
        ranked = any(r.ranking for _, r in tops)
        judgments = self.spec.judgments
        set_name = judgments.removeprefix(SET_PREFIX) if judgments.startswith(SET_PREFIX) else None
        texts = tuple(s.setting.text for s in settings)
        return PoolGap(pairs if ranked else None, self.spec.group_id, set_name, texts)

    def pareto(self, metric: str = DEFAULT_METRIC, beside: Sequence[SettingResult] = ()) -> set[str]:
        """Keys of the grid's settings (with those `beside` it) no other beats on quality, p50 and cost at once."""
        return pareto_front([*self.grid, *beside], metric)

    def per_query(self, key: str, metric: str) -> dict[str, float]:
        return {r.query_id: r.metrics.get(metric, 0.0) for r in self.rows if r.setting.key == key}

    def to_dict(self) -> dict[str, Any]:
        data = asdict(replace(self, settings=(), rows=()))
        data["settings"] = [s.to_dict() for s in self.settings]
        data["rows"] = [r.to_dict() for r in self.rows]
        data["recommendation"] = asdict(self.recommendation())
        return data


SET_PREFIX = "set:"  # `set:NAME`: the judgments of the deal's stored query set NAME


@dataclass(frozen=True)
class PoolGap:
    """Unjudged pairs in some settings' top k, to be pooled and judged before a comparison of them is sound."""

    pairs: int | None  # None: not counted (the rankings were not read)
    group_id: str
    set_name: str | None  # None: the deal's default query set
    settings: tuple[str, ...]  # `Setting.text` of each

    @property
    def command(self) -> str:
        where = f" --set {shlex.quote(self.set_name)}" if self.set_name else ""
        settings = "".join(f" --setting {shlex.quote(s)}" for s in self.settings)
        return f"python -m pipeline pool build --group {shlex.quote(self.group_id)}{where}{settings} --by NAME"

    def text(self) -> str:
        count = "" if self.pairs is None else f"{self.pairs:,} "
        return (
            f"Judge the {count}unjudged pairs in the two top k ({self.command}, or Build this pool on Evaluate & "
            "tune), then run again."
        )


def partial_words(partial: dict[str, Any]) -> str:
    """'cancelled after 12 of 150 queries' (and what was not measured); "" for a complete run."""
    if not partial:
        return ""
    line = f"{partial.get('reason', 'stopped')} after {partial.get('queries', '?')} of {partial.get('of', '?')} queries"
    if partial.get("missing"):
        line += f", {partial['missing']} not measured"
    return line


def check_metric(metric: str) -> str:
    if metric not in METRIC_NAMES and metric not in CONDENSED_NAMES:
        raise InvalidInput(
            f"Unknown metric {metric!r}; one of: {', '.join(METRIC_NAMES)} "
            f"(add {CONDENSED} for the condensed metric, unjudged facts left out: ndcg@k{CONDENSED})."
        )
    return metric
