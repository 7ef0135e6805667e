"""The one way to run a program built from generated code: inside bubblewrap, as an unprivileged user.

    limits = SandboxLimits(wall_s=10.0)
    result = run_sandboxed(["./a.out"], limits=limits, binds={exe_path: "/tmp/sample.exe"})
    result.outcome     # EXITED | TIMEOUT | SIGNALED | OUTPUT_LIMIT
    verdict_for(result) # the harness's verdict for a run that did not exit cleanly

What the program sees (bubblewrap 0.8+, util-linux prlimit and setpriv), in both modes below:
- the host file system read-only (`--ro-bind / /`), a fresh /dev and /proc;
- a private, size-limited tmpfs at /tmp (its only writable place and its working directory) and at
  /dev/shm (OpenMPI's shared-memory transport lives there);
- no network (`--unshare-net`: only a loopback of its own), its own PID and IPC namespaces, so
  `kill(-1)` and `kill(getppid())` reach nothing outside; `--die-with-parent` and `--new-session`;
- rlimits set by `prlimit` (CPU seconds, address space, file size, processes, open files, stack), and
  uid/gid 65534 with no capabilities.

Two modes, chosen by who runs the harness (`rootless()`):
- Root mode (the harness runs as root, as in this project's own machine): after `prlimit`, `setpriv`
  drops to uid/gid 65534 with no capabilities. The drop matters: the kernel does not apply RLIMIT_NPROC
  to root, so without it a fork bomb fills the machine's PID table (measured: 32768 processes in
  seconds; with the drop it stops at the limit). The compiler runs the same way without the namespaces
  (run_confined).
- Rootless mode (a normal user, e.g. on a cluster node, where `setpriv --reuid` is not permitted):
  bubblewrap also makes an unprivileged user namespace (`--unshare-user --uid 65534 --gid 65534`), in
  which the program is uid 65534 with no capabilities; outside it is still the calling user, so it can
  touch nothing that user could not (and, through the read-only bind, writes nothing outside its tmpfs).
  No `setpriv`. RLIMIT_NPROC holds: the caller is not root, and since Linux 5.14 the kernel counts a
  user's processes per user namespace, so the limit counts the sandbox's own processes only (its
  parent namespaces' counts, the user's whole count among them, are held to the user's own limits as
  well; before 5.14 the count covers all of the user's processes, and the self-check warns). The
  compiler runs in a user namespace too (run_confined), so its process limit counts its own
  processes, not every process of the user. Limits above the user's hard limits (which only root may
  raise) are refused before the run with the name of the setting. Where the kernel or the site forbids
  unprivileged user namespaces, the harness stops and says what to ask the site for.
Both modes contain the same hostile programs with the same verdicts (tests/pcgbench_harness/
test_rootless.py runs them as a normal user); what rootless mode lacks is the raised priority below.

With `nice` < 0 (timed runs; needs CAP_SYS_NICE, i.e. root mode) the sandboxed process and its session's
autogroup run at that raised priority, set before the uid drop so the program cannot raise it further.
Why: the timing protocol assumes the cores it times on are the program's alone, as on an exclusive
cluster node. On a shared machine the scheduler otherwise hands the program's threads one core in
turn (Linux autogroups give every session one fair share, and a parallel region's share of a few ms
finishes before the next thread is scheduled): measured here at load 8-12, the two threads of a 2-thread
sum ran one after the other in most runs, which made speedups vary by 2x between evaluations and let an
unsynchronised `sum +=` (missing reduction clause) give the right answer; at nice -15 every one of 20
runs lost updates. The priority lasts only as long as the run, but all of it: a hostile program (a
fork bomb) holds the machine's cores at that priority until its wall-clock limit, as it would hold an
exclusive node. In rootless mode the priority step is skipped, with one warning (can_raise_priority):
on an exclusive node (a whole SLURM allocation) that changes nothing; on a shared one, races can go
unseen and timings follow the other load.
The parent enforces a wall-clock deadline (it kills bwrap's whole process group; bwrap is PID 1 of
the namespace, so every process inside dies with it) and caps captured output: a program that
prints past the cap is killed and reported as OUTPUT_LIMIT.

A failure of the sandbox is never a verdict on a sample:
- before the first run of a process, check_sandbox() runs a trivial program through the exact sandbox
  and confinement command lines and requires its output (run_sandboxed and run_confined call it; it is
  cached), raising SandboxUnavailable with the tool and the fix when it fails;
- if bubblewrap, prlimit or setpriv is missing, SandboxUnavailable says which: the harness never falls
  back to running untrusted code unsandboxed;
- a run whose wrapper failed before the program started (bwrap, prlimit, setpriv or nice printed its own
  error and exited with its own code) raises SandboxFailure, which stops the evaluation, instead of
  becoming a build_error or a crash. A program that prints such a message itself only stops the
  evaluation too, with the self-check's result in the message; it gains no verdict by it.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import re
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

logger = logging.getLogger(__name__)

# How a sandboxed run ended (the runner's view; verdicts are the harness's view, below).
EXITED = "exited"  # the program exited by itself (any exit code)
TIMEOUT = "timeout"  # the wall-clock deadline passed and the sandbox was killed
SIGNALED = "signaled"  # the program died of a signal (SIGSEGV, SIGABRT, SIGXCPU, ...)
OUTPUT_LIMIT = "output_limit"  # it printed more than the cap and was killed

# Verdicts of one sample (exactly these strings land in results.parquet).
BUILD_ERROR = "build_error"
VERDICT_TIMEOUT = "timeout"
CRASH = "crash"
WRONG_ANSWER = "wrong_answer"
KILLED_RESOURCE_LIMIT = "killed_resource_limit"
NO_PARALLELISM = "no_parallelism"
OK = "ok"
# A ThreadSanitizer run of the program reported a data race (run.check_races): never timed, not a pass.
RACE_DETECTED = "race_detected"
# The record's prompt declares another interface than the problem its name names: not built, not scored.
PROMPT_MISMATCH = "prompt_mismatch"
VERDICTS = (PROMPT_MISMATCH, BUILD_ERROR, VERDICT_TIMEOUT, CRASH, WRONG_ANSWER, RACE_DETECTED, KILLED_RESOURCE_LIMIT,
            NO_PARALLELISM, OK)

SANDBOX_UID = 65534  # "nobody": an unprivileged uid, so RLIMIT_NPROC holds
SANDBOX_WORKDIR = "/tmp"  # the program's working directory: the private tmpfs
REQUIRED_TOOLS = ("bwrap", "prlimit", "setpriv")  # root mode; rootless mode needs no setpriv
# The user namespace of rootless mode: the program is uid/gid 65534 inside, the calling user outside.
USER_NAMESPACE = ("--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID))
# What check_sandbox's trivial program must print, as the sandbox's user.
SELF_CHECK_ARGV = ["sh", "-c", 'echo "sandbox ok uid=$(id -u)"']
SELF_CHECK_OUTPUT = f"sandbox ok uid={SANDBOX_UID}\n"
# A wrapper's own error line ("bwrap: Can't mount proc ...", "setpriv: setgroups failed: ...") and the
# exit codes the wrappers use for their own failures (1; 125-127 from nice and exec failures).
WRAPPER_TOOLS = ("bwrap", "prlimit", "setpriv", "nice")
WRAPPER_EXIT_CODES = (1, 125, 126, 127)
CAP_SYS_NICE = 23  # capability bit that lets a process lower its nice value (linux/capability.h)
# Messages that a C++ runtime or libc prints when an allocation is refused under RLIMIT_AS.
ALLOCATION_FAILURE_MARKERS = ("std::bad_alloc", "Cannot allocate memory", "out of memory", "mmap failed")
# Signals by which the kernel enforces rlimits: CPU time (soft, then SIGKILL at the hard limit) and file size.
RESOURCE_SIGNALS = (signal.SIGXCPU, signal.SIGXFSZ)


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here (a tool missing, user namespaces forbidden, its self-check failed):
    refuse to run rather than run unsandboxed or blame the samples."""


