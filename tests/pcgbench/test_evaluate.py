"""The harness end to end: self-test generators get their expected verdicts, adversarial bodies are
contained with the right verdict, evaluation resumes, the CLI runs alone, missing toolchains are reported.

Every sample here runs through the sandbox (evaluate -> sandbox.run_sandboxed).
"""

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from workflow_scripts.measure import BuildCache, BuildConfig, BuildRequest, SandboxFailure, suite, toolchains
from workflow_scripts.measure.timing import ResourceConfig, resource_sweep
from workflow_scripts.pcgbench import evaluation, generators
from workflow_scripts.pcgbench import samples as samples_module
from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_samples, runs_of_sweep
from workflow_scripts.pcgbench.pareval_format import numbered_names, prompt_record
from workflow_scripts.pcgbench.samples import Sample

REPO = Path(__file__).resolve().parents[2]


def config(cache_dir, **overrides):
    values = dict(cache_dir=cache_dir, reps=2, warmup=0, run_timeout_s=30.0, cpu_limit_s=20, ks=(1,))
    return EvaluateConfig(**(values | overrides))


def samples_of(generator, problem, exec_models, mutants=generators.MUTANTS, race_check=True):
    records = [prompt_record(problem, exec_model) for exec_model in exec_models]
    filled, expected = generators.generate(records, generator, samples=1, mutants=list(mutants),
                                           race_check=race_check)  # fmt: skip
    samples = [Sample(generator=generator, problem=problem, exec_model=record["parallelism_model"], sample_index=i,
                      body=body) for record in filled for i, body in enumerate(record["outputs"])]
    return samples, expected


def verdicts(rows: pd.DataFrame) -> dict:
    first = rows.drop_duplicates("sample_id")
    return {(r.model, r.sample_index): r.verdict for r in first.itertuples()}


def check_expected(rows, expected):
    got = verdicts(rows)
    wrong = [(e["model"], e["label"], e["expected_verdict"], got[(e["model"], e["sample_index"])])
             for e in expected if got[(e["model"], e["sample_index"])] != e["expected_verdict"]]
    assert wrong == []


@pytest.fixture(scope="module")
def reference_walls(tmp_path_factory, cache_dir, problem):
    """The reference's run times (serial, omp): other samples' limits are max(floor, factor x these)."""
    samples, _ = samples_of("reference", problem, ["serial", "omp"])
    rows, _ = evaluate_samples(samples, tmp_path_factory.mktemp("reference"), config(cache_dir, run_timeout_s=60.0))
    rows.to_parquet(tmp_path_factory.getbasetemp() / "reference.parquet")
    return rows, evaluation.reference_run_times(tmp_path_factory.getbasetemp() / "reference.parquet")


def test_self_test_generators_get_expected_verdicts(tmp_path, cache_dir, problem, reference_walls):
    reference_rows, walls = reference_walls
    samples, expected = [], {}
    for generator in ("serial", "mutants"):
        made, exp = samples_of(generator, problem, ["serial", "omp"])
        samples += made
        expected[generator] = exp
    cfg = config(cache_dir, timeout_floor_s=2.0, timeout_factor=3.0)
    rows, skipped = evaluate_samples(samples, tmp_path, cfg, walls)
    assert skipped == {}
    _, expected["reference"] = samples_of("reference", problem, ["serial", "omp"])
    rows = pd.concat([rows, reference_rows])
    for generator, exp in expected.items():
        check_expected(rows[rows["generator"] == generator], exp)
    ok = rows[(rows["generator"] == "reference") & (rows["model"] == "omp")]
    assert list(ok["threads"]) == [1, 2]  # the sweep ran threads 1..max_cores
    assert (ok["speedup"] > 0).all() and (ok["time_median_s"] > 0).all() and ok["time_iqr_s"].notna().all()


@pytest.mark.multiprocess
def test_mpi_reference_and_mutants(tmp_path, cache_dir, problem):
    samples, expected = samples_of("mutants", problem, ["mpi"], mutants=["off_by_one", "huge_allocation"])
    reference, _ = samples_of("reference", problem, ["mpi"])
    rows, _ = evaluate_samples(samples + reference, tmp_path, config(cache_dir))
    check_expected(rows[rows["generator"] == "mutants"], expected)
    ref = rows[rows["generator"] == "reference"]
    assert set(ref["verdict"]) == {"ok"} and list(ref["ranks"]) == [1, 2]


