"""The reference check (workflow_scripts/pcgbench/reference_check.py): its summary arithmetic on made-up rows,
a real run on one problem, and the Snakemake rule (step reference_speedups.py) that writes
results/pcgbench/reference_speedups.{csv,json}."""

from __future__ import annotations

import csv
import json
import re
import shutil
from concurrent.futures import Future
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_snakemake
from workflow_scripts.measure import (
    BUILD_ONLY,
    CRASH,
    OK,
    UNAVAILABLE,
    VERDICT_TIMEOUT,
    VERDICTS,
    WRONG_ANSWER,
    SandboxFailure,
    suite,
)
from workflow_scripts.pcgbench import reference_check as rs

REPO = Path(__file__).resolve().parents[2]


def _row(problem, exec_model, status, threads=1, ranks=1, speedup=None):
    row = {column: None for column in rs.COLUMNS}
    row.update(problem=problem, problem_type="reduce", model=exec_model, status=status, ranks=ranks, threads=threads,
               valid={OK: True, WRONG_ANSWER: False}.get(status), speedup_median=speedup, detail="")
    return row


@pytest.mark.parametrize(("speedups", "median", "met"), [
    ([0.5, 1.2, 1.4, 2.0, 3.0], 1.4, True),
    ([0.5, 1.2, 1.25, 2.0], 1.225, False),
    ([1.3], 1.3, True),
])  # fmt: skip
def test_summary_target_is_the_median_omp_speedup_on_two_threads(speedups, median, met):
    rows = []
    for i, s in enumerate(speedups):
        rows.append(_row(f"p{i}", "omp", OK, threads=1, speedup=10.0))  # 1 thread: not the target's
        rows.append(_row(f"p{i}", "omp", OK, threads=2, speedup=s))
    target = rs.summarise(rows)["target"]
    assert target["median_speedup"] == pytest.approx(median)
    assert target["met"] is met
    assert target["problems_timed"] == target["problems_selected"] == len(speedups)
    assert target["lowest"][0] == ("p0", speedups[0])  # sorted ascending: p0 is the slowest


def test_summary_counts_a_pair_by_its_worst_row_and_lists_failures():
    rows = [_row("a", "omp", OK, threads=1, speedup=1.0), _row("a", "omp", WRONG_ANSWER, threads=2),
            _row("b", "omp", OK, threads=1, speedup=1.0), _row("b", "omp", OK, threads=2, speedup=1.6),
            _row("a", "cuda", BUILD_ONLY, threads=None, ranks=None),
            _row("a", "hip", UNAVAILABLE, threads=None, ranks=None)]  # fmt: skip
    summary = rs.summarise(rows)
    assert summary["counts"] == {"omp": {"wrong_answer": 1, "ok": 1}, "cuda": {"build_only": 1},
                                 "hip": {"unavailable": 1}}  # fmt: skip
    assert not summary["all_references_pass"]
    assert [(f["problem"], f["threads"], f["status"]) for f in summary["failed"]] == [("a", 2, "wrong_answer")]
    # The wrong 2-thread run is left out of the median, and counted as selected but not timed.
    assert summary["target"]["median_speedup"] == 1.6
    assert (summary["target"]["problems_timed"], summary["target"]["problems_selected"]) == (1, 2)
    assert summary["median_speedup"]["omp"]["1x1"] == {"median_speedup": 1.0, "problems": 2}


def test_a_failed_run_is_its_own_verdict_and_a_pair_counts_a_wrong_answer_first():
    rows = [_row("a", "omp", CRASH, threads=1), _row("a", "omp", WRONG_ANSWER, threads=2),
            _row("b", "omp", VERDICT_TIMEOUT, threads=1)]  # fmt: skip
    summary = rs.summarise(rows)
    assert summary["counts"] == {"omp": {"wrong_answer": 1, "timeout": 1}}
    assert [f["status"] for f in summary["failed"]] == ["crash", "wrong_answer", "timeout"]


def test_a_driver_that_does_not_compile_is_a_build_error_and_a_broken_sandbox_stops_the_check():
    problem = suite.get_problem("reduce_average")
    driver = Future()
    driver.set_exception(RuntimeError("driver for reduce_average/omp failed to compile"))
    exe, row = rs._built(problem, "omp", driver)
    assert exe is None and (row["status"], row["valid"]) == ("build_error", None) and "driver" in row["detail"]
    sandbox = Future()
    sandbox.set_exception(SandboxFailure("bwrap: cannot mount /proc"))
    with pytest.raises(SandboxFailure):  # the harness's failure, never a verdict on the reference
        rs._built(problem, "omp", sandbox)


def test_no_omp_rows_means_no_verdict_on_the_target():
    target = rs.summarise([_row("a", "serial", OK, speedup=1.0)])["target"]
    assert target["median_speedup"] is None and target["met"] is None


