"""`python -m pipeline gate` as CI runs it: a real process on the demo deal, its exit code, its last line, the JUnit
file and the baseline file. Independent commands run at once (each process spends seconds importing)."""

from __future__ import annotations

import json
import secrets
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from tests.support.gate_cli import Done
from tests.support.gate_cli import gate as run_gate

SETTING = "graphiti-default:local:50:10"
WORSE = "bm25:none:1:1"  # one fact handed on: ndcg@10 0.51 -> 0.20 on the demo's 20 sampled queries


def gate(*argvs: Sequence[str]) -> list[Done]:
    return run_gate("demo", *argvs)


@pytest.fixture(scope="module")
def accepted(demo: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Done, Path]:
    """The baseline setting against itself on 20 sampled queries, saved as the accepted baseline."""
    folder = tmp_path_factory.mktemp("gate")
    (done,) = gate(
        [
            *("--baseline", SETTING, "--candidate", SETTING, "--sample", "20"),
            *("--junit", str(folder / "self.xml"), "--save-baseline", str(folder / "baseline.json")),
        ]
    )
    return done, folder


def test_the_baseline_against_itself_holds_and_is_saved(accepted: tuple[Done, Path]) -> None:
    done, folder = accepted
    assert done.code == 0, done.err
    lines = done.out.strip().splitlines()
    assert lines[-1] == "gate holds"
    assert "PASS quality: ndcg@10 " in done.out and "(+0.000, 95% CI +0.000 to +0.000, 20 queries)" in done.out
    assert "PASS coverage: sparse judgments" in done.out  # the demo's labels list relevant facts only
    suite = ET.parse(folder / "self.xml").getroot()
    assert suite.get("name") == "retrieval-gate" and suite.get("failures") == "0"
    assert [c.get("name") for c in suite.iter("testcase")] == ["quality", "coverage"]
    saved = json.loads((folder / "baseline.json").read_text(encoding="utf-8"))
    assert saved["setting"]["recipe"] == "graphiti-default" and saved["metric"] == "ndcg@10"
    assert len(saved["values"]) == len(saved["judged"]) == 20 and saved["selection"]["sample"] == 20
    assert saved["judgment_kind"] == "sparse" and saved["judgments"]["hash"]
    assert not list(folder.glob(".*partial"))  # written whole: nothing left beside


def test_a_saved_baseline_holds_on_the_same_candidate_and_catches_a_worse_one(accepted: tuple[Done, Path]) -> None:
    _, folder = accepted
    baseline = str(folder / "baseline.json")
    same, worse = gate(
        ["--baseline", baseline, "--candidate", SETTING, "--junit", str(folder / "same.xml"), "--json"],
        ["--baseline", baseline, "--candidate", WORSE, "--junit", str(folder / "worse.xml")],
    )
    assert same.code == 0, same.err
    report = json.loads(same.out)
    assert report["holds"] and report["queries"] == 20 and report["checks"][0]["numbers"]["difference"] == 0.0
    assert ET.parse(folder / "same.xml").getroot().get("failures") == "0"

    assert worse.code == 1, worse.err
    lines = worse.out.strip().splitlines()
    assert lines[-1] == "gate fails: quality"
    assert any(
        line.startswith("FAIL quality: ndcg@10 ") and "beyond the allowed drop of 0.010" in line for line in lines
    )
    cases = ET.parse(folder / "worse.xml").getroot().findall("testcase")
    assert [c.find("failure") is not None for c in cases] == [True, False]
    assert "Traceback" not in worse.err


def test_bad_input_is_one_line_exit_2_and_nothing_written(demo: str, tmp_path: Path) -> None:
    unreadable = tmp_path / "unreadable.json"
    unreadable.write_bytes(b'{"gate_baseline": 1, "group": "\xff\xfe"}')
    outputs = ["--junit", str(tmp_path / "gate.xml"), "--save-baseline", str(tmp_path / "saved.json")]
    cases = {
        "--candidate must be [RECIPE:]RERANKER:N:K": ["--baseline", SETTING, "--candidate", "nonsense:1:2", *outputs],
        "cannot be written": ["--baseline", SETTING, "--candidate", SETTING, "--junit", str(tmp_path / "no" / "g.xml")],
        "cannot be read (UnicodeDecodeError)": ["--baseline", str(unreadable), "--candidate", SETTING, *outputs],
    }
    for (message, _), done in zip(cases.items(), gate(*cases.values()), strict=True):
        assert done.code == 2, (message, done.err)
        assert done.out == ""
        (line,) = done.err.strip().splitlines()  # one line, no traceback
        assert line.startswith("error: ") and message in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["unreadable.json"]  # no JUnit, no baseline, no partial


# in this process (`main`, as test_cli_bad_input.py runs commands): refusals that need no process of their own


def test_a_baseline_file_fixes_the_deal_the_metric_and_the_queries(
    accepted: tuple[Done, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = str(accepted[1] / "baseline.json")
    cases = {
        "no such file": ["--baseline", str(tmp_path / "missing.json"), "--candidate", SETTING],
        "--sample 5 differs from baseline file": ["--baseline", baseline, "--candidate", SETTING, "--sample", "5"],
        "holds ndcg@10 values, not recall@k": ["--baseline", baseline, "--candidate", SETTING, "--metric", "recall@k"],
        "was saved on deal 'demo', not 'other'": ["--baseline", baseline, "--candidate", SETTING, "--group", "other"],
        "not a setting (top_k: Field required)": ["--baseline", SETTING, "--candidate", str(accepted[1] / "c.json")],
    }
    (accepted[1] / "c.json").write_text('{"recipe": "vector", "candidates": 50, "reranker": "none"}')
    for message, argv in cases.items():
        assert main(["gate", "--group", "demo", *argv, "--junit", str(tmp_path / "g.xml")]) == 2, message
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("error: ") and message in line
    assert not (tmp_path / "g.xml").exists()


@pytest.fixture
async def experiment(lab: Lab, demo: str) -> int:
    """A saved sweep of two settings on 10 sampled queries."""
    spec = SweepSpec(demo, candidates=(50,), top_ks=(10,), rerankers=("none", "local"), sample=10, seed=4)
    return save_experiment(lab.store, await run_sweep(lab, spec), f"gate test {secrets.token_hex(4)}")


def test_an_experiment_baseline_ranks_the_candidate_on_its_queries(
    experiment: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate", "--group", "demo", "--baseline", str(experiment), "--candidate", SETTING, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["baseline"]["from"] == f"experiment #{experiment}'s recommended setting"
    assert report["queries"] == 10 and report["selection"]["sample"] == 10 and report["selection"]["seed"] == 4
    assert report["holds"] and [c["name"] for c in report["checks"]] == ["quality", "coverage"]
    assert report["differs"] == []  # ranked with the software the experiment ran with


def test_a_baseline_measured_with_other_software_says_what_differs(
    accepted: tuple[Done, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, folder = accepted
    stored = json.loads((folder / "baseline.json").read_text())
    embedder = stored["manifest"]["embedder"]
    assert embedder and stored["manifest"]["graphiti_core"]  # recorded with the numbers
    stored["manifest"]["embedder"] = "voyage:voyage-finance-2 (1024-d)"
    other = folder / "other-embedder.json"
    other.write_text(json.dumps(stored))
    assert main(["gate", "--group", "demo", "--baseline", str(other), "--candidate", SETTING]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"note: The embedder changed: baseline voyage:voyage-finance-2 (1024-d), candidate {embedder}." in out
    assert out[-1] == "gate holds"
