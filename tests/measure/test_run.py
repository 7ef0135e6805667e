"""The measurement engine's public API: build a program, run it once in the sandbox under a RunProtocol, read its verdict
and times; the command a protocol runs; the names the package exports."""

import dataclasses
import json
import re
from pathlib import Path

import pytest

import workflow_scripts.measure as measure
from workflow_scripts.measure import (
    OK,
    TAMPERING,
    WRONG_ANSWER,
    BuildCache,
    BuildConfig,
    BuildRequest,
    RunProtocol,
    SandboxLimits,
    driver_program,
    run_program,
    suite,
)

FORGED = ('PCGBENCH_RESULT {"problem":"x","model":"omp","ranks":1,"threads":1,"seed":1,"timed_size":2,"valid":true,'
          '"failure":"","validation":[],"times_s":[1e-9],"baseline_times_s":[1.0]}\n')
# The threads of the process (COUNT_THREADS says how).
THREADS_OF_PROCESS = "  int pcg_threads(); const int threads = pcg_threads();\n"
COUNT_THREADS = """
#include <ctime>
#include <unistd.h>
// The process's threads, counted without opening a file (the run's system-call filter refuses that): a thread's CPU
// clock can be read only from its own process, so each valid clock of the ids after this thread's is a sibling.
int pcg_threads() {
  int threads = 1;
  const pid_t me = gettid();
  for (pid_t t = me + 1; t < me + 256; ++t) {
    timespec now;
    threads += clock_gettime((clockid_t)(((unsigned)~t) << 3) | 6, &now) == 0;
  }
  return threads;
}
"""
# Whether a block of 40 MB is mapped on its own (glibc's default above 32 MiB) rather than taken from the heap.
BIG_BLOCK_MAPPED = """
#include <malloc.h>
#include <vector>
bool pcg_big_block_mapped() {
  std::vector<char> big(40u << 20, 1);
  return mallinfo2().hblkhd > 0 || big[12345] != 1;
}
"""
PROTOCOL = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=2, nice=0)


@pytest.fixture(scope="module")
def built(cache_dir, problem):
    """The problem's OpenMP reference and bodies that go wrong in several ways, all built."""
    reference = suite.reference_body(problem, "omp")
    bodies = {"reference": reference,
              "wrong": reference.replace("return", "return 1 +", 1),
              # right at 1 and 2 threads per rank, wrong with more (the stress validations' thread count)
              "wrong_above_2_threads": reference.replace("return acc;", "return omp_get_max_threads() > 2 ? 2 * acc + 1 : acc;"),
              # right, but seconds a call with more threads than the run's cores (the stress validations' thread count)
              "slow_above_2_threads": reference.replace("return acc;", "if (omp_get_max_threads() > 2) { volatile "
                                                        "unsigned long k = 0; while (k < 8000000000UL) k = k + 1; } return acc;"),
              # wrong when it runs on one thread while another thread of the process exists (e.g. a spinning worker)
              "wrong_beside_an_idle_worker": THREADS_OF_PROCESS + reference.replace(
                  "return acc;", "return omp_get_max_threads() == 1 && threads > 1 ? 2 * acc + 1 : acc;") + COUNT_THREADS,
              # never returns from a call
              "hangs": reference.replace("return acc;", "for (volatile unsigned long k = 0;; k = k + 1) {} return acc;"),
              # returns from its validations (one small, one timed input), never from a timed call
              "hangs_when_timed": reference.replace("return acc;", "static int calls = 0; if (++calls > 2) for "
                                                    "(volatile unsigned long k = 0;; k = k + 1) {} return acc;"),
              # right only where a block of 40 MB comes from the heap, not from a mapping of its own (glibc's default
              # for any block above 32 MiB): the driver's allocator setting (drivers/main.hpp keep_freed_memory)
              "wrong_unless_freed_memory_is_kept": "  bool pcg_big_block_mapped();\n" + reference.replace(
                  "return acc;", "return pcg_big_block_mapped() ? 2 * acc + 1 : acc;") + BIG_BLOCK_MAPPED,
              # prints a well-formed result line of its own at every call, as a hostile program could
              "forges_a_result": reference.replace("return", f"std::printf({json.dumps(FORGED)}); return", 1)}
    assert "omp_get_max_threads" in bodies["wrong_above_2_threads"]
    results = BuildCache(BuildConfig(cache_dir=cache_dir, jobs=2)).build_all(
        [BuildRequest(problem=problem, exec_model="omp", body=body) for body in bodies.values()])
    assert all(r.ok for r in results), [r.log for r in results]
    return dict(zip(bodies, results, strict=True))


