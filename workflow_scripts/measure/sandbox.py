"""The one way to run a program built from generated code: inside bubblewrap, as an unprivileged user in a
user namespace of its own.

    limits = SandboxLimits(wall_s=10.0)
    result = run_sandboxed(["./a.out"], limits=limits, binds={exe_path: "/tmp/sample.exe"}, stdin=b"secret\n")
    result.outcome     # EXITED | TIMEOUT | SIGNALED | OUTPUT_LIMIT
    verdict_for(result) # the harness's verdict for a run that did not exit cleanly

What the program sees (bubblewrap 0.8+, util-linux 2.38+ prlimit, setpriv and unshare, bash), in both modes below:
- of the host's files only the system's software, read-only (SYSTEM_FOLDERS: /usr, /etc, /opt, /sys and the
  merged-/usr links /bin, /lib, ...), and what the caller binds in by name. Not /tmp, /var, /run, /home, /root,
  /mnt, /media or /srv, where users' files and the sockets of the machine's services live: with the host's /
  bound read-only, a program read a world-readable file another process left in /var/tmp and `connect()`ed
  to a Unix socket there. A fresh /dev and /proc;
- a private, size-limited tmpfs at /tmp (its only writable place and its working directory) and at
  /dev/shm (OpenMPI's shared-memory transport lives there);
- no network (`--unshare-net`: only a loopback of its own), its own PID, IPC and UTS namespaces, so
  `kill(-1)` and `kill(getppid())` reach nothing outside; `--die-with-parent` and `--new-session`;
- its own user namespace, in which it is uid/gid 65534 with no capabilities. Kernel state kept per user
  namespace is then the run's own: without one, every run as uid 65534 shared that uid's keyrings, and a key
  one run added (`add_key()`) was read back by a later run, of the same evaluation or the next. The session
  keyring, which a process keeps across setuid and into a user namespace, is a fresh one per run (_spawn);
- rlimits set by `prlimit` (CPU seconds, address space, file size, processes, open files, stack), and in root
  mode a memory control group of the run's own (run_cgroup.py): the memory of all its processes together;
- on standard input the caller's bytes (`stdin`, then end of file: the driver's per-run secret), else /dev/null.

Two modes, chosen by who runs the harness (`rootless()`):
- Root mode (the harness runs as root, as in this project's own machine): bwrap runs as root, without a user
  namespace; inside it `setpriv` drops to uid/gid 65534 with no capabilities, `unshare --user
  --map-user=65534 --map-group=65534`, run by that unprivileged uid, makes the user namespace
  (ROOT_USER_NAMESPACE), so the program is uid 65534 outside it as well as inside, and `prlimit` sets the
  limits in it. The order is what keeps RLIMIT_NPROC: the kernel does not apply it to a process whose uid
  outside maps to root (a user namespace that root made, as `bwrap --unshare-user` would, maps the program to
  root), and without the limit a fork bomb fills the machine's PID table (measured: 32768 processes in
  seconds; with it the bomb stops at the limit). As in rootless mode, the limit counts the namespace's own
  processes, so one run's fork bomb leaves a run or compile beside it able to fork (unprivileged_argv says
  how). Making the namespace needs unprivileged user namespaces (Debian's default); where they are forbidden
  the self-check stops the harness and says what to ask for (check_user_namespaces). Limits above the
  harness's hard limits, which prlimit past the drop cannot raise, are refused before the run (check_limits).
- Rootless mode (a normal user, e.g. on a cluster node, where `setpriv --reuid` is not permitted):
  bubblewrap itself makes the user namespace (`--unshare-user --uid 65534 --gid 65534`), in which the program
  is uid 65534 with no capabilities; outside it is still the calling user, so it can touch nothing that user
  could not. No `setpriv`, no `unshare`. RLIMIT_NPROC holds: the caller is not root, and since Linux 5.14 the
  kernel counts a user's processes per user namespace, so the limit counts the sandbox's own processes only (its
  parent namespaces' counts, the user's whole count among them, are held to the user's own limits as well;
  before 5.14 the count covers all of the user's processes, and the self-check warns). Limits above the user's
  hard limits (which only root may raise) are refused before the run with the name of the setting. Where the
  kernel or the site forbids unprivileged user namespaces, the harness stops and says what to ask the site for.
Both modes contain the same hostile programs with the same verdicts (tests/measure/test_rootless.py
runs them as a normal user); what rootless mode lacks is the raised priority below.

The compiler and linker run on generated source with the same mount view, namespaces, user namespace, uid and
limits (run_confined): a source can make the compiler read any file it can name (`#include "/tmp/x"` puts the
file's text into the build log, `asm(".incbin ...")` into the executable), so it too sees only the system's
software, the project's folders a compile reads (project_folders: the driver headers, the machine's build
cache), read-only at their own paths wherever the checkout lies, and its work folder, writable.

With `nice` < 0 (timed runs; needs CAP_SYS_NICE, i.e. root mode) the sandboxed process and its session's
autogroup run at that raised priority. The priority step (priority_argv) is the first inside bwrap, which in
root mode still runs as root in the initial user namespace, so it holds the CAP_SYS_NICE it needs; the nice
value and the autogroup's are inherited through the uid drop, into the program's user namespace and prlimit,
where raising them again would take CAP_SYS_NICE in the initial namespace, which nothing there has.
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
The parent enforces a wall-clock deadline, counted from the program's start (the sentinel below; the wrappers
have WRAPPER_START_S to get there), and kills bwrap's whole process group at it (bwrap is PID 1 of
the namespace, so every process inside dies with it) and caps captured output: a program that
prints past the cap is killed and reported as OUTPUT_LIMIT.

A failure of the sandbox is never a verdict on a sample, and nothing a sample prints makes one:
- before the first run of a process, check_sandbox() runs a trivial program through the exact sandbox
  and confinement command lines and requires its output (run_sandboxed and run_confined call it; it is
  cached), raising SandboxUnavailable with the tool and the fix when it fails;
- if bubblewrap, prlimit, setpriv, unshare or bash is missing, SandboxUnavailable says which: the harness never
  falls back to running untrusted code unsandboxed;
- whether the wrappers (bwrap, nice, prlimit, setpriv, unshare) worked is read from a channel the program
  cannot reach, never from its output or exit code: the innermost wrapper step (sentinel_argv), run once all of
  them have done their part, writes one byte on a pipe only the harness and the wrappers hold, closes it and
  only then execs the program. A run whose byte never came failed in a wrapper and raises SandboxFailure (with
  the wrappers' stderr and the self-check's result), which stops the evaluation instead of becoming a
  build_error or a crash. A run whose byte came is the program's, whatever it printed: one that writes
  "bwrap: Can't mount proc ..." to stderr and exits 1 is an ordinary crash.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
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
import threading
import time
from collections.abc import Callable
from pathlib import Path

from workflow_scripts.measure.run_cgroup import RunCgroup, RunUsage
from workflow_scripts.measure.verdicts import CRASH, KILLED_RESOURCE_LIMIT, VERDICT_TIMEOUT

logger = logging.getLogger(__name__)

# How a sandboxed run ended (the runner's view; verdicts, the harness's view, are verdicts.py's words).
EXITED = "exited"  # the program exited by itself (any exit code)
TIMEOUT = "timeout"  # the wall-clock deadline passed and the sandbox was killed
SIGNALED = "signaled"  # the program died of a signal (SIGSEGV, SIGABRT, SIGXCPU, ...)
OUTPUT_LIMIT = "output_limit"  # it printed more than the cap and was killed

SANDBOX_UID = 65534  # "nobody": an unprivileged uid, so RLIMIT_NPROC holds
SANDBOX_WORKDIR = "/tmp"  # the program's working directory: the private tmpfs
# The tools of the wrapper chain: bash runs its innermost step (sentinel_argv); root mode drops the uid with
# setpriv and makes the user namespace with unshare, which rootless mode gets from bwrap instead.
REQUIRED_TOOLS = ("bwrap", "prlimit", "bash", "setpriv", "unshare")
ROOT_MODE_TOOLS = ("setpriv", "unshare")
# The user namespace of rootless mode, made by bwrap: the program is uid/gid 65534 inside, the calling user outside.
USER_NAMESPACE = ("--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID))
# The user namespace of root mode, made after the uid drop by uid 65534 itself: 65534 inside and outside.
ROOT_USER_NAMESPACE = ("unshare", "--user", f"--map-user={SANDBOX_UID}", f"--map-group={SANDBOX_UID}", "--")
# The namespaces of every run and compile besides the mount and user namespaces.
NAMESPACES = ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts")
# The host folders every run and compile sees, read-only: the system's software (compilers under /usr,
# /usr/local or /opt, their configuration in /etc) and the kernel's /sys (OpenMP and OpenMPI's hwloc read the
# machine's topology there). A merged-/usr link (/bin -> usr/bin) is made as the same link. Nothing else of
# the host: what a compile needs beyond these, the harness binds by name (project_folders, tool_folders).
SYSTEM_FOLDERS = ("/usr", "/etc", "/opt", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What check_sandbox's trivial program must print, as the sandbox's user.
SELF_CHECK_ARGV = ["sh", "-c", 'echo "sandbox ok uid=$(id -u)"']
SELF_CHECK_OUTPUT = f"sandbox ok uid={SANDBOX_UID}\n"
# How long the wrappers (bwrap, setpriv, unshare, prlimit, the sentinel's bash) may take to start the program before
# its own wall-clock limit starts (_supervise); past it the run is a SandboxFailure.
WRAPPER_START_S = 60.0
WRAPPER_TOOLS = ("bwrap", "nice", "prlimit", "setpriv", "unshare")  # what stands between the harness and a program
CAP_SYS_NICE = 23  # capability bit that lets a process lower its nice value (linux/capability.h)
# keyctl(2)'s system call number per machine (glibc has no wrapper) and its operation that joins a new keyring.
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING = 1
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
    """Limits for one sandboxed run. Sizes in MB (2**20 bytes). The limits the config sets keep its names
    (config section measure: cpu_limit_s, memory_mb, file_size_mb, max_processes, output_bytes); wall_s is the deadline
    of whatever runs, a program's run_timeout_s (or its reference-scaled limit) or a compile's compile_timeout_s."""

    wall_s: float = 30.0  # wall-clock deadline, enforced by the parent
    cpu_limit_s: int = 60  # RLIMIT_CPU per process (soft; the hard limit is 1 s later)
    # RLIMIT_AS per process (virtual memory). None: none, only for ThreadSanitizer builds, which reserve terabytes
    # of shadow address space; their memory is bounded by the sanitizer's RSS limit instead (run.check_races).
    memory_mb: int | None = 4096
    # The resident memory of all the run's processes together, its /tmp and /dev/shm files included: its control
    # group's limit (run_cgroup.py), where the harness can make one. None: memory_mb's value (none when that is None).
    run_memory_mb: int | None = None
    file_size_mb: int = 64  # RLIMIT_FSIZE: the largest file the program may write
    max_processes: int = 128  # RLIMIT_NPROC for uid 65534: processes and threads (mpirun needs ~40 for 2 ranks)
    nofile: int = 256  # RLIMIT_NOFILE
    stack_mb: int = 8  # RLIMIT_STACK
    tmp_mb: int = 256  # size of the private /tmp tmpfs (bounds a disk filler that writes many files)
    shm_mb: int = 256  # size of the private /dev/shm tmpfs
    output_bytes: int = 1 << 20  # cap on captured stdout and on stderr, each
    # CPUs the run may be scheduled on: the first `cores` of the harness's own (pinned_cpus). None: all of them.
    cores: int | None = None

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and field.name in ("memory_mb", "run_memory_mb", "cores"):
                continue
            if not value > 0:
                raise ValueError(f"SandboxLimits.{field.name} must be > 0, got {value!r}")


    def whole_run_memory_mb(self) -> int | None:
        return self.run_memory_mb if self.run_memory_mb is not None else self.memory_mb


@dataclasses.dataclass(kw_only=True)
class SandboxResult:
    outcome: str  # EXITED, TIMEOUT, SIGNALED or OUTPUT_LIMIT
    returncode: int | None  # exit code when EXITED
    signal_number: int | None  # the fatal signal when SIGNALED
    stdout: str
    stderr: str
    wall_s: float
    output_truncated: bool
    # The whole run's memory, from its control group; None where there was none (run_cgroup.py).
    usage: RunUsage | None = None


def rootless() -> bool:
    """Whether the harness runs as a normal user (rootless mode) rather than as root (root mode)."""
    return os.geteuid() != 0


def check_tools() -> None:
    """Raise SandboxUnavailable naming every missing tool and how to install it."""
    required = [tool for tool in REQUIRED_TOOLS if not (rootless() and tool in ROOT_MODE_TOOLS)]
    missing = [tool for tool in required if shutil.which(tool) is None]
    if missing:
        raise SandboxUnavailable(
            f"sandbox tools missing: {', '.join(missing)}; install them (Debian: apt-get install bubblewrap "
            "util-linux bash) -- untrusted programs are never run without the sandbox"
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


def uid_drop_argv() -> list[str]:
    """Root mode's drop to uid/gid 65534 with no capabilities."""
    return ["setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups", "--inh-caps=-all", "--"]


