"""Evaluation and tuning: labelled query sets, IR metrics (ir_measures), sweeps, significance, experiments."""

from pipeline.evaluation.judgments import EvalSet, available_eval_sets, load_eval_set, register_judgment_source
from pipeline.evaluation.records import SweepCancelled, SweepResult, SweepSpec
from pipeline.evaluation.sweep import run_sweep

__all__ = [
    "EvalSet",
    "SweepCancelled",
    "SweepResult",
    "SweepSpec",
    "available_eval_sets",
    "load_eval_set",
    "register_judgment_source",
    "run_sweep",
]
