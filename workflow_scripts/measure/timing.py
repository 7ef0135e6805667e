"""The timing protocol: which resource counts a sample runs at, and how its repeated times are summarised.

Each run of a sample's executable (one process, or one mpirun) validates the sample (the timed size
`validations` times, on other inputs), makes `warmup` untimed repetitions, then `reps` timed ones, each a
call of the sample followed by a call of the serial baseline, in the same run (the suite's judge
does this, in a process of its own: drivers/judge.hpp): a speedup is a ratio of two times measured side by side, interleaved so that load drifting
during the run reaches both.
The harness runs that once per resource configuration of the sweep:

    serial           (ranks 1, threads 1)
    omp, kokkos      threads 1, 2, 4, ... up to max_cores (max_cores itself always included)
    mpi              ranks   1, 2, 4, ... up to max_cores
    mpi+omp          ranks x threads from those lists with ranks x threads <= max_cores
    cuda, hip        one configuration (the GPU); they are build-only without a GPU

and keeps per configuration the median of the repetitions and their spread (interquartile range, min,
max). No two timing runs overlap: the evaluation runs its samples one after the other, and Snakemake's
`timing_slot` resource keeps evaluation jobs from running at the same time as each other. Compiles may go on
beside a run, below its priority (MeasureConfig.overlaps_builds_and_runs).

Each run gets its cores to itself, as on the exclusive node the protocol assumes (placement_env, and the
raised priority of sandbox.run_sandboxed(nice=...)): OpenMP threads are bound one per core and wait
actively between parallel regions, so every region starts on all of its threads at once. This matters for
validation as much as for timing: a data race (an unsynchronised `sum +=`, a missing reduction clause)
corrupts the result only if the threads really overlap in time. Measured at load 11-15 on the 2-core
machine, 2 threads, 20 runs each: a missing-reduction mutant (reduce_sum_of_min_pairs) gave the right
answer, the race unseen, in 13 runs with the suite's unbound, passively waiting threads at normal
priority; 8 at nice -15; 4 at nice -15 with bound threads; 0 at nice -15 with bound, actively waiting ones.
"""

from __future__ import annotations

import dataclasses
import logging
import statistics

import numpy as np

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ResourceConfig:
    ranks: int
    threads: int

    @property
    def n_resources(self) -> int:
        return self.ranks * self.threads


def doubling_counts(maximum: int) -> list[int]:
    """1, 2, 4, ... below `maximum`, then `maximum` itself."""
    counts, n = [], 1
    while n < maximum:
        counts.append(n)
        n *= 2
    return counts + [maximum]


def resource_sweep(exec_model: str, max_cores: int) -> list[ResourceConfig]:
    """The resource configurations a sample of `exec_model` is timed at, smallest first."""
    if max_cores < 1:
        raise ValueError(f"max_cores must be >= 1, got {max_cores}")
    counts = doubling_counts(max_cores)
    if exec_model in ("serial", "cuda", "hip"):
        return [ResourceConfig(1, 1)]
    if exec_model in ("omp", "kokkos"):
        return [ResourceConfig(1, t) for t in counts]
    if exec_model == "mpi":
        return [ResourceConfig(r, 1) for r in counts]
    if exec_model == "mpi+omp":
        return [ResourceConfig(r, t) for r in counts for t in counts if r * t <= max_cores]
    raise ValueError(f"unknown execution model {exec_model!r}")


def placement_env(exec_model: str) -> dict[str, str]:
    """Environment that binds a run's threads to cores of their own (added to the suite's run environment).

    OpenMP and Kokkos (its OpenMP backend): threads bound one per core, closest first (the sweep never asks
    for more threads than max_cores), waiting actively so that a parallel region does not start on one
    thread while the others are still being woken. MPI and MPI+OpenMP keep the suite's placement: binding
    each rank's threads from core 0 would stack the ranks on the same cores (see driver_program.run_argv).
    """
    if exec_model in ("omp", "kokkos"):
        return {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores", "OMP_WAIT_POLICY": "active"}
    return {}


@dataclasses.dataclass(frozen=True)
class TimeSummary:
    median_s: float
    iqr_s: float  # interquartile range of the repetitions
    min_s: float
    max_s: float
    reps: int

    @property
    def relative_spread(self) -> float:
        """IQR over median: the noise of this measurement, kept beside it."""
        return self.iqr_s / self.median_s if self.median_s > 0 else float("nan")


def summarise_times(times_s: tuple[float, ...] | list[float]) -> TimeSummary:
    if not times_s:
        raise ValueError("summarise_times needs at least one time")
    q25, q75 = np.percentile(times_s, [25, 75])
    return TimeSummary(median_s=float(statistics.median(times_s)), iqr_s=float(q75 - q25), min_s=float(min(times_s)),
                       max_s=float(max(times_s)), reps=len(times_s))  # fmt: skip
