"""The performance reward: build, validate and time each completion with the PCGBench harness, then grade it.

    cfg = RewardConfig.from_config(config["rlpf"]["reward"], config["measure"], seed=config["seed"],
                                   cache_dir=Path("results/rlpf/measure_cache"))
    measurer = Measurer(cfg)
    reward_fn = PerformanceReward(measurer, tasks)        # a TRL reward function
    reward_fn(prompts, completions, task_id=[...])       # -> list[float]

Grades (defaults; config section `rlpf.reward`), strictly ordered so that every step up is rewarded:

    malformed completion, build failure,
    tampering                                  -1.0
    wrong answer, race detected, crash,
    timeout, limit, resource overuse           -0.6
    correct, speedup s < 1                     -0.5 * (1 - s)    (in (-0.5, 0]: slower is worse)
    correct, speedup s >= 1                    log(s)

The speedup is the serial baseline's median repetition over the sample's, both measured in the same run by
the suite's judge (drivers/judge.hpp; validation first, at two sizes). An OpenMP completion's ThreadSanitizer build runs before
that (`race_check`): a race it reports is the verdict, however the load let the threads run. Each distinct program (task set, kernel, full body,
threads, timing protocol) is cached on disk by the SHA-256 of that content. A failure is kept for good; a pass
is not proof (a racy program passes some runs and fails others), so a passing program is measured again each
time it comes back until it has passed CONFIRMATIONS runs, and a failure in any of them is its verdict from
then on. Repeated completions (common once a policy sharpens) then cost nothing.
Distinct programs of one batch compile concurrently (the harness's BuildCache, `jobs` compilers); runs
are one at a time, because concurrent runs would perturb each other's timings, and each run is bounded
by the sandbox's wall-clock limit, so no program can block the batch for longer than that.
How a completion is built, checked and run is the measurement engine's (workflow_scripts/measure/, settings.py): its settings are
config section `measure` with rlpf.reward.measure's overrides on top (RewardConfig.from_config), the checks
before the timed run its `vet`. The run's wall-clock limit is the settings' run_timeout_s: the reward has no
reference run time to scale (the serial baseline is timed in the same run).

A group whose completions all get the same reward gives GRPO a zero advantage, hence zero gradient:
`constant_groups` finds them and PerformanceReward counts them per call (they are logged and reported).
"""

import dataclasses
import hashlib
import json
import logging
import math
import statistics
from pathlib import Path

from workflow_scripts.common import Progress, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.measure import (
    BUILD_ERROR,
    MALFORMED,
    NO_PARALLELISM,
    OK,
    PROMPT_MISMATCH,
    PROTOCOL,
    TAMPERING,
    TSAN,
    VERDICTS,
    BuildCache,
    BuildRequest,
    BuildResult,
    MeasureConfig,
    RunProtocol,
    get_problem,
    placement_env,
    run_program,
    vet,
)
from workflow_scripts.rlpf.program_body import program_body
from workflow_scripts.rlpf.tasks import Task

logger = logging.getLogger(__name__)


# What a completion's measurement can end as: the engine's vocabulary, MALFORMED (not a list of allowed pragmas:
# nothing to build) first, without the verdicts of a generations record (a completion's prompt is the task's own,
# and a pragma completion is parallel by construction).
COMPLETION_VERDICTS = (MALFORMED, *(v for v in VERDICTS if v not in (PROMPT_MISMATCH, NO_PARALLELISM)))
# Passing runs a program needs before its pass is reused without measuring it again (a failure needs one).
CONFIRMATIONS = 3