# Hostile code in a function the body calls first, defined after the body (which closes the function) with the
# includes it needs. (At namespace scope, as a static initializer, it would never run: a constructor is
# tampering, refused before the run; so are fork and std::thread, refused as resource_overuse: tampering.py.)
# `abort()` marks an escape.
HOSTILE_PREAMBLE = """
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
"""
HOSTILE = {
    "fork_bomb": ("for (;;) fork();", "resource_overuse"),
    "infinite_loop": ("for (volatile unsigned long i = 0;; i = i + 1) {}", "timeout"),
    "huge_allocation": ("std::vector<char> v(100ull << 30); v[7] = 1;", "killed_resource_limit"),
    # The run's system-call filter (drivers/confine.hpp) refuses a temporary file, a socket and signalling another
    # process: tampering, where the sandbox alone made them a file-size limit, a refused connection and nothing.
    "disk_filler": ("std::vector<char> b(1 << 20); FILE *f = std::tmpfile();"
                    "for (;;) std::fwrite(b.data(), 1, b.size(), f);", "tampering"),
    "tcp_connection": ("int s = socket(AF_INET, SOCK_STREAM, 0); sockaddr_in a{}; a.sin_family = AF_INET;"
                       "a.sin_port = htons(80); inet_pton(AF_INET, \"1.1.1.1\", &a.sin_addr);"
                       "if (connect(s, (sockaddr *)&a, sizeof a) == 0) std::abort();", "tampering"),
    # Opening a file is refused from the object (tampering.OUTSIDE_CALLS); the sandbox's read-only view of the host
    # is tested with a program of its own (tests/measure/test_sandbox.py::test_cannot_write_outside) and here by
    # removing files.
    "write_outside": ("if (std::fopen(\"@OUTSIDE@\", \"w\")) std::abort();", "tampering"),
    "delete_files": ("if (std::remove(\"@CANARY@\") == 0 || std::remove(\"/tmp/sample.exe\") == 0) std::abort();",
                     "ok"),
    "kill_parent_and_all": ("kill(getppid(), SIGKILL); kill(-1, SIGKILL);", "tampering"),
    "print_1gb": ("std::vector<char> l(1 << 20, 'y'); for (int i = 0; i < 1024; ++i) "
                  "std::fwrite(l.data(), 1, l.size(), stdout);", "killed_resource_limit"),
    "stack_overflow": ("struct R { static int f(volatile int d) { volatile char p[4096]; p[0] = (char)d; "
                       "return f(d + 1) + p[0]; } }; R::f(0);", "crash"),
    "detached_sleeper": ("std::thread([] { sleep(1000); }).detach();", "resource_overuse"),
    # fork through libc's syscall(): refused from the object (a raw system call changes the process from inside).
    "syscall_fork_bomb": ("for (;;) syscall(SYS_fork);", "tampering"),
    # fork in inline assembly: no call names it, but the object's code holds the syscall instruction (a bomb that
    # does run is contained by the sandbox's process limit: tests/measure/test_sandbox.py::test_fork_bomb_is_contained).
    "asm_fork_bomb": ("for (;;) { long r; asm volatile(\"syscall\" : \"=a\"(r) : \"a\"(57L) : \"rcx\", \"r11\", "
                      "\"memory\"); (void)r; }", "tampering"),
}


def hostile_body(problem, exec_model, code):
    return ("void pcgbench_hostile(); pcgbench_hostile();\n" + suite.reference_body(problem, exec_model) + HOSTILE_PREAMBLE
            + f"void pcgbench_hostile() {{ {code} }}\n")