class SandboxFailure(SandboxUnavailable):
    """The sandbox failed during a run, before the program started: the harness's fault, not the sample's."""


@dataclasses.dataclass(kw_only=True)
class SandboxLimits:
    """Limits for one sandboxed run. Sizes in MB (2**20 bytes)."""

    wall_s: float = 30.0  # wall-clock deadline, enforced by the parent
    cpu_s: int = 60  # RLIMIT_CPU per process (soft; the hard limit is 1 s later)
    # RLIMIT_AS per process (virtual memory). None: none, only for ThreadSanitizer builds, which reserve terabytes
    # of shadow address space; their memory is bounded by the sanitizer's RSS limit instead (run.check_races).
    address_space_mb: int | None = 4096
    file_size_mb: int = 64  # RLIMIT_FSIZE: the largest file the program may write
    nproc: int = 128  # RLIMIT_NPROC for uid 65534: processes and threads (mpirun needs ~40 for 2 ranks)
    nofile: int = 256  # RLIMIT_NOFILE
    stack_mb: int = 8  # RLIMIT_STACK
    tmp_mb: int = 256  # size of the private /tmp tmpfs (bounds a disk filler that writes many files)
    shm_mb: int = 256  # size of the private /dev/shm tmpfs
    output_bytes: int = 1 << 20  # cap on captured stdout and on stderr, each

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and field.name == "address_space_mb":
                continue
            if not value > 0:
                raise ValueError(f"SandboxLimits.{field.name} must be > 0, got {value!r}")