@dataclasses.dataclass(kw_only=True)
class RewardConfig:
    """Config section `rlpf.reward`: the grades, and the settings it measures with (cache_dir comes from the rule)."""

    cache_dir: Path
    # How completions are built, run and timed: section `measure` with rlpf.reward.measure's overrides (from_config).
    # Its protocol is the engine's race-catching one: the timed size validated on `validations` inputs, OpenMP
    # threads bound one per core and spinning (timing.placement_env), a raised priority (run_nice), then
    # `stress_validations` more at `stress_threads` threads, more than the cores, so that a missing reduction's race
    # shows even when training jobs share the cores (passive waiting let racy pragmas pass validation and become SFT
    # targets); OpenMP completions' ThreadSanitizer build runs first (race_check), a race there is the verdict.
    measure: MeasureConfig
    build_error_reward: float = schema_default("rlpf.reward.build_error_reward")
    wrong_reward: float = schema_default("rlpf.reward.wrong_reward")
    # the limit of a correct program's reward as its speedup goes to 0
    slow_floor_reward: float = schema_default("rlpf.reward.slow_floor_reward")

    def __post_init__(self) -> None:
        self.cache_dir = Path(self.cache_dir)
        if not self.build_error_reward < self.wrong_reward < self.slow_floor_reward < 0:
            raise ValueError("rlpf.reward must satisfy build_error_reward < wrong_reward < slow_floor_reward < 0 "
                             f"(failing to build is worst, any correct program beats a wrong one); got "
                             f"{self.build_error_reward}, {self.wrong_reward}, {self.slow_floor_reward}")

    @classmethod
    def from_config(cls, reward: dict, measure: dict, *, seed: int, cache_dir: Path) -> "RewardConfig":
        """From config sections rlpf.reward and measure and the config's seed (the driver's inputs): the settings
        are the section `measure` with rlpf.reward.measure's keys on top."""
        grades = {key: value for key, value in reward.items() if key != "measure"}
        settings = MeasureConfig(**measure, seed=seed).overridden(reward.get("measure", {}), key="rlpf.reward.measure")
        return cls(cache_dir=cache_dir, measure=settings, **grades)


@dataclasses.dataclass(kw_only=True)
class Measurement:
    key: str  # SHA-256 of the program and the protocol (the cache key)
    task_id: str
    verdict: str  # one of COMPLETION_VERDICTS
    speedup: float | None  # baseline time / sample time (median repetition of each), when correct
    time_s: float | None  # the sample's median repetition
    baseline_time_s: float | None
    spread: float | None  # IQR / median of the sample's repetitions
    detail: str  # why it failed (trimmed), "" when correct
    passes: int = 1  # passing runs so far (CONFIRMATIONS); the numbers above are the latest run's

    @property
    def correct(self) -> bool:
        return self.verdict == OK


def grade(m: Measurement, cfg: RewardConfig) -> float:
    """The scalar reward of one measurement (see the module docstring)."""
    if m.verdict in (MALFORMED, BUILD_ERROR, TAMPERING):
        return cfg.build_error_reward
    if m.verdict != OK:
        return cfg.wrong_reward
    s = max(m.speedup, 1e-9)
    return math.log(s) if s >= 1.0 else cfg.slow_floor_reward * (1.0 - s)


def constant_groups(prompts: list[str], rewards: list[float]) -> list[str]:
    """Prompts whose (two or more) completions all got the same reward: their GRPO gradient is zero."""
    groups: dict[str, list[float]] = {}
    for prompt, reward in zip(prompts, rewards, strict=True):
        groups.setdefault(prompt, []).append(reward)
    return [p for p, rs in groups.items() if len(rs) > 1 and max(rs) - min(rs) == 0.0]


def _iqr_over_median(times: tuple[float, ...]) -> float:
    if len(times) < 2:
        return 0.0
    q = statistics.quantiles(times, n=4, method="inclusive")
    med = statistics.median(times)
    return (q[2] - q[0]) / med if med > 0 else float("nan")