def test_adversarial_bodies_are_contained(tmp_path, cache_dir, problem, reference_walls):
    # A host directory outside /tmp that this user may write (the sandbox must still not); in the checkout's
    # ignored .cache/, never its results/ (a finished run's outputs are not a test's scratch space).
    host_dir = Path(os.environ.get("PCGBENCH_TEST_HOSTDIR", REPO / ".cache" / "tests"))
    outside, canary = host_dir / "pcgbench_escape_marker", host_dir / "pcgbench_canary"
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.unlink(missing_ok=True)
    canary.write_text("keep")
    samples = []
    for index, (code, _) in enumerate(HOSTILE.values()):
        code = code.replace("@OUTSIDE@", str(outside)).replace("@CANARY@", str(canary))
        samples.append(Sample(generator="hostile", problem=problem, exec_model="serial", sample_index=index,
                              body=hostile_body(problem, "serial", code)))
    try:
        # Normal priority: containment is under test, not timing, and a fork bomb at raised priority would
        # starve everything else on a shared machine for its whole time limit. A limit of 20 s at least: at normal
        # priority on 2 cores under a load of 30, a 2 s floor timed out the samples that should pass (the fork bomb
        # and the infinite loop, which must time out, cost 20 s each).
        # The CPU limit well above the wall-clock limit: the wall-clock limit runs from the program's start, so with
        # the two equal a lone infinite loop on an idle core reaches either first (timeout or killed_resource_limit).
        # The bodies that must time out run on their own with a 4 s floor: a body that never ends times out whatever
        # the load, and at 20 s each they took most of the test's time.
        cfg = config(cache_dir, timeout_floor_s=20.0, timeout_factor=3.0, file_size_mb=8, run_nice=0, cpu_limit_s=60)
        endless = [sample for sample, (_, verdict) in zip(samples, HOSTILE.values(), strict=True) if verdict == "timeout"]
        rest = [sample for sample in samples if sample not in endless]
        rows, _ = evaluate_samples(rest, tmp_path / "rest", cfg, reference_walls[1])
        endless_rows, _ = evaluate_samples(endless, tmp_path / "endless", dataclasses.replace(cfg, timeout_floor_s=4.0),
                                           reference_walls[1])  # fmt: skip
        got = verdicts(rows) | verdicts(endless_rows)
        assert endless and {name: got[("serial", i)] for i, name in enumerate(HOSTILE)} == {n: v for n, (_, v) in HOSTILE.items()}
        assert not outside.exists() and canary.read_text() == "keep"
    finally:
        canary.unlink(missing_ok=True)
    ps = subprocess.run(["ps", "-u", "65534", "-o", "comm="], capture_output=True, text=True)
    assert "sample.exe" not in ps.stdout.split()  # nothing survived


@pytest.mark.multiprocess
def test_kill_all_under_mpirun_is_refused_by_the_kernel_and_harness_survives(tmp_path, cache_dir, problem):
    """kill(-1) killed mpirun (a crash); the run's system-call filter lets a rank signal only itself."""
    body = hostile_body(problem, "mpi", "kill(-1, SIGKILL);")
    sample = Sample(generator="hostile", problem=problem, exec_model="mpi", sample_index=0, body=body)
    rows, _ = evaluate_samples([sample], tmp_path, config(cache_dir))
    assert set(rows["verdict"]) == {"tampering"} and "system call kill" in rows["detail"].iloc[0]


def record_runs(monkeypatch) -> list:
    """The samples evaluate_sample is called on (built and run), in order."""
    ran = []
    real = evaluation.evaluate_sample
    monkeypatch.setattr(evaluation, "evaluate_sample", lambda *args: ran.append(args[0]) or real(*args))
    return ran


def test_resume_skips_finished_samples(tmp_path, cache_dir, problem, monkeypatch):
    cfg = config(cache_dir, share_identical_runs=False)  # the extra sample below is a copy: run it anyway
    samples, _ = samples_of("reference", problem, ["serial"])
    first, _ = evaluate_samples(samples, tmp_path, cfg)
    # A second evaluation with one more sample runs only that one; a torn line is ignored.
    with open(tmp_path / evaluation.RESUME_LOG, "a") as log:
        log.write('{"sample_id": "torn')
    extra = Sample(generator="reference", problem=problem, exec_model="serial", sample_index=1,
                   body=samples[0].body)
    ran = record_runs(monkeypatch)
    second, _ = evaluate_samples(samples + [extra], tmp_path, cfg)
    assert ran == [extra]
    assert second[second["sample_index"] == 0].reset_index(drop=True).equals(first.reset_index(drop=True))
    assert second["run_shared_from"].isna().all()
    # Other settings (here the number of timed repetitions) invalidate what the log holds.
    ran.clear()
    evaluate_samples(samples, tmp_path, config(cache_dir, reps=3, share_identical_runs=False))
    assert ran == samples


