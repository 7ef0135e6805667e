"""The sandboxed runner: harmless programs behave, hostile ones are contained and classified.

Every program here runs through `run_sandboxed`; none runs on the host directly.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from workflow_scripts.measure import sandbox, verdicts
from workflow_scripts.measure.sandbox import SandboxLimits, run_sandboxed, verdict_for

PROGRAMS = Path(__file__).with_name("programs.cpp")
INSIDE = "/tmp/prog"  # where the executable appears inside the sandbox


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("sandbox") / "programs"
    subprocess.run(["g++", "-O1", "-std=c++17", "-pthread", str(PROGRAMS), "-o", str(exe)], check=True)
    return exe


def run(exe: Path, *args: str, **limit_overrides) -> sandbox.SandboxResult:
    limits = SandboxLimits(**({"wall_s": 5.0} | limit_overrides))
    return run_sandboxed([INSIDE, *args], limits=limits, binds={exe: INSIDE})


def host_uid() -> int:
    """The uid the sandboxed programs have outside the sandbox: 65534 in root mode, the caller's in rootless."""
    return os.getuid() if sandbox.rootless() else sandbox.SANDBOX_UID


def host_dir() -> Path:
    """A host directory outside /tmp (the sandbox's /tmp is its own) that this user may write and the sandbox
    must still not: a fresh one under /var/tmp, never the checkout's results/."""
    base = Path(os.environ.get("PCGBENCH_TEST_HOSTDIR", "/var/tmp"))
    return Path(tempfile.mkdtemp(prefix="pcgbench-sandbox-test-", dir=base))


def nobody_processes() -> list[str]:
    """Surviving processes of this file's test program (others' sandboxed programs may run meanwhile)."""
    out = subprocess.run(["ps", "-u", str(host_uid()), "-o", "pid=,comm="], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line.split()[-1] == "prog"]


# ---- harmless programs: the runner's own behaviour


def test_exit_zero_captures_stdout(programs):
    result = run(programs, "hello", "world")
    assert (result.outcome, result.returncode, result.stdout) == (sandbox.EXITED, 0, "hello world\n")
    assert verdict_for(result) is None


def test_nonzero_exit_is_a_crash_with_stderr_kept(programs):
    result = run(programs, "exit3")
    assert (result.outcome, result.returncode, result.stderr) == (sandbox.EXITED, 3, "bad\n")
    assert verdict_for(result) == verdicts.CRASH


def test_abort_is_signaled_crash(programs):
    result = run(programs, "abort")
    assert result.outcome == sandbox.SIGNALED and result.signal_number == 6
    assert verdict_for(result) == verdicts.CRASH


def test_environment_is_minimal_and_extra_env_passes(programs, monkeypatch):
    monkeypatch.setenv("PCGBENCH_SECRET", "leak")
    assert run(programs, "env", "PCGBENCH_SECRET").stdout == "(unset)\n"
    limits = SandboxLimits(wall_s=5.0)
    result = run_sandboxed([INSIDE, "env", "OMP_NUM_THREADS"], limits=limits, binds={programs: INSIDE},
                           env={"OMP_NUM_THREADS": "2"})  # fmt: skip
    assert result.stdout == "2\n"


def test_runs_unprivileged_in_writable_private_tmp(programs):
    assert run(programs, "whoami").stdout == f"uid={sandbox.SANDBOX_UID} cwd_writable=1\n"


def test_raised_priority_holds_and_cannot_be_raised_further(programs):
    if not sandbox.can_raise_priority():
        pytest.skip("needs CAP_SYS_NICE (root)")
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert run(programs, "priority").stdout == f"nice={own} lowered=0\n"
    result = run_sandboxed([INSIDE, "priority"], limits=SandboxLimits(wall_s=5.0), binds={programs: INSIDE}, nice=-7)
    assert result.stdout == "nice=-7 lowered=0\n"


def test_a_run_given_cores_is_pinned_to_that_many_and_the_harness_keeps_its_own():
    available = os.sched_getaffinity(0)
    pinned = run_sandboxed(["sh", "-c", "grep Cpus_allowed_list /proc/self/status"], limits=SandboxLimits(wall_s=5.0, cores=1))
    assert pinned.stdout.split() == ["Cpus_allowed_list:", str(min(available))]
    assert run_sandboxed(["nproc"], limits=SandboxLimits(wall_s=5.0)).stdout == f"{len(available)}\n"
    assert run_sandboxed(["nproc"], limits=SandboxLimits(wall_s=5.0, cores=64)).stdout == f"{len(available)}\n"
    assert os.sched_getaffinity(0) == available