@dataclasses.dataclass(kw_only=True)
class SandboxResult:
    outcome: str  # EXITED, TIMEOUT, SIGNALED or OUTPUT_LIMIT
    returncode: int | None  # exit code when EXITED
    signal_number: int | None  # the fatal signal when SIGNALED
    stdout: str
    stderr: str
    wall_s: float
    output_truncated: bool


def rootless() -> bool:
    """Whether the harness runs as a normal user (rootless mode) rather than as root (root mode)."""
    return os.geteuid() != 0


def check_tools() -> None:
    """Raise SandboxUnavailable naming every missing tool and how to install it."""
    required = [tool for tool in REQUIRED_TOOLS if not (rootless() and tool == "setpriv")]
    missing = [tool for tool in required if shutil.which(tool) is None]
    if missing:
        raise SandboxUnavailable(
            f"sandbox tools missing: {', '.join(missing)}; install them (Debian: apt-get install bubblewrap "
            "util-linux) -- untrusted programs are never run without the sandbox"
        )


@functools.cache
def can_raise_priority() -> bool:
    """Whether the sandbox may raise a run's priority: root mode, with CAP_SYS_NICE in this process's effective
    set (in rootless mode the user namespace holds no capability outside it); logged once if not."""
    status = Path("/proc/self/status").read_text()
    effective = int(next(line.split()[1] for line in status.splitlines() if line.startswith("CapEff:")), 16)
    allowed = not rootless() and bool(effective >> CAP_SYS_NICE & 1)
    if not allowed:
        logger.warning("timed runs cannot get the configured raised priority (that needs root with CAP_SYS_NICE) "
                       "and keep the harness's own. On an exclusive node (a whole SLURM allocation) "
                       "this changes nothing. On a machine shared with other work the scheduler may run a "
                       "program's threads one after another: a data race (such as a missing reduction) can then "
                       "go unseen and score as correct, and speedups vary with the other load")
    return allowed


@functools.cache
def check_user_namespaces() -> None:
    """Rootless mode needs unprivileged user namespaces; raise SandboxUnavailable, saying what to ask the
    site for, where the kernel or the site forbids them. Checked once per process (a success is cached)."""
    probe = ["bwrap", *USER_NAMESPACE, "--ro-bind", "/", "/", "true"]
    proc = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise SandboxUnavailable(
            f"the harness runs as a normal user (uid {os.geteuid()}), which needs unprivileged user namespaces, "
            f"and this machine forbids them: `{' '.join(probe)}` failed ({proc.stderr.strip() or proc.returncode}). "
            "Ask the site to enable them (sysctl user.max_user_namespaces > 0; on Debian before 11 "
            "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ an AppArmor profile that lets bwrap use them, "
            "or kernel.apparmor_restrict_unprivileged_userns=0), or run the harness as root inside a container "
            "that has its own namespaces (e.g. Apptainer/Singularity with --fakeroot, or Docker/Podman). "
            "Untrusted programs are never run without the sandbox"
        )