def test_a_sample_the_harness_cannot_read_gets_a_verdict_and_the_rest_are_scored(tmp_path, cache_dir, problem,
                                                                                   monkeypatch):  # fmt: skip
    """No sample stops an evaluation: what raises while one sample is built, inspected, run or read becomes its verdict
    (crash, with the exception in its detail); the sandbox's own failure still stops the evaluation."""
    samples, _ = samples_of("reference", problem, ["serial", "omp"])
    real = evaluation.evaluate_sample

    def unreadable_serial(sample, *args):
        if sample.exec_model == "serial":
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
        return real(sample, *args)

    monkeypatch.setattr(evaluation, "evaluate_sample", unreadable_serial)
    rows, _ = evaluate_samples(samples, tmp_path, config(cache_dir, share_identical_runs=False))
    got = verdicts(rows)
    assert got[("serial", 0)] == "crash" and got[("omp", 0)] == "ok"
    assert "UnicodeDecodeError" in rows[rows["model"] == "serial"]["detail"].iloc[0]

    def sandbox_broken(sample, *args):
        raise SandboxFailure("the sandbox failed")

    monkeypatch.setattr(evaluation, "evaluate_sample", sandbox_broken)
    with pytest.raises(SandboxFailure):
        evaluate_samples(samples, tmp_path / "again", config(cache_dir, share_identical_runs=False))


def test_identical_samples_are_run_once_and_share_its_rows(tmp_path, cache_dir, problem, monkeypatch):
    body = suite.reference_body(problem, "omp")
    copies = [Sample(generator="reference", problem=problem, exec_model="omp", sample_index=i, body=body) for i in range(3)]
    other = Sample(generator="reference", problem=problem, exec_model="omp", sample_index=3, body="\n" + body)
    ran = record_runs(monkeypatch)
    # Interrupted after the first copy: the resumed evaluation gives the logged runs to the other copies.
    evaluate_samples(copies[:1], tmp_path, config(cache_dir))
    rows, _ = evaluate_samples(copies + [other], tmp_path, config(cache_dir))
    assert ran == [copies[0], other]  # a different text is another program, run on its own
    by_index = {i: group.reset_index(drop=True) for i, group in rows.groupby("sample_index")}
    assert len(by_index[0]) == 2 and set(by_index[0]["verdict"]) == {"ok"}  # omp: 1 and 2 threads
    assert by_index[0]["run_shared_from"].isna().all() and by_index[3]["run_shared_from"].isna().all()
    for i in (1, 2):
        assert (by_index[i]["run_shared_from"] == copies[0].sample_id).all()
        assert (by_index[i]["sample_id"] == copies[i].sample_id).all()
        assert by_index[i]["time_median_s"].equals(by_index[0]["time_median_s"])
        assert by_index[i]["build_cached"].all()
    assert not by_index[3]["time_median_s"].equals(by_index[0]["time_median_s"])
    # With sharing off every copy is run.
    ran.clear()
    evaluate_samples(copies, tmp_path / "every", config(cache_dir, share_identical_runs=False))
    assert ran == copies


def test_an_openmp_samples_sweep_is_one_run_with_the_stress_validations_once(tmp_path, cache_dir, problem, monkeypatch):
    """The thread counts of an OpenMP sample share one process: one run, one wall time, a row per thread count."""
    protocols = []
    real = evaluation.run_program
    monkeypatch.setattr(evaluation, "run_program", lambda *args: protocols.append(args[3]) or real(*args))
    samples, _ = samples_of("reference", problem, ["omp"])
    rows, _ = evaluate_samples(samples, tmp_path, config(cache_dir, stress_validations=2, race_check=False))
    assert list(rows["threads"]) == [1, 2] and set(rows["verdict"]) == {"ok"}
    assert rows["run_wall_s"].nunique() == 1 and rows["speedup"].notna().all()
    assert [(p.threads, p.more_threads, p.stress_validations, p.stress_threads) for p in protocols] == [(1, (2,), 2, 8)]


