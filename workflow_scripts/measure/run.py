"""One run of a built program in the sandbox, under a named protocol: the single path by which PCGBench's
evaluation, the RLPF reward and the performance-change task run programs built from generated code.

    protocol = RunProtocol(warmup=1, reps=5, validations=3, seed=1234, threads=2, nice=-20)
    run = run_program(problem, "omp", exe, protocol, SandboxLimits(wall_s=60.0, cpu_limit_s=240))
    run.verdict        # verdicts.OK, WRONG_ANSWER, CRASH, VERDICT_TIMEOUT or KILLED_RESOURCE_LIMIT
    run.times_s        # the program's timed repetitions; run.baseline_times_s the serial baseline's

The suite's driver (driver_program.run_argv) validates the program, then times it and the serial baseline side by
side, interleaved (timing.py says why), each timed call on a fresh input whose answer is checked. How the
repetitions become a speedup is the caller's choice: the evaluation uses medians, the RLPF reward the fastest
repetition of each.

What the run reports is trusted only as far as the sample cannot have written it (data/pcgbench/README.md, "What a
sample cannot forge"):
- JUDGED_EXEC_MODELS (the CPU models): the judge (driver_program.build_judge, drivers/judge.hpp), built without the
  sample, runs the sample's program (as its child, or as the ranks of an mpirun it starts), and alone holds the
  secret, times, runs the baseline and checks; the sample's processes are stopped outside their calls and their CPU
  time read from outside for every timed call;
- GPU runs link the sample into the driver's process: the driver keeps the secret, its clocks and its records in a
  region the sample cannot read or write while it runs, and generates a timed call's input again before the baseline
  answers it (drivers/main.hpp);
- each run gets a secret on standard input (a nonce and the timed inputs' seed, drawn here); result lines
  without the nonce were printed by the sample: the verdict is verdicts.TAMPERING;
- the timings reported must be as many as asked for, each above 0, and fit in the run's wall time measured from
  outside (impossible_report; else TAMPERING);
- CPU time is read around every timed call: more cores used than given, in the sample's calls or during the
  baseline's, is verdicts.RESOURCE_OVERUSE (resource_overuse), never a speedup;
- the kernel refuses what the sample's process may not ask once its runtime is up (drivers/confine.hpp): TAMPERING,
  naming the call (refused_system_call).

    check = check_races(problem, "omp", tsan_build, seed=1234, limits=limits)   # before the timed runs
    check.status       # "clean", "race" or "inconclusive"

An OpenMP program's race check runs its ThreadSanitizer build (toolchains.TSAN) once: a data race is found from the
order of the accesses, so it is caught even when a loaded machine runs the threads one after another, where
validation by results can pass by luck. It must see every thread work under the sample's own schedule: at the
small size (1001 elements) a body with `schedule(dynamic,65536)`, an `if(n > 10000)` clause or a branch on
`x.size() < 5000` gives one thread all the work, and its racy arg-min was never seen (0 of 10 runs; at the
timed size 10 of 10). So the size is derived from the body (race_check_size): the small size only when no
number in its code (a chunk, a threshold, a block size) could keep a thread idle there, else the timed size.
Under ThreadSanitizer the timed size costs about 0.25 s a run against 0.02 s at the small size.
"""

import dataclasses
import functools
import re
import secrets
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from workflow_scripts.common.c_scanner import strip_comments_and_strings
from workflow_scripts.measure import driver_program, sandbox, suite, toolchains, verdicts
from workflow_scripts.measure.timing import placement_env

if TYPE_CHECKING:
    from workflow_scripts.measure.build_cache import BuildResult