@functools.cache
def check_user_namespaces() -> None:
    """Both modes need unprivileged user namespaces (rootless mode for bwrap, root mode for uid 65534's own);
    raise SandboxUnavailable, saying what to ask the site for, where the kernel or the site forbids them.
    Checked once per process (a success is cached)."""
    if rootless():
        probe = ["bwrap", *USER_NAMESPACE, "--ro-bind", "/", "/", "true"]
        who = f"the harness runs as a normal user (uid {os.geteuid()}), which"
    else:
        probe = [*uid_drop_argv(), *ROOT_USER_NAMESPACE, "true"]
        who = f"root mode runs every program in a user namespace that uid {SANDBOX_UID} makes, which"
    proc = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise SandboxUnavailable(
            f"{who} needs unprivileged user namespaces, and this machine forbids them: `{' '.join(probe)}` failed "
            f"({proc.stderr.strip() or proc.returncode}). "
            "Ask the site to enable them (sysctl user.max_user_namespaces > 0; on Debian before 11 "
            "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ an AppArmor profile that lets bwrap use them, "
            "or kernel.apparmor_restrict_unprivileged_userns=0), or run the harness as root inside a container "
            "that has its own namespaces (e.g. Apptainer/Singularity with --fakeroot, or Docker/Podman). "
            "Untrusted programs are never run without the sandbox"
        )