def test_the_sweep_groups_thread_counts_of_one_rank_count_into_one_run_for_openmp_models_only():
    def runs(exec_model, max_cores):
        return [[(c.ranks, c.threads) for c in run] for run in runs_of_sweep(exec_model, resource_sweep(exec_model, max_cores))]

    assert runs("omp", 4) == [[(1, 1), (1, 2), (1, 4)]]
    assert runs("mpi+omp", 2) == [[(1, 1), (1, 2)], [(2, 1)]]
    assert runs("mpi", 2) == [[(1, 1)], [(2, 1)]]
    assert runs("kokkos", 2) == [[(1, 1)], [(1, 2)]]  # Kokkos fixes its thread count at initialisation
    assert runs("serial", 2) == [[(1, 1)]]


@pytest.mark.parametrize("overlap", [True, False])
def test_samples_run_while_later_ones_build_only_when_runs_outrank_compiles(tmp_path, cache_dir, problem, monkeypatch,
                                                                           overlap):  # fmt: skip
    body = suite.reference_body(problem, "serial")
    samples = [Sample(generator="g", problem=problem, exec_model="serial", sample_index=i, body=body + f"// {i}\n")
               for i in range(3)]  # fmt: skip
    first_run, events = threading.Event(), []
    real_compile, real_evaluate = BuildCache._compile_object, evaluation.evaluate_sample

    def compile_object(self, request, key):  # the last sample's compile waits for the first run (or 3 s)
        if request.body == samples[-1].body:
            events.append("last compile waits, first run seen: " + str(first_run.wait(60 if overlap else 3)))
        return real_compile(self, request, key)

    def evaluate_sample(sample, *args):
        events.append(f"run {sample.sample_index}")
        first_run.set()
        return real_evaluate(sample, *args)

    monkeypatch.setattr(BuildCache, "_compile_object", compile_object)
    monkeypatch.setattr(evaluation, "evaluate_sample", evaluate_sample)
    monkeypatch.setattr(evaluation.EvaluateConfig, "overlaps_builds_and_runs", lambda cfg: overlap)
    rows, _ = evaluate_samples(samples, tmp_path, config(cache_dir, race_check=False))
    assert set(rows["verdict"]) == {"ok"}
    if overlap:  # (when the waiting compile logs beside the runs is up to the scheduler)
        assert events[0] == "run 0" and sorted(events[1:]) == ["last compile waits, first run seen: True", "run 1",
                                                               "run 2"]  # fmt: skip
    else:
        assert events == ["last compile waits, first run seen: False", "run 0", "run 1", "run 2"]


def test_overlap_needs_raised_run_priority(cache_dir, monkeypatch):
    from workflow_scripts.measure import settings

    monkeypatch.setattr(settings, "can_raise_priority", lambda: True)
    assert config(cache_dir, run_nice=-20).overlaps_builds_and_runs()
    assert not config(cache_dir, run_nice=0).overlaps_builds_and_runs()
    monkeypatch.setattr(settings, "can_raise_priority", lambda: False)
    assert not config(cache_dir, run_nice=-20).overlaps_builds_and_runs()


def test_missing_toolchain_is_reported_and_skipped(tmp_path, cache_dir, problem, monkeypatch):
    real = toolchains.toolchain_status
    monkeypatch.setattr(samples_module, "toolchain_status",
                        lambda exec_model: (False, "no mpirun: test") if exec_model == "mpi" else real(exec_model))
    samples, _ = samples_of("reference", problem, ["serial", "mpi"])
    rows, skipped = evaluate_samples(samples, tmp_path, config(cache_dir))
    assert skipped == {"mpi": "no mpirun: test"} and set(rows["model"]) == {"serial"}