def check_limits(limits: SandboxLimits) -> None:
    """In rootless mode, refuse limits above this process's hard limits (a normal user cannot raise them, so
    prlimit would fail inside the sandbox) with the setting's name, rather than fail every run."""
    if not rootless():
        return
    mb = 1 << 20
    wanted = [("cpu_s", resource.RLIMIT_CPU, limits.cpu_s + 1, 1), ("address_space_mb", resource.RLIMIT_AS,
              (limits.address_space_mb or 0) * mb, mb), ("file_size_mb", resource.RLIMIT_FSIZE, limits.file_size_mb * mb, mb),
              ("nproc", resource.RLIMIT_NPROC, limits.nproc, 1), ("nofile", resource.RLIMIT_NOFILE, limits.nofile, 1),
              ("stack_mb", resource.RLIMIT_STACK, limits.stack_mb * mb, mb)]  # fmt: skip
    for name, which, value, unit in wanted:
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY and value > hard:
            raise SandboxUnavailable(
                f"SandboxLimits.{name}={getattr(limits, name)} needs a hard limit of {value // unit}, above this "
                f"process's ({hard // unit}), which a normal user cannot raise: lower the setting in the config, "
                "or raise the hard limit (`ulimit -H`; on SLURM, the job's limits)"
            )


def priority_argv(nice: int) -> list[str]:
    """A prefix that runs the rest of the command at nice `nice`, in a session autogroup of that nice.

    Both, because with autogroups (kernel.sched_autogroup_enabled) the scheduler weighs sessions against
    each other by the autogroup's nice, and without them processes by their own nice. bwrap's
    --new-session has just made a new session (and autogroup), so this must run inside the sandbox.
    `nice -n` adds to the caller's nice, so the increment is taken relative to it: a harness started
    under `nice` (a loaded machine's polite user) still runs its timed programs at `nice` itself.
    """
    return ["sh", "-c", f'echo {int(nice)} > /proc/self/autogroup 2>/dev/null; '
            f'exec nice -n $(({int(nice)} - $(nice))) "$@"', "sh"]  # fmt: skip


def sandbox_argv(argv: list[str], limits: SandboxLimits, binds: dict[Path, str] | None = None,
                 writable: list[Path] | None = None, nice: int = 0) -> list[str]:  # fmt: skip
    """The full command line: bwrap [namespaces, mounts] [priority] prlimit [rlimits] setpriv [uid drop] argv
    in root mode; bwrap [user namespace, namespaces, mounts] prlimit [rlimits] argv in rootless mode.

    `binds` maps host paths to read-only paths inside the sandbox (e.g. the executable under /tmp,
    which the private tmpfs would otherwise hide). `writable` host folders appear at their own path,
    writable (the compiler's output folder; they must be writable by uid 65534). The mount order
    matters: the tmpfs first, then the binds inside it.
    """
    mb = 1 << 20
    bwrap = [
        "bwrap",
        *(USER_NAMESPACE if rootless() else ()),
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--perms", "1777", "--size", str(limits.tmp_mb * mb), "--tmpfs", "/tmp",
        "--perms", "1777", "--size", str(limits.shm_mb * mb), "--tmpfs", "/dev/shm",
    ]  # fmt: skip
    mounts = [("--ro-bind", str(host), inside) for host, inside in (binds or {}).items()]
    mounts += [("--bind", str(folder), str(folder)) for folder in writable or []]
    made: set[str] = set()
    for how, host, inside in mounts:
        # A mount point inside the private /tmp needs its parent folders there; bwrap would create them
        # mode 0700 (root's), which the unprivileged user could not traverse.
        for parent in reversed(Path(inside).parents):
            if parent.is_relative_to(SANDBOX_WORKDIR) and str(parent) != SANDBOX_WORKDIR and str(parent) not in made:
                bwrap += ["--perms", "0755", "--dir", str(parent)]
                made.add(str(parent))
        bwrap += [how, host, inside]
    bwrap += [
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--die-with-parent", "--new-session", "--chdir", SANDBOX_WORKDIR, "--",
    ]  # fmt: skip
    priority = priority_argv(nice) if nice < 0 and can_raise_priority() else []
    return bwrap + priority + unprivileged_argv(argv, limits)


def unprivileged_argv(argv: list[str], limits: SandboxLimits) -> list[str]:
    """prlimit [rlimits] setpriv [drop to uid/gid 65534, no capabilities] argv in root mode; in rootless mode
    prlimit [rlimits] argv (the user namespace around it has made it uid 65534 with no capabilities)."""
    mb = 1 << 20
    rlimits = [
        "prlimit",
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",
        *([f"--as={limits.address_space_mb * mb}"] if limits.address_space_mb is not None else []),
        f"--fsize={limits.file_size_mb * mb}",
        f"--nproc={limits.nproc}",
        f"--nofile={limits.nofile}",
        f"--stack={limits.stack_mb * mb}",
        "--core=0",
        "--",
    ]
    if rootless():
        return rlimits + list(argv)
    drop = ["setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups", "--inh-caps=-all", "--"]
    return rlimits + drop + list(argv)


