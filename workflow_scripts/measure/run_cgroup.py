"""One memory control group per sandboxed run: the memory of the whole run, not of each process.

    group = RunCgroup.make(memory_mb=4096)   # None where the harness cannot make one
    argv = group.enter_argv() + argv         # the run's first process joins it, and all it starts
    ... run, then make sure nothing of it is left ...
    usage = group.close()                    # RunUsage: the limit, the peak, whether the kernel stopped the run at it

Why: RLIMIT_AS is per process. A run of three forked children of 2.5 GB each held 7.4 GB of the host's memory
under an RLIMIT_AS of 4096 MB. A memory control group bounds the resident memory of every process of the run
together (its private /tmp and /dev/shm files included: tmpfs pages are charged to the group that wrote them).
When the run's processes together reach the limit the kernel kills one of them (the group's OOM killer); the
group's `oom_kill` count then says that the run was stopped for its memory (verdicts.KILLED_RESOURCE_LIMIT), not
that it crashed. The run's processes and threads together are bounded without a group: RLIMIT_NPROC counts them in
the run's own user namespace (sandbox.py), so it is already a limit of the whole run.

Where: the cgroup v1 `memory` controller (what this project's machines have: ../shared/PLATFORM.md), the run's
group made below the harness's own, so that limits set above the harness (a container's, a SLURM job's) still
hold. Making a group needs write access there: root, or a delegated hierarchy. Where there is none (rootless mode:
a normal user, no delegated cgroup; a unified cgroup v2 hierarchy, which this module does not drive yet)
`RunCgroup.make` returns None, logs once why, and the per-process limits stand in: RLIMIT_AS per process and the
system-call filter that refuses a sample new processes (drivers/confine.hpp), so a sample's memory is at most
RLIMIT_AS times the processes its runtime starts (its MPI ranks).

Cost: about 14 ms a run (benchmarks/run_cgroup_cost.py, 2026-12-07, 2 cores at load 4.6: 27.5 ms against 13.1 ms
for a sandboxed `true`), nearly all of it the move of the run's first process into the group (cgroup v1 makes a
move wait for the kernel's RCU; making and removing the group take under 1 ms). So runs get a group and compiles do
not (sandbox.run_sandboxed): a compile's tools run one after another, each under its own RLIMIT_AS. Joining the
`pids` and `cpuacct` hierarchies as well would cost as much again each, for a task limit RLIMIT_NPROC already gives
and CPU time no verdict reads.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import logging
import os
import secrets
import time
from pathlib import Path

logger = logging.getLogger(__name__)

GROUP_PREFIX = "pcgbench-run-"  # the run groups' names: GROUP_PREFIX, the harness's pid, a counter, random bits
_counter = itertools.count()


@dataclasses.dataclass(frozen=True)
class RunUsage:
    """What a whole run used, read from its control group once nothing of it is left."""

    memory_limit_mb: int | None  # the limit set on the run's processes together (None: none)
    memory_peak_mb: float  # the largest resident memory of all its processes together (tmpfs files included)
    memory_limit_hit: bool  # the kernel killed one of its processes for the group's memory (oom_kill > 0)

    def describe(self) -> str:
        """Why the run was stopped for its memory, in the harness's words ('' when it was not)."""
        if not self.memory_limit_hit:
            return ""
        return (f"its processes together held more than the run's {self.memory_limit_mb} MB of memory "
                f"(peak {self.memory_peak_mb:.0f} MB); the kernel killed one of them")


@functools.cache
def memory_hierarchy() -> Path | None:
    """The folder of this process's own group in the cgroup v1 memory hierarchy, where run groups are made, or None
    where the harness cannot make them (why logged once)."""
    if os.geteuid() != 0:
        logger.info("no control group per run (rootless mode: no delegated cgroup); per-process limits stand in")
        return None
    mount = next((Path(before.split()[4]) for before, _, after in
                  (line.partition(" - ") for line in Path("/proc/self/mountinfo").read_text().splitlines())
                  if after.split()[0] == "cgroup" and "memory" in after.split()[2].split(",")), None)  # fmt: skip
    own = next((path for _, names, path in (line.split(":", 2) for line in
                                            Path("/proc/self/cgroup").read_text().splitlines())
                if "memory" in names.split(",")), None)  # fmt: skip
    if mount is None or own is None:
        logger.warning("no control group per run: no cgroup v1 memory hierarchy here (a unified cgroup v2 hierarchy "
                       "is not driven yet); per-process limits stand in")
        return None
    folder = mount / own.lstrip("/")
    if not os.access(folder, os.W_OK):
        logger.warning("no control group per run: cannot make groups in %s; per-process limits stand in", folder)
        return None
    _remove_stale(folder)
    return folder


def _remove_stale(folder: Path) -> None:
    """Remove the empty run groups a killed harness left (their harness's pid gone)."""
    for group in folder.glob(GROUP_PREFIX + "*"):
        pid = group.name[len(GROUP_PREFIX):].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                group.rmdir()
            except OSError:
                pass  # not empty (something still runs in it) or already gone


@functools.cache
def _warn_unmade(why: str) -> None:
    logger.warning("could not make a run's control group (%s): the run has the per-process limits only", why)


@dataclasses.dataclass
class RunCgroup:
    """The memory control group of one run, with its limit set."""

    path: Path
    memory_limit_mb: int | None

    @classmethod
    def make(cls, *, memory_mb: int | None) -> RunCgroup | None:
        """The group of a new run, limited to `memory_mb` of resident memory (None: no limit of its own, only its
        usage read); None where it cannot be made here."""
        folder = memory_hierarchy()
        if folder is None:
            return None
        group = cls(path=folder / f"{GROUP_PREFIX}{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}",
                    memory_limit_mb=memory_mb)  # fmt: skip
        try:
            group.path.mkdir()
            if memory_mb is not None:
                (group.path / "memory.limit_in_bytes").write_text(str(memory_mb << 20))
                if (group.path / "memory.memsw.limit_in_bytes").exists():  # swap counted too, where accounted
                    (group.path / "memory.memsw.limit_in_bytes").write_text(str(memory_mb << 20))
        except OSError as err:  # a hierarchy that refuses a new group (its own limits, a read-only mount): none
            group.remove()
            _warn_unmade(str(err))
            return None
        return group

    def enter_argv(self) -> list[str]:
        """A prefix that moves the command's first process into the group before it execs the rest: everything
        it starts is then in it (a process cannot leave a group it was not given write access to: the files
        are root's, the run is uid 65534)."""
        return ["sh", "-c", 'echo $$ > "$1" && shift && exec "$@"', "pcgbench-cgroup", str(self.path / "cgroup.procs")]

    def usage(self) -> RunUsage:
        oom = dict(line.split() for line in (self.path / "memory.oom_control").read_text().splitlines())
        return RunUsage(
            memory_limit_mb=self.memory_limit_mb,
            memory_peak_mb=int((self.path / "memory.max_usage_in_bytes").read_text()) / (1 << 20),
            memory_limit_hit=int(oom.get("oom_kill", 0)) > 0,
        )

    def close(self) -> RunUsage:
        """Read the run's usage and remove its group. Call once nothing of the run is left (sandbox._supervise
        makes sure of that); a group whose last task is still leaving is retried for up to a second."""
        try:
            return self.usage()
        finally:
            self.remove()

    def remove(self) -> None:
        for _ in range(1000):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:  # EBUSY: a task is still on its way out
                time.sleep(0.001)
        logger.warning("could not remove the run group %s (tasks left in it)", self.path)