class Measurer:
    """Builds, validates and times completions of tasks; every result cached on disk by content."""

    def __init__(self, cfg: RewardConfig) -> None:
        self.cfg = cfg
        self.builds = BuildCache(cfg.measure.build_config(cache_dir=cfg.cache_dir / "builds"))
        self.results_dir = cfg.cache_dir / "measurements"
        self.results_dir.mkdir(parents=True, exist_ok=True)
        self.n_measured = 0  # programs built and run by this process (cache misses)
        self.n_cached = 0

    def protocol(self, task: Task) -> RunProtocol:
        """How a completion of `task` is run: one rank at the task's threads."""
        return self.cfg.measure.protocol(threads=task.threads)

    def program_key(self, task: Task, body: str | None, completion: str) -> str:
        # The protocol's fields in the order and form the cache has always hashed them, then the stress
        # validations when there are any: a cache written without them keeps its keys for a protocol without them,
        # and is not reused by one with them (it may hold racy programs measured ok), nor by one that ran them before
        # the timing (their oversubscribed team then lingered through the timed calls).
        p = self.protocol(task)
        fields = [p.warmup, p.reps, p.validations, p.seed, p.threads, p.nice, placement_env(task.exec_model),
                  dict(p.extra_env)]
        if p.stress_validations:
            fields += [{"stress_validations": p.stress_validations, "stress_threads": p.stress_threads,
                        "after_timing": True}]
        if self.race_checked(task):
            fields += [{"race_check": True}]
        fields += [{"protocol": PROTOCOL}]
        protocol = json.dumps(fields)
        program = body if body is not None else "MALFORMED\0" + completion
        text = "\0".join([task.task_set, task.kernel, task.exec_model, protocol, program])
        return hashlib.sha256(text.encode()).hexdigest()

    def _load(self, key: str) -> Measurement | None:
        path = self.results_dir / f"{key}.json"
        if not path.exists():
            return None
        return Measurement(**json.loads(path.read_text()))

    def _store(self, m: Measurement) -> None:
        write_json(self.results_dir / f"{m.key}.json", dataclasses.asdict(m))

    def race_checked(self, task: Task) -> bool:
        return self.cfg.measure.race_checked(task.exec_model)

    def _run(self, task: Task, build: BuildResult, key: str, body: str, race_build: BuildResult | None = None) -> Measurement:
        """Measure one built completion: the harness's checks (vet: its build, what its object holds, its race
        check), then one run."""
        fields = dict(key=key, task_id=task.task_id, speedup=None, time_s=None, baseline_time_s=None, spread=None)
        problem = get_problem(task.kernel)
        vetting = vet(problem, task.exec_model, build, self.cfg.measure, body=body, race_build=race_build)
        if vetting.verdict is not None:
            # A compiler's log ends with what went wrong; the other reasons start with it.
            detail = vetting.detail[-400:] if vetting.verdict == BUILD_ERROR else vetting.detail[:400]
            return Measurement(**fields, verdict=vetting.verdict, detail=detail)
        if vetting.race_check is not None and vetting.race_check.status == "inconclusive":
            logger.warning("%s: race check inconclusive: %s", task.task_id, vetting.race_check.detail[:300])
        run = run_program(problem, task.exec_model, build.exe, self.protocol(task), self.cfg.measure.limits())
        if run.verdict != OK:
            # Shorter than the harness's detail: what the driver reported, else the end of the run's output.
            if run.driver_failure is not None:
                detail = run.driver_failure[:400]
            else:
                detail = (run.result.stderr or run.result.stdout)[-400:]
            return Measurement(**fields, verdict=run.verdict, detail=detail)
        # The median repetition of each, as the evaluation's speedup: the fastest one rewarded a body that takes a
        # second core in a few calls only (the CPU check reads the median call), and a lucky call of a noisy one. The
        # calls are interleaved with the baseline's, so load drifting during the run reaches both medians alike.
        time_s, base_s = statistics.median(run.times_s), statistics.median(run.baseline_times_s)
        return Measurement(**(fields | dict(speedup=base_s / max(time_s, 1e-12), time_s=time_s, baseline_time_s=base_s,
                                            spread=_iqr_over_median(run.times_s))), verdict=OK, detail="")

    def measure(self, items: list[tuple[Task, str]]) -> list[Measurement]:
        """Measurements of (task, completion) pairs, in order. Builds run concurrently, and beside the runs where
        those are raised above them; runs one at a time."""
        planned = []  # (task, body or None, key)
        for task, completion in items:
            body = program_body(task, completion)
            planned.append((task, body, self.program_key(task, body, completion)))
        done: dict[str, Measurement] = {}
        todo: dict[str, tuple[Task, str]] = {}
        for task, body, key in planned:
            if key in done or key in todo:
                continue
            cached = self._load(key)
            if cached is not None and (cached.verdict != OK or cached.passes >= CONFIRMATIONS or body == task.body):
                done[key] = cached
                self.n_cached += 1
            elif body == task.body:
                # No pragma at all: the program is the serial baseline itself (validated by the suite's own
                # self-check), so its speedup is 1 by definition; timing it against itself would only add noise.
                done[key] = Measurement(key=key, task_id=task.task_id, verdict=OK, speedup=1.0, time_s=None,
                                        baseline_time_s=None, spread=0.0, detail="unchanged: the baseline itself")
                self._store(done[key])
            elif body is None:
                done[key] = Measurement(key=key, task_id=task.task_id, verdict=MALFORMED, speedup=None, time_s=None,
                                        baseline_time_s=None, spread=None, detail="malformed: no allowed pragmas or no body")
                self._store(done[key])
            else:
                todo[key] = (task, body)
        if todo:
            keys = list(todo)
            # Per program its build, then (OpenMP tasks) its race-check build, in the order the programs are run: a
            # program runs as soon as its builds are done while later ones build below its priority (the evaluation's
            # order and overlap; MeasureConfig.overlaps_builds_and_runs).
            requests, build_index, race_build_index = [], {}, {}
            for key in keys:
                task, body = todo[key]
                build_index[key] = len(requests)
                # Positional: (problem, execution model, body), the engine's field order.
                requests.append(BuildRequest(get_problem(task.kernel), task.exec_model, body))
                if self.race_checked(task):
                    race_build_index[key] = len(requests)
                    requests.append(dataclasses.replace(requests[-1], sanitizer=TSAN))
            # No start line: the GRPO reward calls this for every step's few completions.
            progress = Progress("measured programs", total=len(keys), unit="program", logger=logger, start_line=False)
            with self.builds.building(requests, overlap=self.cfg.measure.overlaps_builds_and_runs()) as builds:
                for key in keys:
                    task, body = todo[key]  # the body's numbers choose the race check's size (run.race_check_size)
                    race_build = builds[race_build_index[key]].result() if key in race_build_index else None
                    m = self._run(task, builds[build_index[key]].result(), key, body, race_build)
                    # a pass being confirmed (CONFIRMATIONS)
                    if m.verdict == OK and (earlier := self._load(key)) is not None and earlier.verdict == OK:
                        m.passes = earlier.passes + 1
                    self._store(m)
                    done[key] = m
                    self.n_measured += 1
                    progress.advance()
            progress.finish(note=f"{self.n_cached} cached so far, {self.n_measured} measured")
        return [done[key] for _, _, key in planned]