def confined_argv(argv: list[str], limits: SandboxLimits, workdir: Path) -> list[str]:
    """run_confined's command line: prlimit [rlimits] setpriv [uid drop] argv in root mode. In rootless mode
    bwrap [user namespace; / read-only but `workdir`] prlimit [rlimits] argv: the user namespace makes
    RLIMIT_NPROC count the compiler's own processes (without it, every process of the user would count)."""
    if not rootless():
        return unprivileged_argv(argv, limits)
    bwrap = ["bwrap", *USER_NAMESPACE, "--ro-bind", "/", "/", "--dev", "/dev", "--bind", str(workdir), str(workdir),
             "--die-with-parent", "--chdir", str(workdir), "--"]  # fmt: skip
    return bwrap + unprivileged_argv(argv, limits)


def confined_workdir(prefix: str) -> Path:
    """A fresh folder in the system's temporary folder that a confined tool may write (in root mode owned
    by uid 65534; the folder that holds results may lie below folders it cannot traverse, a 0700 home)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    if not rootless():
        os.chown(folder, SANDBOX_UID, SANDBOX_UID)
    return folder


def sandbox_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A minimal environment: nothing of the harness's own environment leaks in except PATH."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": SANDBOX_WORKDIR,
        "TMPDIR": SANDBOX_WORKDIR,
        "LANG": "C.UTF-8",
    }
    env.update(extra or {})
    return env


def _kill_sandbox(proc: subprocess.Popen) -> None:
    """Kill everything inside, and return only when nothing is left.

    bwrap's child is PID 1 of the sandbox's PID namespace. Killing it makes the kernel kill every
    process in the namespace, and its exit completes only once they are all gone; the outer bwrap
    then reaps it and exits. So we kill PID 1 first and wait for bwrap, rather than killing bwrap
    (which would leave the namespace to be torn down asynchronously, after we have returned).
    """
    if proc.poll() is not None:  # bwrap has exited: its namespace, and everything in it, is gone
        return
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    except OSError:
        children = []
    for pid in children:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # bwrap itself is stuck: kill its group (it is a session leader)
        proc.wait()


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill a confined run's process group (its leader started a new session) and reap the leader.

    Only while the leader is unreaped: until then its PID, which is the group's ID, cannot be reused.
    """
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()


def run_sandboxed(
    argv: list[str],
    *,
    limits: SandboxLimits,
    binds: dict[Path, str] | None = None,
    writable: list[Path] | None = None,
    env: dict[str, str] | None = None,
    nice: int = 0,
) -> SandboxResult:
    """Run `argv` in the sandbox; returns for anything the program does. Raises SandboxUnavailable when the
    sandbox cannot run here, SandboxFailure when it failed before the program started (module docstring).
    `nice` < 0 raises the run's priority (timed runs; see the module docstring)."""
    check_tools()
    check_sandbox()
    check_limits(limits)
    command = sandbox_argv(argv, limits, binds, writable, nice)
    return _raise_wrapper_failure(_supervise(command, limits, sandbox_env(env), None, _kill_sandbox), command)


def run_confined(argv: list[str], *, limits: SandboxLimits, workdir: Path) -> SandboxResult:
    """Run a trusted tool on untrusted input (the compiler and linker on generated source) with the
    sandbox's limits and uid drop but without its namespaces: one bubblewrap launch (20-30 ms here, about
    a tenth of a small compile) saved per compile and per link.

    Why that is enough: the compiler runs no code of the sample. What a source file can make it do is read
    files (`#include`, `.incbin`), use CPU and memory (template and constexpr recursion, `#include
    </dev/zero>`), and write its output. Reads: as uid 65534 it reads only world-readable files, which the
    sandbox's read-only bind of / shows too (a secret such as /etc/shadow fails with "Permission denied").
    CPU, memory, processes, output size: the same rlimits, wall-clock limit and output cap as a sandboxed
    run. Writes: only its -o file and temporaries, here in `workdir` (TMPDIR); nothing in a source names
    another path to write. Network, other processes, kill(-1): nothing in the compiler's input makes it
    connect or signal; the killable unit is its process group, which it never leaves. Programs built from
    the samples, which do run generated code, keep the full sandbox (run_sandboxed).
    In rootless mode the compiler does get one bubblewrap launch (about 10 ms here), for a user namespace
    alone (confined_argv): it makes RLIMIT_NPROC count the compiler's processes, and its view of / is
    read-only but for `workdir`. Reads are the one weaker guarantee: outside the namespace the compiler is
    the calling user, so a source that includes one of that user's own files gets it into its build log.
    """
    check_tools()
    check_sandbox()
    check_limits(limits)
    env = sandbox_env({"HOME": str(workdir), "TMPDIR": str(workdir)})
    command = confined_argv(argv, limits, workdir)
    return _raise_wrapper_failure(_supervise(command, limits, env, workdir, _kill_group), command)


