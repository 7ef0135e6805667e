"""One control group per sandboxed run: memory, processes and CPU time of the whole run, not of each process.

    group = RunCgroup.make(memory_mb=4096, max_tasks=256)   # None where the harness cannot make one
    argv = group.enter_argv() + argv                          # the run's first process joins it, and all it starts
    ... run, then make sure nothing of it is left ...
    usage = group.close()                                    # RunUsage: peak memory, limit hits, CPU seconds

Why: rlimits are per process. A run of three forked children of 2.5 GB each held 7.4 GB of the host's memory
under an RLIMIT_AS of 4096 MB, and RLIMIT_NPROC counts processes, not what they hold. A control group bounds the
resident memory of every process of the run together (its private /tmp and /dev/shm files included: tmpfs pages
are charged to the group that wrote them), its tasks (processes and threads) together, and adds up the CPU time
of all of them, the judge and mpirun included, whatever the sample's processes do to their own accounting.
When the run's processes together reach the memory limit the kernel kills one of them (the group's OOM killer);
the group's `oom_kill` count then says that the run was stopped for its memory (verdicts.KILLED_RESOURCE_LIMIT),
not that it crashed.

Where: the cgroup v1 controllers `memory`, `pids` and `cpuacct`, each mounted on its own hierarchy (what this
project's machines have: ../shared/PLATFORM.md), with the run's group made below the harness's own group in each,
so that limits set above the harness (a container's, a SLURM job's) still hold. Making a group needs write access
there: root, or a delegated hierarchy. Where there is none (rootless mode: a normal user, no delegated cgroup;
a unified cgroup v2 hierarchy, which this module does not drive yet) `RunCgroup.make` returns None, logs once
why, and the per-process limits stand in: RLIMIT_AS per process, RLIMIT_NPROC per run (counted in the run's own
user namespace: sandbox.py), and the system-call filter that refuses a sample new processes
(drivers/confine.hpp), so a sample's memory is at most RLIMIT_AS times the processes its runtime starts.

Cost: making and removing three groups and one `sh` exec that joins them, about 2 ms a run
(benchmarks/harness_throughput.py).
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

CONTROLLERS = ("memory", "pids", "cpuacct")
GROUP_PREFIX = "pcgbench-run-"  # the run groups' names: GROUP_PREFIX, the harness's pid, a counter, random bits
# Tasks of the wrappers (the joining sh, bwrap and its PID 1) that are not the run's own: the run keeps max_tasks.
WRAPPER_TASKS = 4
_counter = itertools.count()


@dataclasses.dataclass(frozen=True)
class RunUsage:
    """What a whole run used, read from its control group once nothing of it is left."""

    memory_limit_mb: int | None  # the limit set on the run's processes together (None: none)
    memory_peak_mb: float  # the largest resident memory of all its processes together (tmpfs files included)
    memory_limit_hit: bool  # the kernel killed one of its processes for the group's memory (oom_kill > 0)
    tasks_peak: int  # the most processes and threads alive at once, wrappers included
    task_limit_hit: bool  # a fork or thread creation was refused at the group's task limit
    cpu_s: float  # CPU time of all its processes and threads, user and system

    def describe(self) -> str:
        """Why the run was stopped for its resources, in the harness's words ('' when it was not)."""
        parts = []
        if self.memory_limit_hit:
            parts.append(f"its processes together held more than the run's {self.memory_limit_mb} MB of memory "
                         f"(peak {self.memory_peak_mb:.0f} MB); the kernel killed one of them")
        if self.task_limit_hit:
            parts.append(f"it tried to have more than the run's tasks (peak {self.tasks_peak} processes and threads)")
        return "; ".join(parts)