def check_limits(limits: SandboxLimits) -> None:
    """Refuse limits above this process's hard limits with the setting's name, rather than fail every run: prlimit
    runs as uid 65534 in root mode (after the drop: unprivileged_argv) and as the user in rootless mode, and
    neither may raise a hard limit."""
    mb = 1 << 20
    wanted = [("cpu_limit_s", resource.RLIMIT_CPU, limits.cpu_limit_s + 1, 1), ("memory_mb", resource.RLIMIT_AS,
              (limits.memory_mb or 0) * mb, mb), ("file_size_mb", resource.RLIMIT_FSIZE, limits.file_size_mb * mb, mb),
              ("max_processes", resource.RLIMIT_NPROC, limits.max_processes, 1), ("nofile", resource.RLIMIT_NOFILE, limits.nofile, 1),
              ("stack_mb", resource.RLIMIT_STACK, limits.stack_mb * mb, mb)]  # fmt: skip
    for name, which, value, unit in wanted:
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY and value > hard:
            raise SandboxUnavailable(
                f"SandboxLimits.{name}={getattr(limits, name)} needs a hard limit of {value // unit}, above this "
                f"process's ({hard // unit}), which {'a normal user' if rootless() else 'the sandbox past its uid drop'} "
                "cannot raise: lower the setting in the config, or raise the hard limit before starting the harness "
                "(`ulimit -H`; on SLURM, the job's limits)"
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


def sentinel_argv(fd: int) -> list[str]:
    """The innermost wrapper step: write one byte on the harness's pipe `fd`, close it, exec the rest.

    It runs once every wrapper before it has done its part, and the program it execs holds no copy of the pipe
    (bwrap's PID 1 closes the descriptors it inherited), so the byte says that the wrappers worked and nothing
    the program does can say it. bash, not sh: dash cannot name a descriptor above 9.
    """
    return ["bash", "-c", f'printf . >&{fd} && exec {fd}>&- && exec "$@"', "pcgbench-sandbox"]


def _mount_argv(limits: SandboxLimits, mounts: list[tuple[str, str, str]]) -> list[str]:
    """bwrap's mount options: SYSTEM_FOLDERS read-only, a fresh /dev and /proc, the private tmpfs at /tmp and
    /dev/shm, then `mounts` ((bwrap option, host path, path inside), in order, a folder inside another after it).

    bwrap's root is an empty tmpfs, so a mount point's missing parents are made here, mode 0755: bwrap would
    make them 0700 (its own), which uid 65534 could not traverse. That also opens the way to a project
    folder whose parents on the host it could not enter (a checkout in a 0700 home or `mktemp -d` folder):
    inside, those parents are empty folders of the sandbox's own.
    """
    mb = 1 << 20
    argv = []
    for folder in SYSTEM_FOLDERS:
        if os.path.islink(folder):
            argv += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            argv += ["--ro-bind", folder, folder]
    argv += [
        "--dev", "/dev",
        "--proc", "/proc",
        "--perms", "1777", "--size", str(limits.tmp_mb * mb), "--tmpfs", "/tmp",
        "--perms", "1777", "--size", str(limits.shm_mb * mb), "--tmpfs", "/dev/shm",
    ]  # fmt: skip
    made = {Path(folder) for folder in ("/", "/dev", "/dev/shm", "/proc", "/tmp")}  # fresh: empty, or the kernel's
    mirrored = [Path(folder) for folder in SYSTEM_FOLDERS]  # their insides are the host's
    for how, host, inside in mounts:
        for parent in reversed(Path(inside).parents):
            if parent not in made and not any(parent.is_relative_to(folder) for folder in mirrored):
                argv += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        argv += [how, host, inside]
        mirrored.append(Path(inside))
    return argv


def project_folders() -> list[Path]:
    """The project's folders a compile reads, bound read-only at their own paths: the driver headers
    (suite.DATA_ROOT) and the machine's build cache (precompiled headers, driver objects, Kokkos; machine_cache.py),
    and Kokkos's installation where $PCGBENCH_KOKKOS_PREFIX puts it elsewhere. Programs read none of them."""
    # Imported here: suite is heavy, and modules that suite imports may come to import this one's verdicts.
    from workflow_scripts.measure import kokkos, machine_cache, suite

    folders: list[Path] = []
    for folder in (Path(suite.DATA_ROOT).resolve(), machine_cache.machine_cache_dir(), kokkos.kokkos_prefix()):
        if folder.is_dir() and not any(folder.is_relative_to(known) for known in folders):
            folders.append(folder)
    return folders


def tool_folders(tool: str) -> list[Path]:
    """The installation of `tool` (a command's argv[0] found on PATH, e.g. an environment module's compiler
    under /sw/gcc-13/bin) when it lies outside SYSTEM_FOLDERS: the folder above its bin/, read-only.
    A path (a program bound into the sandbox) names nothing on the host."""
    found = shutil.which(tool) if "/" not in tool else None
    if found is None:
        return []
    real = Path(found).resolve()
    if any(real.is_relative_to(folder) for folder in SYSTEM_FOLDERS):
        return []
    return [real.parent.parent if real.parent.name == "bin" else real.parent]


def sandbox_argv(argv: list[str], limits: SandboxLimits, binds: dict[Path, str] | None = None,
                 writable: list[Path] | None = None, nice: int = 0, sentinel_fd: int | None = None) -> list[str]:  # fmt: skip
    """The full command line: bwrap [namespaces, mounts] [priority] setpriv [uid drop] unshare [user namespace]
    prlimit [rlimits] [sentinel] argv in root mode; bwrap [user namespace, namespaces, mounts] prlimit [rlimits]
    [sentinel] argv in rootless mode (the sentinel step when `sentinel_fd` is given: sentinel_argv).

    `binds` maps host paths to read-only paths inside the sandbox (e.g. the executable under /tmp,
    which the private tmpfs would otherwise hide). `writable` host folders appear at their own path,
    writable (they must be writable by uid 65534). The mount order matters: the tmpfs first, then the binds
    inside it.
    """
    mounts = [("--ro-bind", str(folder), str(folder)) for folder in tool_folders(argv[0])]
    mounts += [("--ro-bind", str(host), inside) for host, inside in (binds or {}).items()]
    mounts += [("--bind", str(folder), str(folder)) for folder in writable or []]
    bwrap = ["bwrap", *(USER_NAMESPACE if rootless() else ()), *_mount_argv(limits, mounts), *NAMESPACES,
             "--die-with-parent", "--new-session", "--chdir", SANDBOX_WORKDIR, "--"]  # fmt: skip
    priority = priority_argv(nice) if nice < 0 and can_raise_priority() else []
    return bwrap + priority + unprivileged_argv(_innermost(argv, sentinel_fd), limits)


def _innermost(argv: list[str], sentinel_fd: int | None) -> list[str]:
    return argv if sentinel_fd is None else sentinel_argv(sentinel_fd) + list(argv)


def unprivileged_argv(argv: list[str], limits: SandboxLimits) -> list[str]:
    """setpriv [drop to uid/gid 65534, no capabilities] unshare [a user namespace of its own] prlimit [rlimits]
    argv in root mode; in rootless mode prlimit [rlimits] argv (bwrap's user namespace around it has made it
    uid 65534 with no capabilities).

    prlimit comes after unshare so that RLIMIT_NPROC bounds the namespace's own processes only: the kernel
    holds uid 65534's count outside a namespace to the limit its creator had, which is then root's own
    (inherited through the drop). With the limit set before the namespace was made, every run's and compile's
    processes as uid 65534 counted against it: a fork bomb in one run made a run beside it fail to fork.
    The cost: past the drop prlimit cannot raise a hard limit (check_limits refuses such settings up front)."""
    mb = 1 << 20
    rlimits = [
        "prlimit",
        f"--cpu={limits.cpu_limit_s}:{limits.cpu_limit_s + 1}",
        *([f"--as={limits.memory_mb * mb}"] if limits.memory_mb is not None else []),
        f"--fsize={limits.file_size_mb * mb}",
        f"--nproc={limits.max_processes}",
        f"--nofile={limits.nofile}",
        f"--stack={limits.stack_mb * mb}",
        "--core=0",
        "--",
    ]
    if rootless():
        return rlimits + list(argv)
    return uid_drop_argv() + list(ROOT_USER_NAMESPACE) + rlimits + list(argv)


def confined_argv(argv: list[str], limits: SandboxLimits, workdir: Path, sentinel_fd: int | None = None) -> list[str]:
    """run_confined's command line: the sandbox's (sandbox_argv), with the project's folders (project_folders)
    and the tool's installation (tool_folders) read-only, `workdir` writable and the working directory, and
    without a new session (the killable unit is the process group) or a raised priority."""
    mounts = [("--ro-bind", str(folder), str(folder)) for folder in [*project_folders(), *tool_folders(argv[0])]]
    mounts.append(("--bind", str(workdir), str(workdir)))
    bwrap = ["bwrap", *(USER_NAMESPACE if rootless() else ()), *_mount_argv(limits, mounts), *NAMESPACES,
             "--die-with-parent", "--chdir", str(workdir), "--"]  # fmt: skip
    return bwrap + unprivileged_argv(_innermost(argv, sentinel_fd), limits)


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
    """Kill a confined run's process group (its leader started a new session; the compiler never leaves it,
    in its PID namespace too) and reap the leader.

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
    stdin: bytes | None = None,
) -> SandboxResult:
    """Run `argv` in the sandbox; returns for anything the program does. Raises SandboxUnavailable when the
    sandbox cannot run here, SandboxFailure when it failed before the program started (module docstring).
    `nice` < 0 raises the run's priority (timed runs; see the module docstring). `stdin`: bytes the program
    reads on its standard input, which then ends; None: /dev/null."""
    check_tools()
    check_sandbox()
    check_limits(limits)
    # A memory control group of the run's own where the harness can make one (run_cgroup.py): the result's `usage` is
    # then the whole run's, read once nothing of it is left. Runs only: a compile's tools are trusted programs, one
    # after another, each under its own RLIMIT_AS, and joining a group costs a run about 13 ms.
    group = RunCgroup.make(memory_mb=limits.whole_run_memory_mb())
    try:
        result, started, command = _run(lambda fd: sandbox_argv(argv, limits, binds, writable, nice, sentinel_fd=fd),
                                        limits, sandbox_env(env), None, _kill_sandbox, stdin, group)  # fmt: skip
    finally:
        usage = group.close() if group is not None else None
    if not started:
        raise _sandbox_failure(result, command)
    return dataclasses.replace(result, usage=usage)


def run_confined(argv: list[str], *, limits: SandboxLimits, workdir: Path) -> SandboxResult:
    """Run a trusted tool on untrusted input (the compiler and linker on generated source) in the sandbox's
    mount view, namespaces and user namespace, as its uid, with its limits (confined_argv).

    Why all of it, although the compiler runs no code of the sample: what a source can make it do is read
    files (`#include`, `.incbin`) into its log or its output, use CPU and memory (template and constexpr
    recursion, `#include </dev/zero>`), and write its output. Reads: it sees only the system's software, the
    project's folders and `workdir`; a world-readable file in the host's /tmp or /var/tmp, which uid 65534
    could read on the host, is not there (in rootless mode the uid outside is the calling user, whose own
    files it could otherwise read too). CPU, memory, processes, output size: the same rlimits, wall-clock
    limit and output cap as a sandboxed run. Writes: only its -o file and temporaries, in `workdir` (TMPDIR).
    The cost is one bubblewrap launch and three more execs (unshare, prlimit, bash) per compile and per link:
    measured here (2 cores shared with other jobs, load 10-16; medians of 64, interleaved with the previous
    confinement, prlimit and setpriv alone) a confined `true` took 16 ms against 4 ms, a small compile 125 ms
    against 102 ms; a sandboxed run of an empty program 14 ms against 8 ms.
    """
    check_tools()
    check_sandbox()
    check_limits(limits)
    env = sandbox_env({"HOME": str(workdir), "TMPDIR": str(workdir)})
    result, started, command = _run(lambda fd: confined_argv(argv, limits, workdir, sentinel_fd=fd), limits, env,
                                    workdir, _kill_group)  # fmt: skip
    if not started:
        raise _sandbox_failure(result, command)
    return result


def _self_check() -> None:
    """Run SELF_CHECK_ARGV through the sandbox's and the confinement's exact command lines (as run_sandboxed
    and run_confined build them) and require its sentinel and SELF_CHECK_OUTPUT from both; raise
    SandboxUnavailable if not."""
    check_tools()
    check_user_namespaces()
    if rootless():
        release = tuple(int(part) for part in re.findall(r"\d+", os.uname().release)[:2])
        if release < (5, 14):
            logger.warning("Linux %s counts RLIMIT_NPROC over all of a user's processes, not per user namespace "
                           "(5.14+): a sandboxed program's process limit then includes every other process of "
                           "this user, and with many of them its threads cannot start (crash verdicts)",
                           os.uname().release)  # fmt: skip
    limits = SandboxLimits(wall_s=60.0, memory_mb=1024)  # modest: `sh` and `id` need little
    workdir = confined_workdir("pcgbench-selfcheck-")
    try:
        env = sandbox_env({"HOME": str(workdir), "TMPDIR": str(workdir)})
        checks = {"sandbox": (lambda fd: sandbox_argv(SELF_CHECK_ARGV, limits, sentinel_fd=fd), sandbox_env(), None,
                              _kill_sandbox),
                  "compiler confinement": (lambda fd: confined_argv(SELF_CHECK_ARGV, limits, workdir, sentinel_fd=fd),
                                           env, workdir, _kill_group)}  # fmt: skip
        for name, (command_for, env, cwd, kill) in checks.items():
            result, started, command = _run(command_for, limits, env, cwd, kill)
            if not started or (result.outcome, result.returncode, result.stdout) != (EXITED, 0, SELF_CHECK_OUTPUT):
                how = result.outcome + (f" exit {result.returncode}" if result.returncode is not None else "")
                how += "" if started else " before the wrappers had started it"
                raise SandboxUnavailable(
                    f"the {name} does not work here ({'rootless' if rootless() else 'root'} mode): "
                    f"`{' '.join(command)}` ended {how} and printed {result.stdout.strip()[-200:]!r}, "
                    f"stderr {result.stderr.strip()[-600:]!r} (expected {SELF_CHECK_OUTPUT.strip()!r}). "
                    f"The tool named in the error ({', '.join(WRAPPER_TOOLS)}) needs fixing before any sample "
                    "can be judged; see workflow_scripts/measure/sandbox.py for what each mode needs"
                )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@functools.cache
def check_sandbox() -> None:
    """Check once per process, before the first run, that the sandbox works here (_self_check); a success
    is cached, a failure raises SandboxUnavailable (every later call checks again)."""
    _self_check()
    logger.info("sandbox self-check passed (%s mode)", "rootless" if rootless() else "root")


def _sandbox_failure(result: SandboxResult, command: list[str]) -> SandboxFailure:
    """The SandboxFailure of a run whose sentinel never came (the module docstring says why it stops the
    evaluation), with what the wrappers printed and whether the sandbox still passes its self-check."""
    try:
        _self_check()
        check = "the self-check still passes: this run's wrappers failed, e.g. for want of a resource"
    except SandboxUnavailable as err:
        check = f"the self-check fails now too: {err}"
    how = result.outcome + (f" exit {result.returncode}" if result.returncode is not None else "")
    how += f" signal {result.signal_number}" if result.signal_number is not None else ""
    raise SandboxFailure(
        f"the sandbox failed before the program started: its wrappers ({', '.join(WRAPPER_TOOLS)}) never started "
        f"it (the run ended {how}, stderr {result.stderr.strip()[-600:]!r}); this is the harness or its "
        f"environment, not the sample, and no verdict was recorded ({check}). Command: `{' '.join(command)}`"
    )


def pinned_cpus(cores: int | None) -> set[int] | None:
    """The CPUs a run given `cores` cores is pinned to: the first `cores` of the harness's affinity mask (all of
    them when it has fewer: a run is never given a core the harness does not have). None: not pinned.

    Why the first ones: timing runs never overlap (timing.py), so the run has them to itself, and a run at n
    threads or ranks then cannot take more than n cores however many threads it starts. The mask is inherited
    by everything the run starts and cannot be widened without sched_setaffinity, which tampering.py refuses
    in the sample's object; a raw system call in inline assembly could, and run.resource_overuse's comparison
    of CPU time with wall time catches what that gains."""
    if cores is None:
        return None
    return set(sorted(os.sched_getaffinity(0))[:cores])


def _run(command_for: Callable[[int], list[str]], limits: SandboxLimits, env: dict[str, str], cwd: Path | None, kill,
         stdin: bytes | None = None, group: RunCgroup | None = None) -> tuple[SandboxResult, bool, list[str]]:  # fmt: skip
    """Start command_for(fd) in a new session, `fd` being the write end of the sentinel's pipe, and supervise
    it (_supervise); returns (result, whether the sentinel came, the command).

    Only the command gets the pipe (pass_fds; subprocess closes every other descriptor in the child, so runs
    started meanwhile by other threads hold no copy), and the harness closes its own write end at once: the
    pipe's end of file then comes when the sentinel step has closed it, or when the wrappers have all died.
    Given a `group` (run_cgroup.py), the command's first process joins it before anything else runs.
    """
    sentinel_read, sentinel_write = os.pipe()
    started = time.monotonic()
    try:
        command = command_for(sentinel_write)
        if group is not None:
            command = group.enter_argv() + command
        # A new session makes the command the leader of its own process group, so one killpg reaches it all.
        proc, release = _spawn(
            command, pinned_cpus(limits.cores), stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True, pass_fds=(sentinel_write,),
        )  # fmt: skip
    except BaseException:
        os.close(sentinel_read)
        raise
    finally:
        os.close(sentinel_write)
    try:
        result, sentinel = _supervise(proc, limits, kill, started, stdin or b"", sentinel_read)
    finally:
        release()
        os.close(sentinel_read)
    return result, bool(sentinel), command


def _spawn(command: list[str], cpus: set[int] | None = None, **popen_kwargs) -> tuple[subprocess.Popen, Callable[[], None]]:
    """Popen(command) from a thread of its own that has first joined a new, empty session keyring and, given
    `cpus`, pinned itself to them (the child inherits the thread's mask; the harness's other threads keep
    theirs); returns the process and a function to call once it has been reaped, which lets that thread end.

    Why: a process keeps its session keyring across setuid and into a user namespace, and may use the keys in
    it. Where the harness has one (a login through pam_keyinit, a systemd service), every run would share it,
    and a key one run added there was read by the next. Joining a keyring changes only the calling thread's
    credentials, so the harness's own stays its own. The thread outlives the run because bwrap's
    --die-with-parent kills the sandbox when the thread that started it ends (PR_SET_PDEATHSIG).
    """
    spawned: dict[str, object] = {}
    ready, done = threading.Event(), threading.Event()

    def spawner() -> None:
        try:
            _join_new_session_keyring()
            if cpus is not None:
                os.sched_setaffinity(0, cpus)  # 0: this thread only
            spawned["proc"] = subprocess.Popen(command, **popen_kwargs)
        except BaseException as err:  # raised in the caller's thread below
            spawned["error"] = err
        ready.set()
        done.wait()

    threading.Thread(target=spawner, name="sandbox-spawner", daemon=True).start()
    ready.wait()
    if "error" in spawned:
        done.set()
        raise spawned["error"]
    return spawned["proc"], done.set


def _join_new_session_keyring() -> None:
    """Give the calling thread a new, empty session keyring (keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)). Where
    keyrings are forbidden (Docker's default seccomp profile: EPERM or ENOSYS) the runs cannot use them either,
    and nothing needs doing; any other refusal (the user's key quota spent) raises SandboxFailure, as the run
    would share the harness's keyring."""
    number = KEYCTL_SYSCALL.get(os.uname().machine)
    if number is None:
        _warn_no_keyring(os.uname().machine)
        return
    if _libc().syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        error = ctypes.get_errno()
        if error in (errno.EPERM, errno.ENOSYS):
            return
        raise SandboxFailure(f"could not give a run a session keyring of its own (keyctl: {os.strerror(error)}); "
                             "without one it would share the harness's with every other run. Check the user's key "
                             "quota (/proc/key-users, kernel.keys.maxkeys)")


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


@functools.cache
def _warn_no_keyring(machine: str) -> None:
    logger.warning("no keyctl system call number known for %s: sandboxed runs share the harness's session "
                   "keyring, if it has one (add it to sandbox.KEYCTL_SYSCALL)", machine)


def _supervise(proc: subprocess.Popen, limits: SandboxLimits, kill, started: float, stdin: bytes,
               sentinel_fd: int) -> tuple[SandboxResult, bytes]:  # fmt: skip
    """Feed `stdin` to the started command, capture its output up to the cap and the sentinel, enforce the
    wall-clock limit with `kill` (which must leave nothing of the command alive), and classify how it ended.

    One loop waits on all of it, so nothing blocks the harness: `stdin` is written as the program reads it (a
    program that never reads leaves it in the pipe; it ends with the program), and the loop ends when the
    output and the sentinel pipes have all closed, whatever is left to write.
    """
    # The wall-clock limit is the program's: it runs from the sentinel (the program's start). Until then the
    # wrappers have WRAPPER_START_S of their own, so that a loaded machine's slow start of bwrap, setpriv,
    # unshare and prlimit (seconds under a load of 20) never eats a short limit and fails the sandbox.
    deadline = started + WRAPPER_START_S + limits.wall_s
    captured = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    sentinel = bytearray()
    selector = selectors.DefaultSelector()
    for fd in (*captured, sentinel_fd):
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    reading = {*captured, sentinel_fd}
    pending = memoryview(stdin)
    if proc.stdin is not None:
        if pending:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
    timed_out = over_cap = False
    try:
        while reading:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(timeout=min(remaining, 0.5)):
                fd = key.fd
                if fd not in reading:  # the program's stdin has room
                    try:
                        pending = pending[os.write(fd, pending):]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the program has closed it, or gone, unread
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(fd)
                        proc.stdin.close()
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:  # EOF: every process holding this pipe has gone (or closed it: the sentinel)
                    selector.unregister(fd)
                    reading.discard(fd)
                    continue
                if fd == sentinel_fd:
                    if not sentinel:
                        deadline = time.monotonic() + limits.wall_s
                    sentinel += chunk
                    continue
                buffer = captured[fd]
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
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        proc.wait()
    if not sentinel:  # written before a deadline or the cap ended the loop, and not read yet
        with contextlib.suppress(BlockingIOError):
            sentinel += os.read(sentinel_fd, 1)
    wall_s = time.monotonic() - started
    out, err = (bytes(captured[fd][: limits.output_bytes]) for fd in captured)
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
    result = SandboxResult(
        outcome=outcome,
        returncode=code if outcome == EXITED else None,
        signal_number=signal_number,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        wall_s=wall_s,
        output_truncated=truncated,
    )
    return result, bytes(sentinel)


def verdict_for(result: SandboxResult, cpu_limit_s: int | None = None) -> str | None:
    """The verdict of a run that did not end cleanly, or None when the program exited with code 0
    (its output must then be validated by the caller).

    Resource limits are told apart from crashes by how the kernel enforces them (SIGXCPU, SIGXFSZ,
    SIGKILL at the hard CPU limit, when `cpu_limit_s` is given), by the output cap, by an allocation refused under RLIMIT_AS
    (std::bad_alloc), and, where the run had a control group (result.usage), by its memory limit's kill (whatever the
    run did next). mpirun reports a rank's
    fatal signal in its own output, which is read the same way.
    """
    if result.usage is not None and result.usage.memory_limit_hit:  # whatever followed (a crash, a hang) came of it
        return KILLED_RESOURCE_LIMIT
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
