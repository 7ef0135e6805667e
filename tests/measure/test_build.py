"""The content-addressed build cache: one compile per distinct source, none on a re-run; the confined compiler."""

import os
import subprocess
import threading
import time

import pytest

from workflow_scripts.measure import TAMPERING, build_cache, driver_program, sandbox, suite, toolchains
from workflow_scripts.measure.build_cache import BuildCache, BuildConfig, BuildRequest


@pytest.fixture()
def cache(tmp_path, cache_dir):
    # Fresh object/exe store per test; the driver objects are shared (compiled once per session).
    cfg = BuildConfig(cache_dir=tmp_path / "cache", jobs=2)
    instance = BuildCache(cfg)
    instance.drivers = cache_dir / "drivers"
    instance.drivers.mkdir(exist_ok=True)
    return instance


def count_compiles(monkeypatch):
    calls = []
    real = build_cache._run_compiler

    def counting(argv, *args, **kwargs):
        calls.append(argv)
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(build_cache, "_run_compiler", counting)
    return calls


def test_same_body_compiles_once_and_rerun_compiles_nothing(cache, problem, monkeypatch):
    body = suite.reference_body(problem, "serial")
    calls = count_compiles(monkeypatch)
    results = cache.build_all([BuildRequest(problem=problem, exec_model="serial", body=body)] * 3)
    assert [r.ok for r in results] == [True] * 3
    assert len({r.exe for r in results}) == 1
    assert len(calls) == 2  # one compile + one link for three identical samples
    assert not results[0].cached and results[1].cached and results[1].compile_s == 0.0
    calls.clear()
    again = cache.build_all([BuildRequest(problem=problem, exec_model="serial", body=body)])
    assert calls == [] and again[0].cached and again[0].exe == results[0].exe


def test_failure_is_cached_with_trimmed_log(cache, problem, monkeypatch):
    body = "  return undeclared_name + 1;\n}\n" + "// padding\n" * 10
    calls = count_compiles(monkeypatch)
    first = cache.build_all([BuildRequest(problem=problem, exec_model="serial", body=body)])[0]
    assert not first.ok and first.exe is None and "undeclared_name" in first.log
    assert "sample.cpp" in first.log  # the temporary file name is replaced by the sample's
    calls.clear()
    second = cache.build_all([BuildRequest(problem=problem, exec_model="serial", body=body)])[0]
    assert calls == [] and not second.ok and second.log == first.log


def test_key_depends_on_source_flags_and_compiler(cache, problem, monkeypatch):
    body = suite.reference_body(problem, "serial")
    base = cache.object_key(BuildRequest(problem=problem, exec_model="serial", body=body))
    assert cache.object_key(BuildRequest(problem=problem, exec_model="serial", body=body + " ")) != base
    assert cache.object_key(BuildRequest(problem=problem, exec_model="omp", body=body)) != base  # -fopenmp
    monkeypatch.setattr(build_cache, "compiler_version", lambda compiler: "g++ 99.0")
    assert cache.object_key(BuildRequest(problem=problem, exec_model="serial", body=body)) != base


def test_first_results_come_while_later_sources_still_build(cache, problem, monkeypatch):
    body = suite.reference_body(problem, "serial")
    requests = [BuildRequest(problem=problem, exec_model="serial", body=body + f"// {i}\n") for i in range(3)]
    release = threading.Event()
    real = BuildCache._compile_object

    def held(self, request, key):  # the last source waits until the test has seen the first result
        if request is requests[-1]:
            assert release.wait(60)
        return real(self, request, key)

    monkeypatch.setattr(BuildCache, "_compile_object", held)
    with cache.building(requests) as results:
        assert results[0].result(timeout=60).ok
        assert not results[-1].done()
        release.set()
    assert all(r.done() and r.result().ok for r in results)


def test_drivers_are_queued_one_problem_ahead_of_their_sources(tmp_path, cache, monkeypatch):
    # One worker: the pool's order is the queue's. Each driver comes before the sources of the problem
    # before its own, so that no link waits on a driver still compiling.
    cache.cfg.jobs = 1
    order = []
    real_driver, real_compile = driver_program.build_driver, BuildCache._compile_object
    monkeypatch.setattr(driver_program, "build_driver",
                        lambda problem, exec_model, where: order.append(f"driver {problem.name}") or real_driver(problem, exec_model, where))
    monkeypatch.setattr(BuildCache, "_compile_object",
                        lambda self, request, key: order.append(request.problem.name) or real_compile(self, request, key))
    problems = [suite.get_problem(name) for name in ("reduce_average", "transform_relu", "transform_squaring")]
    cache.build_all([BuildRequest(problem=p, exec_model="serial", body=suite.reference_body(p, "serial") + f"// {i}\n")
                     for p in problems for i in range(2)])  # fmt: skip
    a, b, c = (p.name for p in problems)
    assert order == [f"driver {a}", f"driver {b}", a, a, f"driver {c}", b, b, c, c]


def test_trim_log_keeps_head_and_tail():
    text = "E" * 100 + "x" * 10_000 + "T" * 100
    trimmed = build_cache.trim_log(text, 1000)
    assert len(trimmed) < 1100 and trimmed.startswith("E" * 100) and trimmed.endswith("T" * 100)
    assert "trimmed" in trimmed


def test_compile_timeout_kills_the_compiler(tmp_path):
    cfg = BuildConfig(cache_dir=tmp_path, compile_timeout_s=0.5)
    code, output = build_cache._run_compiler(["sleep", "30"], cfg, tmp_path)
    assert code == 124 and "killed after" in output