@functools.cache
def hierarchies() -> dict[str, Path] | None:
    """Each controller's folder for this process's own group ({controller: path}), or None where the harness
    cannot make run groups (why logged once)."""
    if os.geteuid() != 0:
        logger.info("no control group per run (rootless mode: no delegated cgroup); per-process limits stand in")
        return None
    mounts: dict[str, Path] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, _, after = line.partition(" - ")
        fields, (fstype, _source, options) = before.split(), after.split()[:3]
        if fstype == "cgroup":
            for controller in set(options.split(",")) & set(CONTROLLERS):
                mounts[controller] = Path(fields[4])
    own: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        for controller in names.split(","):
            own[controller] = path
    missing = [c for c in CONTROLLERS if c not in mounts or c not in own]
    if missing:
        logger.warning("no control group per run: the cgroup v1 controller(s) %s are not mounted here (a unified "
                       "cgroup v2 hierarchy is not driven yet); per-process limits stand in", ", ".join(missing))
        return None
    found = {c: mounts[c] / own[c].lstrip("/") for c in CONTROLLERS}
    unwritable = [str(path) for path in found.values() if not os.access(path, os.W_OK)]
    if unwritable:
        logger.warning("no control group per run: cannot make groups in %s; per-process limits stand in",
                       ", ".join(unwritable))
        return None
    _remove_stale(found)
    return found


def _remove_stale(found: dict[str, Path]) -> None:
    """Remove the empty run groups a killed harness left (their harness's pid gone)."""
    for folder in found.values():
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
    """The control groups of one run (one per controller, CONTROLLERS), with its limits set."""

    paths: dict[str, Path]
    memory_limit_mb: int | None

    @classmethod
    def make(cls, *, memory_mb: int | None, max_tasks: int) -> RunCgroup | None:
        """The groups of a new run, limited to `memory_mb` of resident memory (None: no limit of its own) and
        `max_tasks` processes and threads besides the wrappers'; None where they cannot be made here."""
        found = hierarchies()
        if found is None:
            return None
        name = f"{GROUP_PREFIX}{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}"
        paths = {controller: folder / name for controller, folder in found.items()}
        group = cls(paths=paths, memory_limit_mb=memory_mb)
        try:
            for path in paths.values():
                path.mkdir()
            memory = paths["memory"]
            if memory_mb is not None:
                (memory / "memory.limit_in_bytes").write_text(str(memory_mb << 20))
                if (memory / "memory.memsw.limit_in_bytes").exists():  # swap counted too, where accounted
                    (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_mb << 20))
            (paths["pids"] / "pids.max").write_text(str(max_tasks + WRAPPER_TASKS))
        except OSError as err:  # a hierarchy that refuses a new group (its own limits, a read-only mount): none
            group.remove()
            _warn_unmade(str(err))
            return None
        return group

    def enter_argv(self) -> list[str]:
        """A prefix that moves the command's first process into the groups before it execs the rest: everything
        it starts is then in them (a process cannot leave a group it was not given write access to: the files
        are root's, the run is uid 65534)."""
        procs = [str(path / "cgroup.procs") for path in self.paths.values()]
        join = " && ".join(f'echo $$ > "${i + 1}"' for i in range(len(procs)))
        return ["sh", "-c", f'{join} && shift {len(procs)} && exec "$@"', "pcgbench-cgroup", *procs]

    def usage(self) -> RunUsage:
        memory, pids = self.paths["memory"], self.paths["pids"]
        oom = dict(line.split() for line in (memory / "memory.oom_control").read_text().splitlines())
        events = dict(line.split() for line in (pids / "pids.events").read_text().splitlines())
        peak_file = pids / "pids.peak"
        return RunUsage(
            memory_limit_mb=self.memory_limit_mb,
            memory_peak_mb=int((memory / "memory.max_usage_in_bytes").read_text()) / (1 << 20),
            memory_limit_hit=int(oom.get("oom_kill", 0)) > 0,
            tasks_peak=int(peak_file.read_text()) if peak_file.exists() else 0,
            task_limit_hit=int(events.get("max", 0)) > 0,
            cpu_s=int((self.paths["cpuacct"] / "cpuacct.usage").read_text()) / 1e9,
        )

    def close(self) -> RunUsage:
        """Read the run's usage and remove its groups. Call once nothing of the run is left (sandbox._supervise
        makes sure of that); a group whose last task is still leaving is retried for up to a second."""
        try:
            return self.usage()
        finally:
            self.remove()

    def remove(self) -> None:
        for path in self.paths.values():
            for _ in range(1000):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY: a task is still on its way out
                    time.sleep(0.001)
            else:
                logger.warning("could not remove the run group %s (tasks left in it)", path)