# The measurement protocol's name: part of every cache key and resume fingerprint that holds a verdict (the
# evaluation's resume log, the RLPF reward's measurements), so nothing judged under an older protocol is reused.
# v2: a run secret (nonce, timed seed), fresh checked inputs for every timed call, CPU time per call, the
# sample object inspected (tampering.py), the race check at the timed size. v3: the inspection follows the code
# a constructor can reach and refuses instructions that enter the kernel. v4: the driver's vault (the secret,
# clocks and records out of the sample's reach while it runs), the baseline's input generated again after each
# timed call, full RELRO, no file opening or environment reading by the sample. v5: the kernel's system-call filter
# over the sample (drivers/confine.hpp), input seeds hashed (every input's seed, and each timed input's from the
# run's secret and its index), the RLPF reward's speedup from the medians (its measurements are keyed by PROTOCOL).
# v6: the judge (drivers/judge.hpp) for JUDGED_EXEC_MODELS: the clock, the baseline, the check and the secret in a process of
# their own, the sample's processes stopped outside their calls, their CPU time read from outside for every timed call.
# v7: a control group per run where the harness can make one (sandbox.py, run_cgroup.py: the memory and tasks of all
# its processes together), and what the sample's processes do between their calls bounded by the judge: no thread
# beyond their runtime's and the team they were given, CPU time within PREPARE_CPU_FACTOR of preparing the inputs.
# v8: each call of a judged sample has a limit of its own, from the baseline's time on an input of its size
# (RunProtocol.call_floor_s, call_factor): a hung or far slower body is a timeout at its first call over it; an MPI
# error in the sample's code ends its process with the error's text (a crash), where Open MPI's own handler opened a
# file the filter refuses (tampering). v9: every process of a run (the judge, where the baseline is timed, and the
# sample's) allocates from a heap that keeps what is freed (drivers/main.hpp keep_freed_memory), so a fresh input
# reuses the pages of the one before instead of faulting them in: runs a quarter faster, timings of both sides
# without the page faults of input buffers (before, RLPF's reward alone set this, through the environment); the race
# check's run has the judged runs' call limit (x TSAN_SLOWDOWN): a sample that hangs ends it in seconds, inconclusive.
PROTOCOL = "pcgbench-run-v9"
SANDBOX_EXE = "/tmp/sample.exe"  # where the executable appears inside the sandbox
SANDBOX_JUDGE = "/tmp/judge.exe"  # and the judge, for JUDGED_EXEC_MODELS
# The models whose runs are judged from another process (drivers/judge.hpp): the GPU models' runtimes are in the
# sample's process, which keeps the driver's vault there.
JUDGED_EXEC_MODELS = ("serial", "omp", "kokkos", "mpi", "mpi+omp")
STDERR_CHARS = 600  # how much of a failing run's stderr its detail keeps (the end, where the error is)
MPI_ERROR = re.compile(r"pcgbench: MPI error in the sample's code: [^\n]{0,300}")
# CPU time / wall time of a run's median timed call may exceed the threads given by this factor, and by
# CPU_SLACK_S over all its calls, before the run is resource_overuse: an honest process cannot exceed threads x
# wall at all (each thread runs at most the wall time); the margin covers the runtime's helper threads (MPI's
# progress thread, OpenMP workers spinning out a barrier) and the readings' own cost (tens of microseconds a
# call). Measured on the suite's OpenMP and serial references: at most 1.05 x the threads given. A body that
# takes a second core where it was given one shows about 2.
CPU_OVERUSE_FACTOR = 1.25
CPU_SLACK_S = 0.002
# Between its calls a judged sample's process only prepares the inputs the judge names (drivers/judge.hpp): it generates
# them, as the judge does once for its check, and copies the ones that come again. Its CPU time there (every thread,
# read from outside with the process stopped at both ends; per thread the call could keep busy, since OpenMP's workers
# wait actively between regions and spin through the preparation) may exceed the judge's own generation of the same
# inputs by PREPARE_CPU_FACTOR, and by PREPARE_CPU_SLACK_S, before the run is resource_overuse: work a thread of the
# sample does between the calls (where no clock of a call runs) shows there. The margin covers the copies of inputs
# validated again (8 stress validations copy the timed input 8 times), page faults of fresh buffers and the runtime's
# threads. Measured on all 340 references of the suite (benchmarks/prepare_cpu.py, 2 cores at load 6-8, 2026-12-07,
# before the count was made per thread, which can only lower the OpenMP and Kokkos figures): where the judge's
# generation took more than 10 ms, at most 4.75 x it (OpenMP at 2 threads), 3.1 x (Kokkos), 2.65 x (MPI+OpenMP), 2.1 x
# (serial, MPI); below 10 ms the slack holds the rest (largest 0.03 s). The thread bound (extra_threads) is what stops
# a thread of the sample's own; this one bounds what any work between the calls can take.
PREPARE_CPU_FACTOR = 8.0
PREPARE_CPU_SLACK_S = 0.25


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunProtocol:
    """How one run validates and times a program (the driver's arguments) and where it runs."""

    warmup: int  # untimed calls before the timed ones
    reps: int  # timed calls of the program and of the serial baseline, interleaved in one process (0: validate only)
    validations: int  # times the timed size is validated, each on another input (a race shows in some only)
    seed: int  # the driver's input generator seed
    size: str = "timed"  # the problem size validated last and timed ("timed" or "paper")
    ranks: int = 1  # MPI ranks
    threads: int = 1  # threads per rank
    # OpenMP models: more validations at the timed size with `stress_threads` threads per rank, more than the
    # cores, so that a data race shows although a competing load serialises the timed thread count (0: none)
    stress_validations: int = 0
    stress_threads: int = 0
    # OpenMP models: more thread counts per rank validated and timed in the same run after `threads` (an
    # OpenMP sample's sweep in one process: its inputs, baseline answers and pages made once; ProgramRun.by_threads)
    more_threads: tuple[int, ...] = ()
    nice: int = 0  # < 0 raises the run's priority (needs root; see sandbox.py); 0 runs at the caller's
    # JUDGED_EXEC_MODELS: timed, checked and reported by the judge (drivers/judge.hpp); False: by the driver in the sample's
    # process (the race check, whose ThreadSanitizer build validates once and times nothing)
    judged: bool = True
    # Judged runs: a call of the sample that takes longer than call_factor x the baseline's time on an input of its
    # size (the judge times the baseline on the validations' inputs, which come first at each size), and at least
    # call_floor_s, is cut and the run is VERDICT_TIMEOUT: a hung body costs its first call's limit, not the run's
    # wall-clock limit. call_factor 0: no limit of its own (the run's wall-clock limit only). The stress validations
    # keep their own bound (drivers/judge.hpp). The race check's run (unjudged): a validated call over the limit ends
    # it (check_races: inconclusive).
    call_floor_s: float = 0.0
    call_factor: float = 0.0
    extra_env: Mapping[str, str] = dataclasses.field(default_factory=dict)  # added to the suite's run environment

    def cores(self, exec_model: str) -> int | None:
        """Cores the run is given (sandbox.SandboxLimits.cores): its ranks x its most threads per rank; None for
        the GPU models, whose runtimes start host threads of their own."""
        if exec_model in ("cuda", "hip"):
            return None
        return self.ranks * max((self.threads, *self.more_threads))

    def judged_in(self, exec_model: str) -> bool:
        """Whether a run of `exec_model` under this protocol is judged from a process of its own (drivers/judge.hpp)."""
        return self.judged and exec_model in JUDGED_EXEC_MODELS

    def command(self, problem: suite.Problem, exec_model: str, exe: Path,
                judge: Path | None = None) -> tuple[list[str], dict[str, str]]:  # fmt: skip
        """argv and environment of the driver (run by `judge` when given): the suite's, then `extra_env`, then the
        thread placement (timing.placement_env), which therefore always wins."""
        argv, env = driver_program.run_argv(problem, exec_model, exe, ranks=self.ranks, threads=self.threads, seed=self.seed,
                                   warmup=self.warmup, reps=self.reps, size=self.size,
                                   validations=self.validations, stress_validations=self.stress_validations,
                                   stress_threads=self.stress_threads, more_threads=self.more_threads,
                                   secret_stdin=True, judge=judge,
                                   call_limit=(self.call_floor_s, self.call_factor) if self.call_factor > 0 else None)  # fmt: skip
        return argv, env | dict(self.extra_env) | placement_env(exec_model)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProgramRun:
    verdict: str  # one of verdicts.VERDICTS (never BUILD_ERROR or NO_PARALLELISM: the program was built and run)
    detail: str  # why it failed: how the run ended and its stderr's tail, or the driver's complaint; "" if OK
    # What the driver reported when the run ended cleanly but the program failed: its validation failure
    # (WRONG_ANSWER) or why its result line was unreadable (CRASH). None when the sandbox's verdict decided.
    driver_failure: str | None
    times_s: tuple[float, ...]  # the program's timed repetitions (empty unless OK), at protocol.threads
    baseline_times_s: tuple[float, ...]  # the serial baseline's, interleaved with them
    wall_s: float  # the whole run: validation, warm-up and both timings (at every thread count)
    result: sandbox.SandboxResult  # the raw run: how it ended, captured output
    # (times_s, baseline_times_s) at each thread count run, protocol.threads and protocol.more_threads (empty unless OK)
    by_threads: Mapping[int, tuple[tuple[float, ...], tuple[float, ...]]] = dataclasses.field(default_factory=dict)
    # The driver's result lines, read with the run's nonce (empty when the run gave none or they were forged)
    driver_results: tuple[driver_program.DriverResult, ...] = ()