def test_compile_timeout_kills_the_whole_process_group(tmp_path):
    cfg = BuildConfig(cache_dir=tmp_path, compile_timeout_s=0.5)
    code, _ = build_cache._run_compiler(["sh", "-c", "sleep 31 & sleep 31 & wait"], cfg, tmp_path)
    assert code == 124
    uid = os.getuid() if sandbox.rootless() else sandbox.SANDBOX_UID  # the compiler's uid outside
    # SIGKILL is delivered at once but a loaded machine may take a moment to tear the processes down.
    deadline = time.monotonic() + 10
    while (survivors := subprocess.run(["pgrep", "-u", str(uid), "-f", "sleep 31"], capture_output=True).stdout):
        assert time.monotonic() < deadline, f"still running 10 s after the kill: {survivors!r}"
        time.sleep(0.1)


@pytest.mark.parametrize("read", ['#include "/etc/shadow"\n', 'asm(".incbin \\"/etc/shadow\\"");\n'])
def test_a_body_that_would_bring_a_host_file_into_its_build_is_refused_before_the_compiler_runs(cache, problem, read):
    """tampering.file_probe: nothing is compiled, so no compiler's log can quote the file."""
    body = read + suite.reference_body(problem, "serial")
    result = cache.build_all([BuildRequest(problem=problem, exec_model="serial", body=body)])[0]
    assert result.finding is not None and result.finding.verdict == TAMPERING and result.log == ""
    assert "line 1 of the body brings a file" in result.finding.detail


def test_compiler_runs_unprivileged_and_cannot_read_secrets(cache, problem):
    # /etc/shadow is readable by root only: the unprivileged compiler cannot open it (a pragma that names a file is
    # not among what tampering.file_probe refuses: the compiler's own confinement is the second line).
    body = '_Pragma("GCC dependency \\"/etc/shadow\\"")\n' + suite.reference_body(problem, "serial")
    result = cache.build_all([BuildRequest(problem=problem, exec_model="serial", body=body)])[0]
    assert not result.ok and ("Permission denied" in result.log or "file not found: /etc/shadow" in result.log)
    if os.access("/etc/shadow", os.R_OK):  # root mode: the harness could read it, the compiler could not
        shadow_first_line = open("/etc/shadow").readline().split(":")[0]
        assert f"{shadow_first_line}:" not in result.log


def test_a_samples_build_does_not_wait_for_the_race_check_builds_header(cache, problem, monkeypatch):
    """A source's key names its header's precompiled form, so the workers compute it once that header is built:
    the first sample is built while clang's header for the race-check builds is still being precompiled."""
    ok, why = toolchains.race_check_status()
    if not ok:
        pytest.skip(why)
    first_built, real = threading.Event(), toolchains.standard_header_dir

    def header_dir(exec_model, sanitizer=None):
        if sanitizer is not None:
            assert first_built.wait(60), "the race-check builds' header held up the first sample's build"
        return real(exec_model, sanitizer)

    monkeypatch.setattr(toolchains, "standard_header_dir", header_dir)
    requests = [BuildRequest(problem=problem, exec_model="serial", body=suite.reference_body(problem, "serial")),
                BuildRequest(problem=problem, exec_model="omp", body=suite.reference_body(problem, "omp"), sanitizer=toolchains.TSAN)]
    with cache.building(requests) as results:
        assert results[0].result(timeout=120).ok
        first_built.set()
        assert results[1].result(timeout=120).ok


def test_an_entry_above_the_size_cap_is_a_build_error_and_never_kept(tmp_path, cache_dir, problem):
    """`static volatile char big[...] = {1};` puts its bytes in the object and the executable: above
    max_entry_mb it is a build error with the reason, and nothing of it stays in the cache."""
    cfg = BuildConfig(cache_dir=tmp_path / "cache", jobs=2, max_entry_mb=2)
    capped = BuildCache(cfg)
    capped.drivers = cache_dir / "drivers"
    capped.drivers.mkdir(exist_ok=True)
    big = suite.reference_body(problem, "serial") + "static volatile char pcg_big[4 << 20] = {1};\n"
    small = suite.reference_body(problem, "serial")
    [too_big, fine] = capped.build_all([BuildRequest(problem=problem, exec_model="serial", body=b) for b in (big, small)])
    assert not too_big.ok and "above the build cache's limit of 2 MB" in too_big.log and fine.ok
    kept = [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and p.suffix != ".json"]
    assert all(p.stat().st_size < 2**20 for p in kept) and len(kept) == 2  # the small sample's object and exe


def test_the_cache_is_trimmed_to_its_total_cap_least_recently_used_first(tmp_path, cache_dir, problem):
    cfg = BuildConfig(cache_dir=tmp_path / "cache", jobs=2, max_cache_mb=1)
    capped = BuildCache(cfg)
    capped.drivers = cache_dir / "drivers"
    capped.drivers.mkdir(exist_ok=True)
    old = capped.objects / ("0" * 64 + ".o")  # an entry of an earlier evaluation, large and long unused
    old.write_bytes(b"\0" * (3 * 2**19))
    os.utime(old, (1, 1))
    reference = suite.reference_body(problem, "serial")
    results = capped.build_all([BuildRequest(problem=problem, exec_model="serial", body=reference + f"// {i}\n")
                                for i in range(3)])  # fmt: skip
    assert all(r.ok and r.exe.exists() for r in results)  # the batch's own entries are the newest: kept
    assert not old.exists()
    kept = [p for folder in (capped.objects, capped.exes) for p in folder.iterdir() if p.suffix != ".json"]
    assert sum(p.stat().st_size for p in kept) <= 2**20
