"""The rank side of the single-layer validation runs (tensor3d/worker.py, moe/worker.py), started by
layer_study.run_workers: joining the gloo group, seeding, writing the result, and timing training steps.

    def main(params_path, out_path):
        worker_main(params_path, out_path, validate)      # validate(params, world, rank) -> the run's result
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

import torch
import torch.distributed as dist

from workflow_scripts.common import write_json
from workflow_scripts.common.launch import end_worker, init_worker
from workflow_scripts.disttrain.comm import CommLedger


def worker_main(params_path: str, out_path: str, run: Callable[[dict, int, int], dict]) -> None:
    """Join the process group (gloo: the layers and messages stay on the CPU), read the parameters, seed torch
    with seed + rank, and call `run(params, world, rank)` on every rank; rank 0 writes what it returns. The
    process then ends (launch.end_worker)."""
    init_worker("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    with open(params_path, encoding="utf-8") as handle:
        params = json.load(handle)
    torch.manual_seed(params["seed"] + rank)
    result = run(params, world, rank)
    if rank == 0:
        write_json(out_path, result)
    end_worker()


def timed_steps(step: Callable[[], object], module: torch.nn.Module, ledger: CommLedger, *, warmup_steps: int,
                timing_steps: int) -> list[float]:  # fmt: skip
    """Seconds of each of `timing_steps` calls of `step` after `warmup_steps` untimed ones, the slowest rank's
    (all ranks start together); gradients are cleared before each, and the ledger keeps the timed steps only."""
    times = []
    for index in range(warmup_steps + timing_steps):
        module.zero_grad(set_to_none=True)
        dist.barrier()
        start = time.perf_counter()
        step()
        elapsed = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)  # bookkeeping, outside the ledger
        if index >= warmup_steps:
            times.append(float(elapsed))
        else:
            ledger.clear()
    return times


def step_time_stats(times: list[float]) -> dict:
    return {"step_time_s_median": statistics.median(times), "step_time_s_min": min(times),
            "step_time_s_max": max(times)}  # fmt: skip