def run_secret() -> tuple[str, int]:
    """A fresh (nonce, timed seed) for one run: 128 random bits each way, so that neither can be guessed."""
    return secrets.token_hex(16), secrets.randbits(63)


def resource_overuse(result: driver_program.DriverResult) -> str | None:
    """Why a run used more cores than it was given (CPU_OVERUSE_FACTOR) or more CPU between its calls than preparing
    their inputs takes (PREPARE_CPU_FACTOR), or None."""
    allowed = result.threads_allowed
    if allowed <= 0:  # GPU models: their runtimes' own threads; not checked
        return None
    if result.extra_threads > 0:
        return (f"a process of the sample had {result.extra_threads} thread(s) beyond its runtime's and the team it "
                "was given: threads of its own, started without a call the inspection names, which can work between "
                "its calls where no clock runs")
    prepare_allowed_s = PREPARE_CPU_FACTOR * result.generate_cpu_s + PREPARE_CPU_SLACK_S
    if result.prepare_cpu_s > prepare_allowed_s:
        return (f"{result.prepare_cpu_s:.3f} s of CPU in a process of the sample between its calls, where it only "
                f"prepares inputs that the judge generated in {result.generate_cpu_s:.3f} s (at most "
                f"{prepare_allowed_s:.3f} s allowed): work done outside the timed calls")
    wall_s = sum(result.times_s)
    for what, ratio, wall in (("its timed calls", result.cpu_per_wall, wall_s),
                              ("the baseline's calls", result.baseline_cpu_per_wall, sum(result.baseline_times_s))):
        if ratio > allowed * CPU_OVERUSE_FACTOR and (ratio - allowed) * wall > CPU_SLACK_S:
            return (f"at {result.threads} threads: {ratio:.2f} cores busy per process during {what}, given "
                    f"{allowed} (CPU time / wall time; more cores than given are never a speedup)")
    return None


