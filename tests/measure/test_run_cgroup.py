"""A memory control group per run (workflow_scripts/measure/run_cgroup.py): the memory of all a run's processes
together is bounded, the verdict says so, the run's usage is the whole run's, and no group outlives its run.

Root mode only: a normal user has no delegated cgroup here, and the per-process limits stand in (run_cgroup.py says
which); test_rootless.py holds what rootless mode must still refuse.
"""

import os
from pathlib import Path

import pytest

from workflow_scripts.measure import (
    KILLED_RESOURCE_LIMIT,
    OK,
    BuildCache,
    BuildConfig,
    BuildRequest,
    RunProtocol,
    SandboxLimits,
    run_program,
    suite,
)
from workflow_scripts.measure.run_cgroup import GROUP_PREFIX, memory_hierarchy
from workflow_scripts.measure.sandbox import run_sandboxed, verdict_for

pytestmark = pytest.mark.skipif(memory_hierarchy() is None, reason="no control group per run here (rootless mode or no "
                                "writable cgroup v1 memory hierarchy)")

PYTHON = "/usr/bin/python3"  # the system's: the sandbox shows /usr, not the project's virtual environment
# Three forked children of 600 MB each: every process under its own address-space limit, together over the run's.
THREE_CHILDREN = """
import os, time
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        held = bytearray(600 << 20)  # zero-filled: resident
        time.sleep(2)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
print("all children done")
"""


def own_groups() -> list[Path]:
    return list(memory_hierarchy().glob(f"{GROUP_PREFIX}{os.getpid()}-*"))


def test_processes_that_together_exceed_the_run_memory_are_stopped_for_it():
    limits = SandboxLimits(wall_s=60.0, memory_mb=1024, run_memory_mb=1024)
    result = run_sandboxed([PYTHON, "-c", THREE_CHILDREN], limits=limits)
    assert result.usage.memory_limit_hit
    assert result.usage.memory_peak_mb <= 1024 + 1
    assert verdict_for(result) == KILLED_RESOURCE_LIMIT
    assert "held more than the run's 1024 MB" in result.usage.describe()


def test_the_same_processes_within_the_run_memory_pass_and_their_usage_is_the_whole_runs():
    limits = SandboxLimits(wall_s=60.0, memory_mb=1024, run_memory_mb=3072)
    result = run_sandboxed([PYTHON, "-c", THREE_CHILDREN], limits=limits)
    assert (result.outcome, result.returncode, result.stdout) == ("exited", 0, "all children done\n"), result.stderr
    assert verdict_for(result) is None
    assert not result.usage.memory_limit_hit
    assert result.usage.memory_peak_mb > 3 * 600  # the three children together, not one process


def test_no_group_outlives_its_run():
    for _ in range(3):
        run_sandboxed(["true"], limits=SandboxLimits(wall_s=30.0))
    assert own_groups() == []


def test_mpi_ranks_that_together_exceed_the_run_memory_get_killed_resource_limit(tmp_path):
    """The red team's 'memory beyond the limit' class in the model where a sample still has several processes: two
    MPI ranks of 700 MB each, each under the per-process limit, together over the run's."""
    problem = suite.get_problem("reduce_average")
    body = ("static std::vector<double> held(700u << 17, 1.0);  // 700 MB a rank, kept resident\n"
            "int rank = 0, size = 1; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
            "double local = held[rank]; for (size_t i = x.size() * rank / size; i < x.size() * (rank + 1) / size; ++i) "
            "local += x[i];\nlocal -= held[rank];\n"
            "double s = 0; MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\nreturn s / x.size();\n}")
    build, = BuildCache(BuildConfig(cache_dir=tmp_path, jobs=2)).build_all(
        [BuildRequest(problem=problem, exec_model="mpi", body=body)])
    assert build.ok and build.finding is None, build.log or build.finding
    protocol = RunProtocol(warmup=0, reps=1, validations=1, seed=1234, ranks=2, threads=1, nice=0)
    over = run_program(problem, "mpi", build.exe, protocol,
                       SandboxLimits(wall_s=120.0, cpu_limit_s=60, memory_mb=4096, run_memory_mb=1200))
    assert over.verdict == KILLED_RESOURCE_LIMIT, over.detail
    assert "together held more than the run's 1200 MB" in over.detail
    within = run_program(problem, "mpi", build.exe, protocol,
                         SandboxLimits(wall_s=120.0, cpu_limit_s=60, memory_mb=4096, run_memory_mb=4096))
    assert within.verdict == OK, within.detail


def test_a_hierarchy_that_refuses_the_group_leaves_the_per_process_limits(monkeypatch, tmp_path):
    from workflow_scripts.measure import run_cgroup

    monkeypatch.setattr(run_cgroup, "memory_hierarchy", lambda: tmp_path / "not-there")
    assert run_cgroup.RunCgroup.make(memory_mb=64) is None
    result = run_sandboxed(["true"], limits=SandboxLimits(wall_s=30.0))
    assert (result.outcome, result.returncode, result.usage) == ("exited", 0, None)