def test_wall_timeout_kills(programs):
    result = run(programs, "sleep", "30", wall_s=1.0)
    assert result.outcome == sandbox.TIMEOUT and result.wall_s < 4.0
    assert verdict_for(result) == verdicts.VERDICT_TIMEOUT


def test_missing_bwrap_refuses_to_run(programs, monkeypatch):
    real_which = shutil.which
    monkeypatch.setattr(sandbox.shutil, "which", lambda tool: None if tool == "bwrap" else real_which(tool))
    with pytest.raises(sandbox.SandboxUnavailable, match="bwrap"):
        run(programs, "hello")


def test_limits_check_themselves():
    with pytest.raises(ValueError, match="wall_s"):
        SandboxLimits(wall_s=0)


# ---- hostile programs: contained, classified, nothing survives


def test_fork_bomb_is_contained(programs):
    result = run(programs, "fork_bomb", wall_s=3.0, max_processes=64)
    assert verdict_for(result) == verdicts.VERDICT_TIMEOUT
    assert nobody_processes() == []


def test_infinite_loop_times_out(programs):
    assert verdict_for(run(programs, "infinite_loop", wall_s=1.5)) == verdicts.VERDICT_TIMEOUT


def test_cpu_limit_is_a_resource_kill(programs):
    assert verdict_for(run(programs, "cpu_burn", wall_s=10.0, cpu_limit_s=1)) == verdicts.KILLED_RESOURCE_LIMIT


def test_huge_allocation_is_refused(programs):
    result = run(programs, "huge_alloc")
    assert "bad_alloc" in result.stderr
    assert verdict_for(result) == verdicts.KILLED_RESOURCE_LIMIT


def test_disk_filler_hits_file_size_limit(programs):
    result = run(programs, "disk_filler", file_size_mb=16)
    assert result.outcome == sandbox.SIGNALED and result.signal_number == 25  # SIGXFSZ
    assert verdict_for(result) == verdicts.KILLED_RESOURCE_LIMIT


def test_many_files_stop_at_tmpfs_size(programs):
    result = run(programs, "many_files", tmp_mb=32)
    assert result.stdout == "stopped\n"  # ENOSPC on the private tmpfs, nothing written to the host


def test_no_network(programs):
    result = run(programs, "tcp")
    assert result.stdout.startswith("refused")


def test_cannot_write_outside(programs, tmp_path_factory):
    # A host directory outside /tmp, writable on the host: still read-only inside.
    target = host_dir() / "sandbox_escape_marker"
    target.unlink(missing_ok=True)
    result = run(programs, "write_outside", str(target))
    assert result.stdout.startswith("denied") and not target.exists()


def test_cannot_delete_host_files(programs):
    canary = host_dir() / "sandbox_canary"
    canary.write_text("keep")
    try:
        result = run(programs, "delete", str(canary))
        assert result.stdout.startswith("denied") and canary.read_text() == "keep"
        # Its own executable is a read-only mount: it cannot delete that either.
        assert run(programs, "delete", INSIDE).stdout.startswith("denied")
    finally:
        canary.unlink()


def test_kill_parent_and_kill_all_reach_nothing_outside(programs):
    sentinel = subprocess.Popen(["sleep", "30"])
    try:
        # Root mode: its parent (the namespace's PID 1) is root's, so kill() fails. Rootless mode: the same uid,
        # so kill() returns 0, but the kernel drops a signal sent to a namespace's init from inside it.
        assert run(programs, "kill_parent").stdout == ("kill_parent 0\n" if sandbox.rootless() else "kill_parent -1\n")
        run(programs, "kill_all")
        assert run(programs, "kill_pid", str(os.getpid())).stdout == "kill_pid -1\n"  # no such pid inside
        assert sentinel.poll() is None  # the host process is alive, and so is this test
    finally:
        sentinel.kill()
        sentinel.wait()


def test_printing_1gb_is_capped(programs):
    result = run(programs, "print_1gb", output_bytes=1 << 16)
    assert result.outcome == sandbox.OUTPUT_LIMIT and len(result.stdout) == 1 << 16
    assert verdict_for(result) == verdicts.KILLED_RESOURCE_LIMIT


def test_stack_overflow_is_a_crash(programs):
    result = run(programs, "stack_overflow")
    assert result.outcome == sandbox.SIGNALED and result.signal_number == 11
    assert verdict_for(result) == verdicts.CRASH


@pytest.mark.parametrize("mode", ["detached_thread", "detached_daemon"])
def test_detached_sleepers_do_not_hold_the_harness(programs, mode):
    result = run(programs, mode, wall_s=10.0)
    assert result.outcome == sandbox.EXITED and result.stdout == "main done\n" and result.wall_s < 5.0
    assert nobody_processes() == []