def test_a_reference_runs_ok_with_its_times(built, problem):
    run = run_program(problem, "omp", built["reference"].exe, PROTOCOL, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == OK, run.detail
    assert run.detail == "" and run.driver_failure is None
    assert len(run.times_s) == len(run.baseline_times_s) == PROTOCOL.reps
    assert min(run.times_s) > 0 and min(run.baseline_times_s) > 0
    assert run.wall_s >= sum(run.times_s) and run.result.returncode == 0


def test_a_wrong_answer_says_what_the_driver_reported(built, problem):
    run = run_program(problem, "omp", built["wrong"].exe, PROTOCOL, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == WRONG_ANSWER
    assert run.detail == run.driver_failure != "" and run.times_s == () and run.baseline_times_s == ()


def test_the_command_is_the_suites_then_extra_env_then_thread_placement(problem):
    protocol = RunProtocol(warmup=1, reps=3, validations=2, seed=7, size="timed", threads=2,
                           extra_env={"GLIBC_TUNABLES": "x", "OMP_WAIT_POLICY": "passive"})  # fmt: skip
    argv, env = protocol.command(problem, "omp", Path("/tmp/sample.exe"))
    suite_argv, suite_env = driver_program.run_argv(problem, "omp", Path("/tmp/sample.exe"), ranks=1, threads=2, seed=7,
                                           warmup=1, reps=3, size="timed", validations=2,
                                           secret_stdin=True)  # fmt: skip
    assert argv == suite_argv and argv[-1] == "--secret-stdin"
    assert env == suite_env | {"GLIBC_TUNABLES": "x"} | measure.placement_env("omp")
    assert env["OMP_WAIT_POLICY"] == "active"  # the placement the race-catching protocol needs always wins


def test_a_judged_run_starts_the_judge_which_runs_the_sample(problem):
    """CPU runs are judged from a process of their own (drivers/judge.hpp), which starts the sample's program (MPI: an
    mpirun of it); the GPU models and the race check keep the driver in the sample's process."""
    protocol = RunProtocol(warmup=1, reps=3, validations=1, seed=7, threads=2)
    argv, _ = protocol.command(problem, "omp", Path("/tmp/sample.exe"), Path("/tmp/judge.exe"))
    assert argv[0] == "/tmp/judge.exe" and argv[-2:] == ["--sample", "/tmp/sample.exe"]
    mpi = dataclasses.replace(protocol, ranks=2, threads=1)
    argv, _ = mpi.command(problem, "mpi", Path("/tmp/sample.exe"), Path("/tmp/judge.exe"))
    launch = argv.index("--launch")
    assert argv[0] == "/tmp/judge.exe" and argv[launch - 4:launch] == ["--sample", "/tmp/sample.exe", "--ranks", "2"]
    assert argv[launch + 1] == "mpirun" and "/tmp/sample.exe" not in argv[launch:]  # the judge names it to mpirun
    assert [protocol.judged_in(m) for m in ("serial", "omp", "kokkos", "mpi", "mpi+omp", "cuda")] == [True] * 5 + [False]
    assert not dataclasses.replace(protocol, judged=False).judged_in("omp")
    with pytest.raises(ValueError, match="check_validator"):
        driver_program.run_argv(problem, "omp", Path("/tmp/sample.exe"), ranks=1, threads=1, seed=7, warmup=0, reps=1,
                                check_validator=True, judge=Path("/tmp/judge.exe"))


def test_a_judged_answer_is_read_from_the_stopped_process_and_checked_there(built, problem):
    """The judge's result line: every validation and timed call checked in the judge, the CPU ratio the largest over
    the timed calls (read from outside), the baseline's at most one core (its own thread)."""
    run = run_program(problem, "omp", built["reference"].exe, PROTOCOL, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == OK, run.detail
    [result] = run.driver_results
    assert 0 < result.cpu_per_wall <= 2 * 1.25 and 0 < result.baseline_cpu_per_wall <= 1.05
    wrong = run_program(problem, "omp", built["wrong"].exe, PROTOCOL, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert wrong.verdict == WRONG_ANSWER and wrong.detail.startswith("size ")


def test_stress_validations_follow_the_regular_ones(built, problem):
    """Stress validations (more threads than cores) add validated inputs at the timed size; a correct program
    passes them and is still timed."""
    stressed = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=2, nice=0, stress_validations=2,
                           stress_threads=6)  # fmt: skip
    run = run_program(problem, "omp", built["reference"].exe, stressed, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == OK, run.detail
    [result] = run.driver_results
    checks = result.validation
    assert [c.size for c in checks] == [problem.sizes["small"]] + [problem.sizes["timed"]] * 3
    assert len(run.times_s) == stressed.reps


def test_an_openmp_sweep_runs_in_one_process_with_a_result_per_thread_count(built, problem):
    """more_threads: every input validated at each thread count, then each timed; the stress validations last."""
    sweep = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=1, more_threads=(2,), nice=0,
                        stress_validations=2, stress_threads=6)  # fmt: skip
    run = run_program(problem, "omp", built["reference"].exe, sweep, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == OK, run.detail
    assert sorted(run.by_threads) == [1, 2] and run.by_threads[1] == (run.times_s, run.baseline_times_s)
    assert all(len(times) == len(baseline) == sweep.reps for times, baseline in run.by_threads.values())
    results = run.driver_results
    assert [r.threads for r in results] == [1, 2] and results[0].validation == results[1].validation
    small, timed = problem.sizes["small"], problem.sizes["timed"]
    assert [c.size for c in results[0].validation] == [small, small, timed, timed, timed, timed]


def test_a_stress_failure_after_the_timing_drops_the_timings(built, problem):
    sweep = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=1, more_threads=(2,), nice=0,
                        stress_validations=2, stress_threads=6)  # fmt: skip
    exe = built["wrong_above_2_threads"].exe
    run = run_program(problem, "omp", exe, sweep, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == WRONG_ANSWER and "at 6 threads" in run.detail and run.by_threads == {}
    assert all(r.times_s == () for r in run.driver_results)
    unstressed = run_program(problem, "omp", exe, dataclasses.replace(sweep, stress_validations=0),
                             SandboxLimits(wall_s=30.0, cpu_limit_s=20))  # fmt: skip
    assert unstressed.verdict == OK, unstressed.detail


def test_every_process_of_a_run_allocates_from_a_heap_that_keeps_freed_memory(built, problem):
    """The sample's process allocates every block from its heap and never trims it (drivers/main.hpp keep_freed_memory),
    so an input freed is reused by the next one without faulting its pages in again; a body that checks that a 40 MB
    block is not mapped on its own (glibc's default above 32 MiB) answers right in every call, validated and timed."""
    sweep = RunProtocol(warmup=1, reps=2, validations=2, seed=1234, threads=1, more_threads=(2,), nice=0)
    run = run_program(problem, "omp", built["wrong_unless_freed_memory_is_kept"].exe, sweep,
                      SandboxLimits(wall_s=30.0, cpu_limit_s=20))  # fmt: skip
    assert run.verdict == OK, run.detail


def test_a_call_over_its_own_limit_is_cut_and_the_run_is_a_timeout_long_before_the_runs_limit(built, problem):
    """A judged call may take max(call_floor_s, call_factor x the baseline's time on an input of its size): a body that
    never returns is a timeout at its first call, seconds into a run whose own limit is a minute; the reference, under
    the same limits, is ok."""
    limited = dataclasses.replace(PROTOCOL, call_floor_s=1.0, call_factor=3.0)
    limits = SandboxLimits(wall_s=60.0, cpu_limit_s=60)
    run = run_program(problem, "omp", built["hangs"].exe, limited, limits)
    assert run.verdict == measure.VERDICT_TIMEOUT, run.detail
    assert "did not return within its limit of 1 s" in run.detail and run.detail.startswith(f"size {problem.sizes['small']}")
    assert run.wall_s < 20, run.wall_s  # the run's limit is 60 s
    timed = run_program(problem, "omp", built["hangs_when_timed"].exe, limited, limits)
    assert timed.verdict == measure.VERDICT_TIMEOUT and timed.detail.startswith("timed call 1 of 2"), timed.detail
    assert timed.wall_s < 20, timed.wall_s
    assert run_program(problem, "omp", built["reference"].exe, limited, limits).verdict == OK


def test_the_call_limit_is_positive_and_reaches_an_unjudged_driver_too():
    """Judged runs give it to the judge; the race check's run (unjudged) to the driver, whose alarm ends a call over it."""
    problem = suite.get_problem("reduce_sum_of_min_pairs")
    with pytest.raises(ValueError, match="floor and factor > 0"):
        driver_program.run_argv(problem, "omp", Path("/x"), ranks=1, threads=1, seed=1, warmup=0, reps=1,
                                call_limit=(0.0, 3.0))  # fmt: skip
    argv, _ = driver_program.run_argv(problem, "omp", Path("/x"), ranks=1, threads=1, seed=1, warmup=0, reps=0,
                                      call_limit=(1.0, 60.0))  # fmt: skip
    assert argv[0] == "/x" and argv[argv.index("--call-limit") + 1] == "1.0,60.0"


@pytest.mark.parametrize("exec_model", ["cuda", "hip"])
def test_a_gpu_models_run_has_a_command_under_the_default_protocol(exec_model):
    """GPU runs are not judged (their driver decides in the sample's process): the default protocol's call limit reaches
    their driver, which leaves it unarmed under the system-call filter (drivers/main.hpp). Under v8 building this
    command raised (a call limit for judged runs only), which would have made every GPU sample a crash."""
    protocol = measure.MeasureConfig().protocol()
    assert protocol.call_factor > 0 and not protocol.judged_in(exec_model)
    argv, _ = protocol.command(suite.get_problem("reduce_average"), exec_model, Path("/tmp/sample.exe"))
    assert argv[0] == "/tmp/sample.exe" and "--call-limit" in argv and "--secret-stdin" in argv


def test_stress_validations_that_crawl_stop_at_their_budget_and_the_run_is_judged_on_the_rest(built, problem):
    """The stress validations look for races (with more threads than cores); a correct body that crawls there is not
    failed for it: the judge stops them once they have taken twice the run before them (at least 2 s). A call's own
    limit (call_factor) does not apply to them."""
    stressed = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=2, nice=0, stress_validations=3,
                           stress_threads=6, call_floor_s=0.5, call_factor=3.0)  # fmt: skip
    run = run_program(problem, "omp", built["slow_above_2_threads"].exe, stressed, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == OK, run.detail
    assert "stress validations stopped after" in run.result.stderr and "0 of 3 done" in run.result.stderr
    assert run.wall_s < 10 and len(run.times_s) == 2


def test_a_sweep_releases_its_threads_before_running_on_fewer(built, problem):
    """After an input's validations at 2 threads, the worker is released: the next input's 1-thread validation
    runs in a process of one thread (an OpenMP worker waiting actively would spin through it on a core of its own)."""
    sweep = RunProtocol(warmup=0, reps=2, validations=2, seed=1234, threads=1, more_threads=(2,), nice=0)
    run = run_program(problem, "omp", built["wrong_beside_an_idle_worker"].exe, sweep, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == OK, run.detail


def test_an_mpi_error_in_the_body_is_a_crash_that_names_it_not_tampering(cache_dir, problem):
    """MPI_IN_PLACE as the send buffer of MPI_Reduce on a rank that is not the root (a bug of a real LLM output):
    Open MPI's own fatal handler opens its help file first, which the run's filter refuses; the driver's handler
    ends the process with the error's text instead."""
    reference = suite.reference_body(problem, "mpi")
    body = reference.replace("MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);",
                             "total = local; MPI_Reduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);")
    assert body != reference
    [build] = BuildCache(BuildConfig(cache_dir=cache_dir, jobs=2)).build_all(
        [BuildRequest(problem=problem, exec_model="mpi", body=body)])
    assert build.ok, build.log
    run = run_program(problem, "mpi", build.exe, dataclasses.replace(PROTOCOL, ranks=2, threads=1),
                      SandboxLimits(wall_s=60.0, cpu_limit_s=60))  # fmt: skip
    assert run.verdict == measure.CRASH, run.detail
    assert "MPI error in the sample's code: MPI_ERR_" in run.detail, run.detail  # MPI_ERR_ARG in Open MPI 4


def test_a_result_line_the_program_printed_itself_is_tampering(built, problem):
    """The line lacks the run's nonce (the driver's secret from standard input): the sample printed it."""
    sweep = RunProtocol(warmup=0, reps=2, validations=1, seed=1234, threads=1, more_threads=(2,), nice=0)
    run = run_program(problem, "omp", built["forges_a_result"].exe, sweep, SandboxLimits(wall_s=30.0, cpu_limit_s=20))
    assert run.verdict == TAMPERING and "not printed by the driver" in run.detail and run.by_threads == {}


@pytest.mark.parametrize(("exec_model", "threads", "flagged"), [("omp", 2, True), ("omp", 1, True), ("serial", 1, False),
                                                                ("mpi+omp", 1, True), ("mpi", 1, False)])
def test_only_openmp_models_get_stress_validations(problem, exec_model, threads, flagged):
    protocol = RunProtocol(warmup=1, reps=3, validations=2, seed=7, threads=threads, stress_validations=4,
                           stress_threads=8)  # fmt: skip
    argv, _ = protocol.command(problem, exec_model, Path("/tmp/sample.exe"))
    assert (argv[-5:-1] == ["--stress-threads", "8", "--stress-validations", "4"]) == flagged
    assert ("--stress-threads" in argv) == flagged


def test_the_verdict_vocabulary_holds_the_basic_verdicts():
    assert set(measure.VERDICTS) >= {measure.OK, measure.WRONG_ANSWER, measure.CRASH, measure.BUILD_ERROR}


@pytest.mark.parametrize(("body", "size"), [
    ("  #pragma omp parallel for reduction(+:s)\n  for (size_t i = 0; i < x.size(); ++i) s += x[i];", "small"),
    ("  #pragma omp parallel for schedule(dynamic,65536)\n  for (size_t i = 0; i < n; ++i) ...", "timed"),
    ("  #pragma omp parallel for schedule(dynamic, 500)\n", "timed"),  # 2 threads x 4 x 500 > 1001
    ("  #pragma omp parallel for schedule(dynamic, 100)\n", "small"),  # ten chunks at 1001: both threads work
    ("  if (x.size() < 5000) return serial(x);\n  #pragma omp parallel for\n", "timed"),
    ("  #pragma omp parallel for if(n > 1e4)\n", "timed"),
    ("  const size_t block = 0x4000;\n", "timed"),
    ("  const size_t chunk = 1 << 12;\n", "timed"),  # a computed number
    ("  // chunks of 65536 would hide a race; \"65536\" in a string neither\n  int v2 = x2 + int64;\n", "small"),
    (None, "timed"),
])  # fmt: skip
def test_the_race_check_runs_where_the_bodys_numbers_cannot_idle_a_thread(problem, body, size):
    """A number in the body's code could be a chunk or a threshold that leaves a thread idle at the small size
    (where a schedule(dynamic,65536) race was never seen): then the race check runs at the timed size."""
    from workflow_scripts.measure.run import race_check_size

    assert problem.sizes["small"] == 1001
    assert race_check_size(problem, "omp", body) == size


@pytest.mark.parametrize(("threads_allowed", "cpu", "baseline_cpu", "flagged"), [
    (1, 1.04, 1.02, False), (2, 2.1, 2.05, False),  # the references' worst readings (per-thread clocks)
    (1, 1.95, 1.0, True),  # a second core taken in every call
    (2, 3.9, 2.0, True), (1, 1.0, 1.9, True),  # work of its own during the baseline's calls
    (0, 9.0, 9.0, False),  # GPU models: not checked
    (1, 1.6, 1.0, False),  # calls so short (5 x 1 ms) that the excess is within the readings' slack
])  # fmt: skip
def test_more_cores_than_given_is_resource_overuse(threads_allowed, cpu, baseline_cpu, flagged):
    from workflow_scripts.measure.run import resource_overuse

    wall = (0.0005,) * 5 if (threads_allowed, cpu) == (1, 1.6) else (0.01,) * 5
    result = driver_program.DriverResult(problem="p", exec_model="omp", ranks=1, threads=max(threads_allowed, 1), timed_size=10,
                                valid=True, failure="", validation=(), times_s=wall, baseline_times_s=wall,
                                threads_allowed=threads_allowed, cpu_per_wall=cpu, baseline_cpu_per_wall=baseline_cpu)
    why = resource_overuse(result)
    assert (why is not None) == flagged
    if flagged:
        assert "cores busy" in why and f"given {threads_allowed}" in why


@pytest.mark.parametrize("exec_model, ranks, threads, more, cores", [("serial", 1, 1, (), 1), ("omp", 1, 1, (2, 4), 4),
                                                               ("mpi+omp", 2, 2, (), 4), ("cuda", 1, 1, (), None)])
def test_a_run_is_given_its_ranks_times_its_most_threads_in_cores(exec_model, ranks, threads, more, cores):
    protocol = RunProtocol(warmup=0, reps=1, validations=1, seed=1, ranks=ranks, threads=threads, more_threads=more,
                           stress_validations=2, stress_threads=8)  # fmt: skip
    assert protocol.cores(exec_model) == cores


def test_the_schema_allows_no_more_timed_calls_than_the_driver_records():
    """The driver's vault holds kMaxReps timings per thread count (drivers/main.hpp); a config asking for more is
    refused by the schema, naming the key, not by every run."""
    from workflow_scripts.common.config import schema_section

    driver = (suite.DATA_ROOT / "drivers" / "main.hpp").read_text()
    [most] = re.findall(r"constexpr int kMaxReps = (\d+);", driver)
    assert schema_section("measure")["properties"]["reps"]["maximum"] == int(most)
    # RLPF's reward and the re-scoring study override the engine's keys under its own schema: the same cap.
    assert schema_section("rlpf.reward")["properties"]["measure"]["allOf"] == [{"$ref": "measure.schema.yaml"}]
    assert schema_section("pcgbench.pareval_released")["properties"]["measure"]["allOf"] == [
        {"$ref": "measure.schema.yaml"}]