def evaluate_cli(generations: Path, out: Path, cache_dir: Path) -> subprocess.CompletedProcess:
    """`python -m workflow_scripts.pcgbench evaluate` on a generations file, as a user runs it."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "workflow_scripts.pcgbench", "evaluate", str(generations), "--out",
                           str(out), "--cache-dir", str(cache_dir), "--reps", "2", "--run-timeout-s", "10"],
                          capture_output=True, text=True, env=env, cwd=generations.parent, timeout=120)


def test_cli_evaluates_a_generations_file(tmp_path, cache_dir, problem):
    records = [prompt_record(problem, "serial")]
    filled, _ = generators.generate(records, "mutants", samples=1, mutants=["missing_include"])
    filled[0]["outputs"].append(suite.reference_body(problem, "serial"))
    # A record whose prompt declares another signature (not built, not scored) and one of a problem the suite
    # lacks (reported).
    head, _, signature = filled[0]["prompt"].rpartition("\n")
    mismatched = dict(filled[0], prompt=head + "\n" + signature.replace("(", "(long extra, ", 1),
                      outputs=[suite.reference_body(problem, "serial")])
    unknown = dict(filled[0], name="61_" + problem.problem_type + "_not_here")
    generations = tmp_path / "gen.json"
    generations.write_text(json.dumps(filled + [mismatched, unknown]))
    out = tmp_path / "out"
    proc = evaluate_cli(generations, out, cache_dir)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = pd.read_parquet(out / "results.parquet")
    assert sorted(results.drop_duplicates("sample_id")["verdict"]) == ["build_error", "ok", "prompt_mismatch"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["by_model"]["gen"]["serial"]["pass@1"] == pytest.approx(0.5)
    assert metrics["by_model"]["gen"]["serial"]["build@1"] == pytest.approx(0.5)
    assert metrics["pareval"]["gen"]["serial"]["pass@1"] == pytest.approx(0.5)
    assert metrics["pareval"]["gen"]["serial"]["speedup_n@1"] > 0  # over the one valid sample
    [mismatch] = metrics["prompt_mismatch"]
    assert "long extra" in mismatch["reason"] and mismatch["model"] == "serial"
    assert [r["record"] for r in metrics["no_driver"]] == [unknown["name"]]
    assert metrics["verdict_counts"]["gen"]["prompt_mismatch"] == 1


def test_cli_scores_the_rest_of_a_generations_file_with_text_utf8_cannot_encode(tmp_path, cache_dir, problem):
    # JSON's "\ud800" (a generator that split a UTF-16 pair) reads as a str that no file or hash takes: it
    # stopped the whole evaluation (UnicodeEncodeError hashing the sample id). Now that record is refused by
    # file, record and field, and the good one is built, run and scored.
    body = suite.reference_body(problem, "serial")
    good = dict(prompt_record(problem, "serial", numbered_names().get(problem.name)), outputs=[body])
    bad = dict(good, outputs=[body + "// \ud800\n"])
    bad_name = dict(good, name=good["name"] + "\ud800")  # printed, were it reported as no_driver
    generations = tmp_path / "gen.json"
    generations.write_text(json.dumps([bad, good, bad_name]))
    assert '\\ud800' in generations.read_text()
    proc = evaluate_cli(generations, tmp_path / "out", cache_dir)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = pd.read_parquet(tmp_path / "out" / "results.parquet").drop_duplicates("sample_id")
    assert list(results["verdict"]) == ["ok"]
    refusal = (f"{generations}: record 0 ({good['name']!r}): field 'outputs' item 0 holds a lone UTF-16 surrogate "
               "('\\ud800' at offset")  # fmt: skip
    assert refusal in proc.stderr and f"{generations}: record 2 (" in proc.stderr
    assert proc.stderr.count("reported as malformed") == 2
    assert "Traceback" not in proc.stderr


def test_time_limit_is_max_of_floor_and_factor_times_reference(tmp_path, cache_dir):
    cfg = config(cache_dir, run_timeout_s=60.0, timeout_floor_s=5.0, timeout_factor=3.0)
    assert cfg.limits().wall_s == 60.0  # no reference time known (the reference's own runs)
    assert cfg.limits(reference_wall_s=1.0).wall_s == 5.0
    assert cfg.limits(reference_wall_s=4.0).wall_s == 12.0
    rows = pd.DataFrame([
        dict(problem="p", model="omp", ranks=1, threads=2, verdict="ok", run_wall_s=1.5),
        dict(problem="p", model="omp", ranks=1, threads=2, verdict="ok", run_wall_s=2.5),
        dict(problem="p", model="omp", ranks=1, threads=1, verdict="crash", run_wall_s=9.0),
    ])
    rows.to_parquet(tmp_path / "reference.parquet")
    assert evaluation.reference_run_times(tmp_path / "reference.parquet") == {("p", "omp", 1, 2): 2.5}
    with pytest.raises(ValueError, match="timeout_factor"):
        config(cache_dir, timeout_factor=0)


def race_problem():
    """The first problem whose OpenMP reference the reduction mutants apply to (a `parallel for` reducing with +,
    *, ^ or -), so that the test follows the suite's references as they change."""
    for problem in suite.load_suite():
        if generators.mutate(suite.reference_body(problem, "omp"), "missing_reduction", "") is not None:
            return problem
    pytest.fail("no OpenMP reference has a `parallel for` with a +, *, ^ or - reduction to mutate")


