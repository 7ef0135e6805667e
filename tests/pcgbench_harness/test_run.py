"""The package's public API: build a program, run it once in the sandbox under a RunProtocol, read its verdict
and times; the command a protocol runs; the names the package exports."""

from pathlib import Path

import pytest

import workflow_scripts.pcgbench as pcgbench
from workflow_scripts.pcgbench import (
    OK,
    WRONG_ANSWER,
    BuildCache,
    BuildConfig,
    BuildRequest,
    RunProtocol,
    SandboxLimits,
    run_program,
    suite,
)

PROTOCOL = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=2, nice=0)


@pytest.fixture(scope="module")
def built(cache_dir, problem):
    """The problem's OpenMP reference and a body that returns a wrong answer, both built."""
    bodies = {"reference": suite.reference_body(problem, "omp"),
              "wrong": suite.reference_body(problem, "omp").replace("return", "return 1 +", 1)}  # fmt: skip
    results = BuildCache(BuildConfig(cache_dir=cache_dir, jobs=2)).build_all(
        [BuildRequest(problem=problem, model="omp", body=body) for body in bodies.values()])
    assert all(r.ok for r in results), [r.log for r in results]
    return dict(zip(bodies, results, strict=True))


def test_a_reference_runs_ok_with_its_times(built, problem):
    run = run_program(problem, "omp", built["reference"].exe, PROTOCOL, SandboxLimits(wall_s=30.0, cpu_s=20))
    assert run.verdict == OK, run.detail
    assert run.detail == "" and run.driver_failure is None
    assert len(run.times_s) == len(run.baseline_times_s) == PROTOCOL.reps
    assert min(run.times_s) > 0 and min(run.baseline_times_s) > 0
    assert run.wall_s >= sum(run.times_s) and run.result.returncode == 0


def test_a_wrong_answer_says_what_the_driver_reported(built, problem):
    run = run_program(problem, "omp", built["wrong"].exe, PROTOCOL, SandboxLimits(wall_s=30.0, cpu_s=20))
    assert run.verdict == WRONG_ANSWER
    assert run.detail == run.driver_failure != "" and run.times_s == () and run.baseline_times_s == ()


def test_the_command_is_the_suites_then_extra_env_then_thread_placement(problem):
    protocol = RunProtocol(warmup=1, reps=3, validations=2, seed=7, size="timed", threads=2,
                           extra_env={"GLIBC_TUNABLES": "x", "OMP_WAIT_POLICY": "passive"})  # fmt: skip
    argv, env = protocol.command(problem, "omp", Path("/tmp/sample.exe"))
    suite_argv, suite_env = suite.run_argv(problem, "omp", Path("/tmp/sample.exe"), ranks=1, threads=2, seed=7,
                                           warmup=1, reps=3, size="timed", validations=2)  # fmt: skip
    assert argv == suite_argv
    assert env == suite_env | {"GLIBC_TUNABLES": "x"} | pcgbench.placement_env("omp")
    assert env["OMP_WAIT_POLICY"] == "active"  # the placement the race-catching protocol needs always wins


def test_stress_validations_follow_the_regular_ones(built, problem):
    """Stress validations (more threads than cores) add validated inputs at the timed size; a correct program
    passes them and is still timed."""
    stressed = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=2, nice=0, stress_validations=2,
                           stress_threads=6)  # fmt: skip
    run = run_program(problem, "omp", built["reference"].exe, stressed, SandboxLimits(wall_s=30.0, cpu_s=20))
    assert run.verdict == OK, run.detail
    checks = suite.parse_driver_output(run.result.stdout).validation
    assert [c.size for c in checks] == [problem.sizes["small"]] + [problem.sizes["timed"]] * 3
    assert len(run.times_s) == stressed.reps


@pytest.mark.parametrize(("model", "threads", "flagged"), [("omp", 2, True), ("omp", 1, True), ("serial", 1, False),
                                                           ("mpi+omp", 1, True), ("mpi", 1, False)])
def test_only_openmp_models_get_stress_validations(problem, model, threads, flagged):
    protocol = RunProtocol(warmup=1, reps=3, validations=2, seed=7, threads=threads, stress_validations=4,
                           stress_threads=8)  # fmt: skip
    argv, _ = protocol.command(problem, model, Path("/tmp/sample.exe"))
    assert (argv[-4:] == ["--stress-threads", "8", "--stress-validations", "4"]) == flagged
    assert ("--stress-threads" in argv) == flagged


def test_the_package_exports_its_api():
    assert set(pcgbench.__all__) == {
        "BuildCache", "BuildConfig", "BuildRequest", "BuildResult",
        "RunProtocol", "ProgramRun", "run_program", "SandboxLimits", "check_tools", "placement_env", "summarise_times",
        "check_races", "RaceCheck",
        "check_sandbox", "SandboxUnavailable", "SandboxFailure",
        "BUILD_ERROR", "NO_PARALLELISM", "VERDICT_TIMEOUT", "CRASH", "KILLED_RESOURCE_LIMIT", "WRONG_ANSWER", "OK",
        "PROMPT_MISMATCH", "RACE_DETECTED", "VERDICTS",
    }  # fmt: skip
    assert all(hasattr(pcgbench, name) for name in pcgbench.__all__)
    assert set(pcgbench.VERDICTS) >= {pcgbench.OK, pcgbench.WRONG_ANSWER, pcgbench.CRASH, pcgbench.BUILD_ERROR}