def impossible_report(results: tuple[driver_program.DriverResult, ...], reps: int, wall_s: float) -> str | None:
    """Why a valid run's report cannot be the driver's own (a sample rewrote its memory), or None: every thread count
    has `reps` timings of the sample and of the baseline, each above 0, and they fit in the run's `wall_s`,
    measured from outside the process."""
    for r in results:
        for what, times in (("its", r.times_s), ("the baseline's", r.baseline_times_s)):
            if len(times) != reps or min(times, default=1.0) <= 0:
                return (f"at {r.threads} threads the run reported {what} timings {list(times)[:8]}, asked for "
                        f"{reps} timed calls (each a time above 0)")
    reported_s = sum(sum(r.times_s) + sum(r.baseline_times_s) for r in results)
    if reported_s > wall_s:
        return f"the run reported {reported_s:.3f} s of timed calls in {wall_s:.3f} s measured from outside"
    return None


CONFINE_REFUSED = re.compile(r"pcgbench confine: system call (-?\d+) refused")


@functools.cache
def system_call_names() -> dict[int, str]:
    """x86-64 system call numbers to names, from the kernel headers the compilers use ({} where they are absent)."""
    for header in (Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"), Path("/usr/include/asm/unistd_64.h")):
        if header.exists():
            pairs = re.findall(r"#define __NR_(\w+) (\d+)", header.read_text())
            return {int(number): name for name, number in pairs}
    return {}


def refused_system_call(stderr: str) -> str | None:
    """Why a run is TAMPERING when the kernel's filter (drivers/confine.hpp) refused one of its system calls, or None."""
    match = CONFINE_REFUSED.search(stderr)
    if match is None:
        return None
    number = int(match.group(1))
    name = system_call_names().get(number, f"number {number}")
    return (f"the kernel refused system call {name} ({number}): outside what a run may ask once its runtime is up "
            f"(drivers/confine.hpp: no signal handlers, timers, processes, files or changes to other processes)")


def run_program(problem: suite.Problem, exec_model: str, exe: Path, protocol: RunProtocol,
                limits: sandbox.SandboxLimits) -> ProgramRun:  # fmt: skip
    """Run `exe` (built for `problem` in `exec_model`) once in the sandbox and judge it. A sandbox that does not
    work here (sandbox.SandboxUnavailable) or fails during the run (sandbox.SandboxFailure) raises: the
    harness's failure is never a verdict on the program."""
    binds = {exe: SANDBOX_EXE}
    judge = None
    if protocol.judged_in(exec_model):
        judge = Path(SANDBOX_JUDGE)
        binds[driver_program.build_judge(problem, exec_model, driver_program.drivers_dir())] = SANDBOX_JUDGE
    argv, env = protocol.command(problem, exec_model, Path(SANDBOX_EXE), judge)
    nonce, timed_seed = run_secret()
    if limits.cores is None:  # the run gets the cores it is timed at, no more
        limits = dataclasses.replace(limits, cores=protocol.cores(exec_model))
    result = sandbox.run_sandboxed(argv, limits=limits, binds=binds, env=env, nice=protocol.nice,
                                   stdin=f"{nonce} {timed_seed}\n".encode())  # fmt: skip
    failed = dict(times_s=(), baseline_times_s=(), wall_s=result.wall_s, result=result)
    if (why := refused_system_call(result.stderr)) is not None:
        return ProgramRun(verdict=verdicts.TAMPERING, detail=why, driver_failure=None, **failed)
    if (why := driver_program.forged_result(result.stdout, nonce)) is not None:
        return ProgramRun(verdict=verdicts.TAMPERING, detail=why, driver_failure=why, **failed)
    # The CPU limit tells a SIGKILL at the hard CPU limit apart from a crash.
    verdict = sandbox.verdict_for(result, cpu_limit_s=limits.cpu_limit_s)
    if verdict is not None:
        how = f"{result.outcome}" + (f" signal {result.signal_number}" if result.signal_number else "")
        how += f" exit {result.returncode}" if result.returncode is not None else ""
        if result.usage is not None and (limit_hit := result.usage.describe()):
            how += f" ({limit_hit})"
        # An MPI error the driver's handler reported (drivers/main.hpp exit_on_mpi_error) says more than mpirun's
        # account of the exit that follows it.
        mpi_error = MPI_ERROR.search(result.stderr)
        told = mpi_error.group(0) if mpi_error else result.stderr.strip()[-STDERR_CHARS:]
        return ProgramRun(verdict=verdict, detail=f"{how}: {told}", driver_failure=None, **failed)
    threads = (protocol.threads, *protocol.more_threads)
    try:
        results = driver_program.parse_driver_results(result.stdout, nonce, timed=protocol.reps > 0)
        if tuple(r.threads for r in results) != threads:  # the driver prints them in this order
            raise ValueError(f"result lines for threads {[r.threads for r in results]}, expected {list(threads)}")
    except driver_program.ForgedResult as err:
        return ProgramRun(verdict=verdicts.TAMPERING, driver_failure=str(err), detail=str(err), **failed)
    except ValueError as err:
        return ProgramRun(verdict=verdicts.CRASH, driver_failure=str(err), **failed,
                          detail=f"no valid result line ({err}); stderr: {result.stderr.strip()[-300:]}")  # fmt: skip
    parsed = results[0]
    failed["driver_results"] = results
    if not parsed.valid and parsed.call_timed_out:
        return ProgramRun(verdict=verdicts.VERDICT_TIMEOUT, detail=parsed.failure, driver_failure=parsed.failure, **failed)
    if not parsed.valid:
        return ProgramRun(verdict=verdicts.WRONG_ANSWER, detail=parsed.failure, driver_failure=parsed.failure, **failed)
    # What the driver reports must be what it was asked to run, and fit in what was measured from outside.
    if (why := impossible_report(results, protocol.reps, result.wall_s)) is not None:
        return ProgramRun(verdict=verdicts.TAMPERING, detail=why, driver_failure=why, **failed)
    for r in results:
        if (why := resource_overuse(r)) is not None:
            return ProgramRun(verdict=verdicts.RESOURCE_OVERUSE, detail=why, driver_failure=why, **failed)
    return ProgramRun(verdict=verdicts.OK, detail="", driver_failure=None, times_s=parsed.times_s,
                      baseline_times_s=parsed.baseline_times_s, wall_s=result.wall_s, result=result,
                      by_threads={r.threads: (r.times_s, r.baseline_times_s) for r in results},
                      driver_results=results)  # fmt: skip


# ---------------------------------------------------------------------------------------------------------
# Race checks: a ThreadSanitizer build (toolchains.TSAN) of an OpenMP program, run once at the timed size.

RACE_REPORT = "WARNING: ThreadSanitizer: data race"
RACE_CHECK_THREADS = 2  # TSan orders accesses by happens-before, so two threads show a race whether or not they overlap
RACE_CHECK_RANKS = 2  # MPI+OpenMP: every rank's code path runs threaded (a body may branch on its rank)
TSAN_EXIT_CODE = 66
# ThreadSanitizer runs a sample 5-15x slower than its regular build, and the baseline the race check's call limit is
# taken from is not instrumented (the driver object is the regular one): the limit's factor is this much larger.
TSAN_SLOWDOWN = 20


@dataclasses.dataclass(frozen=True)
class RaceCheck:
    status: str  # "clean", "race" (verdicts.RACE_DETECTED for the sample) or "inconclusive" (no verdict)
    detail: str  # the race's report (its first access pair and summary line), or why it was inconclusive

    def column(self) -> str:
        """As results.parquet's `race_check` column has it: the status, then why when inconclusive."""
        return self.status if self.status != "inconclusive" else f"{self.status}: {self.detail}"


# A number in code: decimal, hex, binary or floating (1e5), with its suffixes; not part of a name (x2, int64_t).
_NUMBER = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|0[bB][01]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[uUlLfF]*")


def race_check_size(problem: suite.Problem, exec_model: str, body: str | None) -> str:
    """The size at which the race check runs a sample: "small" when every thread of the check works there whatever
    the body's numbers, else "timed" (the module docstring says why). A number c in the body's code (comments and
    strings aside) could be a chunk or a threshold: the small size is enough only when the check's threads x ranks
    x 4 x c stays below it for every c. A shift (`1 << 16`) computes a number: timed. Unknown body: timed."""
    if body is None:
        return "timed"
    code = strip_comments_and_strings(body)
    if "<<" in code:
        return "timed"
    ranks = RACE_CHECK_RANKS if exec_model == "mpi+omp" else 1
    largest = max((float(int(m, 0)) if m[:2].lower() in ("0x", "0b") else float(m) for m in _NUMBER.findall(code)),
                  default=0.0)  # fmt: skip
    return "small" if 4 * RACE_CHECK_THREADS * ranks * largest < problem.sizes["small"] else "timed"


def race_check_env(memory_mb: int) -> dict[str, str]:
    """TSan's options: stop at the first race with its own exit code; take LLVM's OpenMP runtime (not
    instrumented) as described by Archer; bound the resident memory, as RLIMIT_AS cannot be used."""
    options = [f"exitcode={TSAN_EXIT_CODE}", "halt_on_error=1", "ignore_noninstrumented_modules=1",
               f"hard_rss_limit_mb={memory_mb}", "allocator_may_return_null=1", "report_signal_unsafe=0"]  # fmt: skip
    return {"OMP_TOOL_LIBRARIES": str(toolchains.archer_library()), "TSAN_OPTIONS": " ".join(options)}


def race_report(stderr: str) -> str:
    """The informative lines of a TSan race report: the two accesses (first frame each) and the summary."""
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if RACE_REPORT in line)
    keep = [line.strip() for line in lines[start:] if line.strip().startswith(("WARNING:", "Write", "Read",
            "Previous", "Atomic", "#0", "SUMMARY:"))]  # fmt: skip
    return "\n".join(keep)[:STDERR_CHARS]