@pytest.mark.parametrize("mutant", ["missing_reduction", "data_race"])
def test_reduction_races_are_caught_in_every_run(tmp_path, cache_dir, mutant):
    # Validation alone (no race check): a race shows only when the threads overlap in time; the harness places
    # them so that they do (timing.placement_env, raised priority). 20 runs at 2 threads: every one must see the
    # wrong answer, and the reference must pass at the same configuration.
    problem = race_problem()
    samples, expected = samples_of("mutants", problem, ["omp"], mutants=[mutant], race_check=False)
    reference, _ = samples_of("reference", problem, ["omp"])
    cfg = config(cache_dir, reps=1, warmup=0)
    builds = BuildCache(BuildConfig(cache_dir=cache_dir, jobs=2)).build_all(
        [BuildRequest(problem=s.problem, exec_model=s.exec_model, body=s.body) for s in samples + reference])
    two_threads = ResourceConfig(ranks=1, threads=2)
    assert [e["expected_verdict"] for e in expected] == ["wrong_answer"]
    got = [evaluation.run_one(samples[0], builds[0].exe, [two_threads], cfg)[0][0] for _ in range(20)]
    assert got == ["wrong_answer"] * 20
    assert [evaluation.run_one(reference[0], builds[1].exe, [two_threads], cfg)[0][0] for _ in range(3)] == ["ok"] * 3


def test_reduction_mutants_only_where_the_verdict_is_certain():
    # min/max/||: a lost or repeated partial result often leaves the answer unchanged.
    for op in ("min", "max", "||", "|"):
        body = f"  int acc = 0;\n  #pragma omp parallel for reduction({op} : acc)\n  for (int i = 0; i < n; ++i) acc = f(acc, i);\n"
        assert generators.mutate(body, "missing_reduction", "") is None
        assert generators.mutate(body, "data_race", "") is None
    body = "  double s = 0;\n  #pragma omp parallel for reduction(+ : s) schedule(static)\n  for (int i = 0; i < n; ++i) s += x[i];\n"
    assert "reduction" not in generators.mutate(body, "missing_reduction", "")[0]
    assert "#pragma omp parallel reduction(+ : s)" in generators.mutate(body, "data_race", "")[0]
    # One update per thread at the end of a `parallel` region: a window of a few instructions, not mutated.
    region = "  #pragma omp parallel reduction(+ : s)\n  { double mine = part(); s += mine; }\n"
    assert generators.mutate(region, "missing_reduction", "") is None


