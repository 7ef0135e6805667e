"""Every reference builds and passes its own validator (small and timed sizes); every validator rejects wrong
answers. Which (problem, exec_model) pairs run is described in conftest.py (all serial and omp, a rotating subset
of mpi, mpi+omp and kokkos)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.pcgbench_suite.conftest import build_executable, parse_driver_output, parse_validator_output
from workflow_scripts.measure import suite, toolchains

from .conftest import RUN_EXEC_MODELS, rotation_seed, run_driver, selected_pairs

PAIRS = selected_pairs(suite.load_suite())


@pytest.mark.multiprocess
@pytest.mark.parametrize(("name", "exec_model"), PAIRS, ids=[f"{n}-{m}" for n, m in PAIRS])
def test_reference_builds_and_validates(name, exec_model, problems, reference_executables):
    problem = next(p for p in problems if p.name == name)
    exe = reference_executables[(name, exec_model)]
    assert not isinstance(exe, str), f"reference of {name}/{exec_model} did not build:\n{exe}"
    proc = run_driver(problem, exec_model, exe)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = parse_driver_output(proc.stdout)
    assert result.valid, f"{name}/{exec_model}: {result.failure}"
    assert [c.size for c in result.validation] == [problem.sizes["small"]] * problem.small_validations + [
        problem.sizes["timed"]]
    assert result.exec_model == exec_model and result.problem == name
    assert len(result.times_s) == 1 and len(result.baseline_times_s) == 1
    assert result.threads == (2 if exec_model in ("omp", "mpi+omp", "kokkos") else 1)
    assert result.ranks == (2 if exec_model in ("mpi", "mpi+omp") else 1)


@pytest.mark.parametrize("name", [p.name for p in suite.load_suite()])
def test_validator_rejects_wrong_answers(name, problems, reference_executables):
    """Off-by-one, missing element and race-corrupted answers are rejected (or provably leave the answer
    unchanged, e.g. dropping an element that does not affect a minimum); at least two kinds must bite."""
    problem = next(p for p in problems if p.name == name)
    exe = reference_executables[(name, "serial")]
    assert not isinstance(exe, str), exe
    proc = run_driver(problem, "serial", exe, check_validator=True)
    verdicts = parse_validator_output(proc.stdout)
    assert set(verdicts) == {"off_by_one", "missing_element", "race"}
    assert all(v != "accepted" for v, _ in verdicts.values()), verdicts
    assert verdicts["off_by_one"][0] == "rejected", verdicts
    assert sum(v == "rejected" for v, _ in verdicts.values()) >= 2, verdicts


def test_wrong_body_fails_validation(problems, reference_executables, driver_build_dir, tmp_path):
    """A plausible wrong OpenMP body (its loop skips the last element) is caught by the driver at run time,
    not only by the validator self-check, and is not timed."""
    problem = next(p for p in problems if p.name == "reduce_average")
    body = ("  double sum = 0.0;\n  #pragma omp parallel for reduction(+ : sum)\n"
            "  for (std::size_t i = 0; i < x.size() - 1; ++i) sum += x[i];\n  return sum / x.size();\n}\n")
    exe = build_executable(problem, "omp", body, tmp_path, driver_build_dir)
    result = parse_driver_output(run_driver(problem, "omp", exe).stdout)
    assert not result.valid and "expected" in result.failure and result.times_s == ()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
def test_cuda_reference_compiles(problems, tmp_path):
    """nvcc compiles one rotating problem's CUDA reference (nvcc takes 10-30 s per file here; the whole set is
    checked by `python -m workflow_scripts.pcgbench check-references --models cuda`)."""
    problem = random.Random(rotation_seed()).choice(problems)
    src = tmp_path / f"sample{suite.sample_suffix('cuda')}"
    src.write_text(suite.sample_source(problem, "cuda", suite.reference_body(problem, "cuda")))
    proc = subprocess.run(toolchains.compile_sample_argv(problem, "cuda", src, tmp_path / "sample.o"),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{problem.name}: {proc.stderr[-2000:]}"
    assert toolchains.toolchain_status("cuda")[0] is Path("/dev/nvidia0").exists()


def test_rotation_covers_models():
    pairs = PAIRS
    for exec_model in RUN_EXEC_MODELS:
        assert any(m == exec_model for _, m in pairs), exec_model
