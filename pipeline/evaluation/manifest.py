"""What an experiment ran with besides its settings and data: the software and models whose change can move its
numbers. Stored in the run's fingerprint (`fingerprint["manifest"]`), and compared line by line when two
experiments (or a gate's baseline and candidate) are set side by side: "the embedder changed: ...".

- graphiti-core's version (its search code is the first stage), the graph backend (embedded FalkorDB, a FalkorDB
  server, Neo4j), the embedder (model and vector size), each reranker's model;
- the LLM judge's model and prompt version, when the judgments include its grades;
- the sample, seed, split and as-of date the queries were chosen and ranked with.

The graph itself and the judgments are the fingerprint's other parts (`fingerprint.py`).
"""

from __future__ import annotations

from typing import Any

from pipeline.evaluation.records import SweepSpec

JUDGE_SOURCES = ("judge", "verdicts+judge")  # judgment sources that carry the LLM judge's grades
# (key, words) of the software and models, in the order differences are said; the sample and the as-of date are
# recorded too, but said with the rest of a run's setup (`compare.setup_differences`)
PARTS = (
    ("graphiti_core", "graphiti-core"),
    ("backend", "the graph backend"),
    ("embedder", "the embedder"),
    ("rerankers", "the reranker models"),
    ("judge", "the LLM judge"),
)


def run_manifest(
    spec: SweepSpec, software: dict[str, str], rerankers: dict[str, str], judge_model: str
) -> dict[str, Any]:
    """`software`: `Lab.software()` (graphiti-core, backend, embedder); `rerankers`: name -> model ("" for none);
    `judge_model`: the configured judge, recorded only when the judgments include its grades."""
    from pipeline.judge.prompt import PROMPT_VERSION

    judged_by = spec.judgments in JUDGE_SOURCES
    return {
        **software,
        "rerankers": {name: model or "-" for name, model in sorted(rerankers.items())},
        "judge": f"{judge_model}, prompt {PROMPT_VERSION}" if judged_by else "-",
        "queries": f"split {spec.split or 'all'}, sample {spec.sample or 'all'}, seed {spec.seed}"
        + (f", first {spec.limit_queries}" if spec.limit_queries else ""),
        "as_of": spec.as_of or "today",
    }


def _words(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
    return str(value)


def manifest_differences(a: dict[str, Any], b: dict[str, Any], names: tuple[str, str] = ("A", "B")) -> list[str]:
    """One line per part that differs ("The embedder changed: A ..., B ..."); a part one side never recorded
    (an experiment saved before manifests) is not compared, and one line says so."""
    first, second = names
    if not a or not b:
        missing = " and ".join(n for n, m in ((first, a), (second, b)) if not m)
        return [f"{missing} recorded no manifest (saved before manifests): its software and models are unknown."]
    out = []
    for key, words in PARTS:
        if key == "rerankers":  # runs of other rerankers differ in which ran, not in their models: the shared ones
            shared = sorted(set(a.get(key, {})) & set(b.get(key, {})))
            a, b = {**a, key: {n: a[key][n] for n in shared}}, {**b, key: {n: b[key][n] for n in shared}}
        if key in a and key in b and a[key] != b[key]:
            said = words[0].upper() + words[1:] if words.startswith("the ") else words  # a package keeps its name
            out.append(f"{said} changed: {first} {_words(a[key])}, {second} {_words(b[key])}.")
    return out