@pytest.mark.multiprocess
def test_check_selection_checks_the_selected_references_and_writes_table_and_summary(tmp_path):
    """A real run: reduce_average's serial and OpenMP references at 1 and 2 threads, and HIP reported as
    unavailable (no hipcc here) rather than failed."""
    evaluate = {"max_cores": 2, "warmup": 0, "reps": 2, "size": "timed", "run_timeout_s": 120, "run_nice": 0,
                "cache_dir": str(tmp_path / "cache")}  # fmt: skip
    exec_models = ["serial", "omp"] + (["hip"] if shutil.which("hipcc") is None else [])
    summary = rs.check_selection(tmp_path / "t.csv", tmp_path / "t.json", selection=["reduce_average"],
                                 exec_models=exec_models, evaluate=evaluate, seed=3)  # fmt: skip
    with open(tmp_path / "t.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == rs.COLUMNS
    configs = [(r["model"], r["ranks"], r["threads"], r["status"]) for r in rows]
    assert configs[:3] == [("serial", "1", "1", "ok"), ("omp", "1", "1", "ok"), ("omp", "1", "2", "ok")]
    if "hip" in exec_models:
        assert configs[3] == ("hip", "", "", "unavailable") and "hipcc" in rows[3]["detail"]
    assert all(float(r["speedup_median"]) > 0 and r["valid"] == "True" for r in rows[:3])
    assert summary["all_references_pass"] and summary["target"]["problems_timed"] == 1
    assert json.loads((tmp_path / "t.json").read_text())["target"] == json.loads(json.dumps(summary["target"]))
    assert (tmp_path / "t.csv.prov.json").exists() and (tmp_path / "t.json.prov.json").exists()
    assert any((tmp_path / "cache" / "exes").iterdir())  # built in the harness's build cache, as samples are


@pytest.mark.multiprocess
def test_a_wrong_reference_is_a_failure_not_a_crash(tmp_path):
    """A suite whose reference is wrong (copied, then its OpenMP body broken) is reported as a wrong answer."""
    root = tmp_path / "suite"
    shutil.copytree(suite.DRIVERS_DIR, root / "drivers")
    shutil.copytree(suite.DATA_ROOT / "reduce_average", root / "reduce_average")
    (root / "reduce_average" / "ref_omp.cpp").write_text("  return x.empty() ? 0.0 : x[0];\n}\n")
    problem = suite.load_problem(root / "reduce_average")
    cfg = rs.CheckConfig(warmup=0, reps=1, fixed=(1, 2))
    rows = rs.check_references([problem], ["omp"], cfg, tmp_path / "drivers")
    assert [(r["status"], r["valid"]) for r in rows] == [("wrong_answer", False)]
    assert "expected" in rows[0]["detail"]
    assert not rs.summarise(rows)["all_references_pass"]


@pytest.mark.integration
def test_snakemake_rule_writes_the_reference_speedups(tmp_path):
    for name in ("Snakefile", "rules", "workflow_scripts", "config", "data", "profiles", "requirements.txt"):
        source = REPO / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    # One shard per model (pcgbench.shards), merged into the one table.
    (tmp_path / "tiny.yaml").write_text("pcgbench:\n  problems: [reduce_average]\n  models: [serial, omp]\n"
                                        "  shards: {by_model: true}\n"
                                        "  evaluate: {max_cores: 2}\n"
                                        "measure: {warmup: 0, reps: 2, run_timeout_s: 60}\n")
    target = "results/pcgbench/reference_speedups.csv"
    proc = run_snakemake(tmp_path, "--configfile=tiny.yaml", target, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads((tmp_path / "results/pcgbench/reference_speedups.json").read_text())
    assert summary["problems"] == ["reduce_average"] and summary["counts"] == {"serial": {"ok": 1},
                                                                               "omp": {"ok": 1}}
    assert summary["target"]["problems_timed"] == 1 and summary["target"]["speedup"] == rs.TARGET_SPEEDUP
    for shard in ("serial", "omp"):
        rows = json.loads((tmp_path / f"results/pcgbench/reference_speedups/{shard}.json").read_text())["rows"]
        assert {row["model"] for row in rows} == {shard}
    for name in ("logs/reference_speedups.log", "benchmarks/reference_speedups.tsv"):
        assert (tmp_path / "results/pcgbench" / name).exists()


def test_the_claims_read_the_reference_counts_by_their_statuses(repo_root):
    """data/claims.yaml reads results/pcgbench/summary.json's reference counts by status: each status it names is
    a word of the verdict vocabulary the reference check writes (a renamed word would fail only the claims step of
    a full run)."""
    claims = yaml.safe_load((repo_root / "data" / "claims.yaml").read_text())
    text = json.dumps(claims)
    named = re.findall(r"references/counts/[^/\"]+/(\w+)", text)
    assert named, "no claim reads the reference counts any more: drop this test"
    assert set(named) <= {*VERDICTS, BUILD_ONLY, UNAVAILABLE}, named