def _self_check() -> None:
    """Run SELF_CHECK_ARGV through the sandbox's and the confinement's exact command lines (as run_sandboxed
    and run_confined build them) and require SELF_CHECK_OUTPUT from both; raise SandboxUnavailable if not."""
    check_tools()
    if rootless():
        check_user_namespaces()
        release = tuple(int(part) for part in re.findall(r"\d+", os.uname().release)[:2])
        if release < (5, 14):
            logger.warning("Linux %s counts RLIMIT_NPROC over all of a user's processes, not per user namespace "
                           "(5.14+): a sandboxed program's process limit then includes every other process of "
                           "this user, and with many of them its threads cannot start (crash verdicts)",
                           os.uname().release)  # fmt: skip
    limits = SandboxLimits(wall_s=60.0, address_space_mb=1024)  # modest: `sh` and `id` need little
    workdir = confined_workdir("pcgbench-selfcheck-")
    try:
        env = sandbox_env({"HOME": str(workdir), "TMPDIR": str(workdir)})
        checks = {"sandbox": (sandbox_argv(SELF_CHECK_ARGV, limits), sandbox_env(), None, _kill_sandbox),
                  "compiler confinement": (confined_argv(SELF_CHECK_ARGV, limits, workdir), env, workdir, _kill_group)}
        for name, (command, env, cwd, kill) in checks.items():
            result = _supervise(command, limits, env, cwd, kill)
            if (result.outcome, result.returncode, result.stdout) != (EXITED, 0, SELF_CHECK_OUTPUT):
                how = result.outcome + (f" exit {result.returncode}" if result.returncode is not None else "")
                raise SandboxUnavailable(
                    f"the {name} does not work here ({'rootless' if rootless() else 'root'} mode): "
                    f"`{' '.join(command)}` ended {how} and printed {result.stdout.strip()[-200:]!r}, "
                    f"stderr {result.stderr.strip()[-600:]!r} (expected {SELF_CHECK_OUTPUT.strip()!r}). "
                    f"The tool named in the error ({', '.join(WRAPPER_TOOLS[:3])}) needs fixing before any sample "
                    "can be judged; see workflow_scripts/pcgbench/sandbox.py for what each mode needs"
                )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@functools.cache
def check_sandbox() -> None:
    """Check once per process, before the first run, that the sandbox works here (_self_check); a success
    is cached, a failure raises SandboxUnavailable (every later call checks again)."""
    _self_check()
    logger.info("sandbox self-check passed (%s mode)", "rootless" if rootless() else "root")


def wrapper_failure(result: SandboxResult) -> str | None:
    """The wrapper's own error line when a run failed in the wrapper (bwrap, prlimit, setpriv, nice) before
    the program started, else None: the wrapper's exit code, nothing on stdout, and its error line first."""
    if result.outcome != EXITED or result.returncode not in WRAPPER_EXIT_CODES or result.stdout:
        return None
    first = result.stderr.lstrip().partition("\n")[0]
    if first.startswith(tuple(f"{tool}: " for tool in WRAPPER_TOOLS)) and "cannot set niceness" not in first:
        return first
    return None


def _raise_wrapper_failure(result: SandboxResult, command: list[str]) -> SandboxResult:
    """Return `result`, or raise SandboxFailure when its wrapper failed (the module docstring says why)."""
    line = wrapper_failure(result)
    if line is None:
        return result
    try:
        _self_check()
        check = "the self-check still passes, so the program itself may have printed this"
    except SandboxUnavailable as err:
        check = f"the self-check fails now too: {err}"
    raise SandboxFailure(
        f"the sandbox failed before the program started (exit {result.returncode}: {line!r}); this is the harness "
        f"or its environment, not the sample, and no verdict was recorded ({check}). Command: `{' '.join(command)}`"
    )