def check_races(problem: suite.Problem, exec_model: str, build: "BuildResult", *, seed: int,
                limits: sandbox.SandboxLimits, nice: int = 0, body: str | None = None,
                call_limit: tuple[float, float] | None = None) -> RaceCheck:  # fmt: skip
    """Run the race-check build of an OpenMP program (BuildRequest.sanitizer = toolchains.TSAN) once in the sandbox, at the
    size race_check_size derives from its `body` (the timed size without one; the module docstring says why;
    validated, nothing timed: TSan runs 5-15x slower) on RACE_CHECK_THREADS threads (per rank, on
    RACE_CHECK_RANKS ranks for MPI+OpenMP). RLIMIT_AS is lifted (TSan reserves terabytes of address space) and
    TSan's RSS limit takes its place at the same size. A build that failed (clang rejects what GCC accepted)
    is inconclusive, not a verdict. `call_limit` (floor s, factor), the judged runs' (RunProtocol.call_floor_s,
    call_factor): a validated call that takes longer than max(floor, factor x TSAN_SLOWDOWN x the baseline's time on
    its input) ends the run, inconclusive (the judged run that follows cuts such a call and gives the verdict): a
    sample that hangs costs seconds here, not the run's wall-clock limit (65 s for an OpenMP mutant that never returns)."""
    if not build.ok:
        return RaceCheck(status="inconclusive", detail="the ThreadSanitizer build failed: " + build.log[-300:])
    ranks = RACE_CHECK_RANKS if exec_model == "mpi+omp" else 1
    protocol = RunProtocol(warmup=0, reps=0, validations=1, seed=seed, size=race_check_size(problem, exec_model, body),
                           ranks=ranks, threads=RACE_CHECK_THREADS, nice=nice, judged=False,
                           call_floor_s=call_limit[0] if call_limit else 0.0,
                           call_factor=call_limit[1] * TSAN_SLOWDOWN if call_limit else 0.0,
                           extra_env=race_check_env(limits.memory_mb or 4096))  # fmt: skip
    # No address-space limit (TSan reserves terabytes of it); the run's memory is bounded by the sanitizer's RSS limit
    # per process and, where it has a control group, by the run's own limit on all its processes together.
    run = run_program(problem, exec_model, build.exe, protocol,
                      dataclasses.replace(limits, memory_mb=None, run_memory_mb=limits.whole_run_memory_mb()))
    if RACE_REPORT in run.result.stderr:
        return RaceCheck(status="race", detail=race_report(run.result.stderr))
    if run.verdict == verdicts.OK:
        return RaceCheck(status="clean", detail="")
    if run.result.signal_number == signal.SIGALRM and protocol.call_factor > 0:
        return RaceCheck(status="inconclusive", detail=f"the ThreadSanitizer build's run: a validated call did not "
                         f"return within max({protocol.call_floor_s:g} s, {protocol.call_factor:g} x the baseline's time "
                         "on its input): cut")  # fmt: skip
    # The race check's run is not under the system-call filter (drivers/confine.hpp: ThreadSanitizer's runtime makes
    # calls of its own), so what the program printed there is not kept: only how the run ended and, for a wrong answer,
    # the driver's own words from its signed result line.
    said = f": {run.driver_failure[:300]}" if run.verdict == verdicts.WRONG_ANSWER and run.driver_failure else ""
    return RaceCheck(status="inconclusive", detail=f"the ThreadSanitizer build's run: {run.verdict}{said}")