def test_the_race_check_reports_a_missing_reduction_and_passes_the_reference(tmp_path, cache_dir):
    """The race check (ThreadSanitizer build, run once before any timed run) gives a missing reduction the
    verdict race_detected, as the generator expects, and nothing of it is timed; the reference is clean. The
    data_race mutant (every thread runs every iteration into its private copy) has no race: validation judges it."""
    problem = race_problem()
    samples, expected = samples_of("mutants", problem, ["omp"], mutants=["missing_reduction", "data_race"])
    reference, _ = samples_of("reference", problem, ["omp"])
    reference = [dataclasses.replace(reference[0], generator="mutants", sample_index=len(samples))]
    rows, _ = evaluation.evaluate_samples(samples + reference, tmp_path / "out", config(cache_dir, reps=1))
    assert [e["expected_verdict"] for e in expected] == ["race_detected", "wrong_answer"]
    check_expected(rows, expected)
    first = rows.drop_duplicates("sample_id").set_index("sample_index")
    assert first.loc[0, "race_check"] == "race" and "ThreadSanitizer: data race" in first.loc[0, "detail"]
    assert pd.isna(first.loc[0, "time_median_s"]) and (rows["sample_index"] == 0).sum() == 1  # never timed
    # The ThreadSanitizer build's run sees the wrong answer too: inconclusive as a race check, then validation judges.
    assert first.loc[1, "race_check"].startswith("inconclusive: the ThreadSanitizer build's run: wrong_answer")
    assert (rows[rows["sample_index"] == 2]["verdict"] == "ok").all()
    assert (rows[rows["sample_index"] == 2]["race_check"] == "clean").all()


@pytest.mark.parametrize("chunk", [65536, 4096])
def test_a_race_hidden_behind_a_large_chunk_is_caught(tmp_path, cache_dir, chunk):
    """search_closest_to_pi with `schedule(dynamic, chunk)` and no reduction: the shared arg-min is written
    racily. At the small size (1001 elements) one thread did all the work and the race check saw nothing (ok in
    26 of 27 RLPF evaluations); the check now runs at the timed size, where every thread works."""
    problem = suite.get_problem("search_closest_to_pi")
    body = suite.reference_body(problem, "serial").replace(
        "  for (size_t i = 1;", f"  #pragma omp parallel for schedule(dynamic,{chunk})\n  for (size_t i = 1;", 1)
    assert "schedule(dynamic" in body
    sample = Sample(generator="racy", problem=problem, exec_model="omp", sample_index=0, body=body)
    rows, _ = evaluation.evaluate_samples([sample], tmp_path / "out", config(cache_dir, reps=1))
    assert list(rows["verdict"]) == ["race_detected"] and list(rows["race_check"]) == ["race"]


def test_a_body_that_hangs_costs_seconds_in_its_race_check_too(tmp_path, cache_dir):
    """The race check's run (unjudged, ThreadSanitizer) has the judged runs' call limit, scaled by TSAN_SLOWDOWN: a
    validated call that never returns ends it within seconds (inconclusive), and the judged run that follows cuts its
    call (timeout); before, the race check held such a body to the run's whole limit (60 s in the default run)."""
    problem = race_problem()
    body = "  for (volatile unsigned long k = 0;; k = k + 1) {}\n" + suite.reference_body(problem, "omp")
    sample = Sample(generator="hangs", problem=problem, exec_model="omp", sample_index=0, body=body)
    cfg = config(cache_dir, reps=1, run_timeout_s=60.0, timeout_floor_s=1.0, timeout_factor=1.0, cpu_limit_s=120)
    started = time.monotonic()
    rows, _ = evaluation.evaluate_samples([sample], tmp_path / "out", cfg)
    assert set(rows["verdict"]) == {"timeout"}, rows["detail"].tolist()  # a row per thread count of its one run
    assert rows["race_check"][0].startswith("inconclusive: the ThreadSanitizer build's run: a validated call did not "
                                            "return within max(1 s, 20 x the baseline's time"), rows["race_check"][0]
    assert time.monotonic() - started < 30  # two call limits of about a second each, and the builds


def test_the_race_check_is_refused_without_its_tools(monkeypatch, cache_dir):
    monkeypatch.setattr(toolchains, "TSAN_COMPILER", ["no-such-clang++", "-fsanitize=thread"])
    toolchains.archer_library.cache_clear()
    try:
        with pytest.raises(ValueError, match="race_check is on, but no no-such-clang\\+\\+.*race_check: false"):
            config(cache_dir)
        assert config(cache_dir, race_check=False).race_check is False
    finally:
        monkeypatch.undo()
        toolchains.archer_library.cache_clear()