def _supervise(command: list[str], limits: SandboxLimits, env: dict[str, str], cwd: Path | None,
               kill) -> SandboxResult:  # fmt: skip
    """Start `command` in a new session, capture its output up to the cap, enforce the wall-clock limit
    with `kill` (which must leave nothing of the command alive), and classify how it ended."""
    started = time.monotonic()
    deadline = started + limits.wall_s
    # A new session makes the command the leader of its own process group, so one killpg reaches it all.
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, cwd=cwd, start_new_session=True,
    )  # fmt: skip
    captured = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    selector = selectors.DefaultSelector()
    for stream in captured:
        os.set_blocking(stream.fileno(), False)
        selector.register(stream, selectors.EVENT_READ)
    timed_out = over_cap = False
    try:
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(timeout=min(remaining, 0.5)):
                try:
                    chunk = os.read(key.fileobj.fileno(), 65536)
                except BlockingIOError:
                    continue
                if not chunk:  # EOF: every process holding this pipe has gone
                    selector.unregister(key.fileobj)
                    continue
                buffer = captured[key.fileobj]
                buffer += chunk
                if len(buffer) > limits.output_bytes:
                    over_cap = True
            if over_cap:
                break
        if timed_out or over_cap:
            kill(proc)
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            kill(proc)
            proc.wait()
    finally:
        # Whatever happened above (even an exception in this function), nothing may survive.
        kill(proc)
        selector.close()
        for stream in captured:
            stream.close()
        proc.wait()
    wall_s = time.monotonic() - started
    out, err = (bytes(captured[s][: limits.output_bytes]) for s in (proc.stdout, proc.stderr))
    truncated = any(len(buffer) > limits.output_bytes for buffer in captured.values())
    code = proc.returncode
    if over_cap:
        outcome = OUTPUT_LIMIT
    elif timed_out:
        outcome = TIMEOUT
    elif code < 0:
        outcome = SIGNALED
    elif code > 128 and code - 128 in signal.valid_signals():
        # bwrap's PID 1 reports a child killed by signal N as exit status 128+N.
        outcome = SIGNALED
    else:
        outcome = EXITED
    signal_number = -code if code < 0 else (code - 128 if outcome == SIGNALED else None)
    return SandboxResult(
        outcome=outcome,
        returncode=code if outcome == EXITED else None,
        signal_number=signal_number,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        wall_s=wall_s,
        output_truncated=truncated,
    )


def verdict_for(result: SandboxResult, cpu_limit_s: int | None = None) -> str | None:
    """The verdict of a run that did not end cleanly, or None when the program exited with code 0
    (its output must then be validated by the caller).

    Resource limits are told apart from crashes by how the kernel enforces them (SIGXCPU, SIGXFSZ,
    SIGKILL at the hard CPU limit, when `cpu_limit_s` is given), by the output cap, and by an allocation refused under RLIMIT_AS
    (std::bad_alloc). mpirun reports a rank's fatal signal in its own output, which is read the same way.
    """
    if result.outcome == TIMEOUT:
        return VERDICT_TIMEOUT
    if result.outcome == OUTPUT_LIMIT:
        return KILLED_RESOURCE_LIMIT
    if any(marker in result.stderr or marker in result.stdout for marker in ALLOCATION_FAILURE_MARKERS):
        return KILLED_RESOURCE_LIMIT
    if result.outcome == SIGNALED:
        if result.signal_number in RESOURCE_SIGNALS:
            return KILLED_RESOURCE_LIMIT
        # SIGKILL is the hard CPU limit only for a program that survived SIGXCPU for its whole CPU budget;
        # otherwise something inside killed it (kill(-1) under mpirun kills mpirun): a crash.
        if result.signal_number == signal.SIGKILL and cpu_limit_s is not None and result.wall_s >= cpu_limit_s:
            return KILLED_RESOURCE_LIMIT
        return CRASH
    if result.returncode != 0:
        mpi_signal_words = ("CPU time limit exceeded", "File size limit exceeded", "signal 24", "signal 25")
        if any(word in result.stderr for word in mpi_signal_words):
            return KILLED_RESOURCE_LIMIT
        return CRASH
    return None