class PerformanceReward:
    """A TRL reward function: `f(prompts, completions, task_id=[...]) -> list[float]` (graded, measured)."""

    __name__ = "performance"  # TRL names the logged reward column after the function

    def __init__(self, measurer: Measurer, tasks: list[Task]) -> None:
        self.measurer = measurer
        self.tasks = {t.task_id: t for t in tasks}
        self.history: list[dict] = []  # per call: mean reward, constant groups, verdict counts

    def __call__(self, prompts: list, completions: list, task_id: list[str], **_: object) -> list[float]:
        texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
        measurements = self.measurer.measure([(self.tasks[t], c) for t, c in zip(task_id, texts, strict=True)])
        rewards = [grade(m, self.measurer.cfg) for m in measurements]
        flat = constant_groups([str(p) for p in prompts], rewards)
        n_groups = len(set(map(str, prompts)))
        verdicts = {v: sum(m.verdict == v for m in measurements) for v in COMPLETION_VERDICTS}
        set_of = {str(p): self.tasks[t].task_set for p, t in zip(prompts, task_id, strict=True)}
        by_set = {ts: sum(s == ts for s in set_of.values()) for ts in set(set_of.values())}
        flat_by_set = {ts: sum(set_of[p] == ts for p in flat) for ts in by_set}
        self.history.append({"mean_reward": sum(rewards) / len(rewards), "constant_groups": len(flat),
                             "groups": n_groups, "verdicts": verdicts, "groups_by_task_set": by_set,
                             "constant_groups_by_task_set": flat_by_set})  # fmt: skip
        if flat:
            logger.warning("%d of %d prompt groups got one reward for every completion (zero gradient)",
                           len(flat), n_groups)  # fmt: skip
        return rewards
