"""The Tensor3D validation run, one process per rank (started by torchrun; see validate.py).

For every decomposition of the world size (row x col x depth x data) it
  1. checks the distributed stack against the serial one in float64: outputs, input gradients and
     weight gradients (max abs difference), with 1 and with `chunks` chunks;
  2. compares the bytes the ledger measured in that forward + backward + sync with the model's bytes,
     key by key (op, tag): calls and message bytes;
  3. times `timing_steps` float32 training steps (the slowest rank's time per step; median and spread)
     and keeps every timed collective for calibrating the alpha-beta model;
and for one decomposition it times the step against the number of chunks (the overlap curve).
Rank 0 writes one JSON file.

    torchrun --standalone --nproc-per-node 4 -m workflow_scripts.disttrain.tensor3d.worker params.json out.json
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import time

import torch
import torch.distributed as dist

from workflow_scripts.common import Progress
from workflow_scripts.disttrain.comm import CommLedger
from workflow_scripts.disttrain.layer_worker import step_time_stats, timed_steps, worker_main
from workflow_scripts.disttrain.tensor3d.grid import Grid, check_grid, factorizations
from workflow_scripts.disttrain.tensor3d.layer import (
    GridGroups,
    Tensor3DStack,
    serial_stack,
    shard_features,
    sync_data_parallel,
)
from workflow_scripts.disttrain.tensor3d.volumes import LayerShape, alternating_stack, model_bytes

logger = logging.getLogger(__name__)


def make_problem(features: list[int], batch: int, seed: int, dtype) -> tuple[list[torch.Tensor], torch.Tensor,
                                                                             torch.Tensor]:  # fmt: skip
    """Weights of a stack features[0] -> features[1] -> ..., an input and loss weights (same on every rank)."""
    gen = torch.Generator().manual_seed(seed)
    weights = [torch.randn(features[i + 1], features[i], generator=gen, dtype=dtype) / features[i] ** 0.5
               for i in range(len(features) - 1)]  # fmt: skip
    x = torch.randn(batch, features[0], generator=gen, dtype=dtype)
    loss_weights = torch.randn(batch, features[-1], generator=gen, dtype=dtype)
    return weights, x, loss_weights


def distributed_stack(grid: Grid, rank: int, weights: list[torch.Tensor],
                      chunks: int) -> tuple[GridGroups, CommLedger, Tensor3DStack]:  # fmt: skip
    """This rank's shards of the stack on `grid`, communicating through a fresh ledger."""
    groups = GridGroups(grid, rank)
    ledger = CommLedger()
    return groups, ledger, Tensor3DStack(weights, groups, ledger, chunks=chunks)


def run_step(stack: Tensor3DStack, groups: GridGroups, ledger: CommLedger, x: torch.Tensor,
             loss_weights: torch.Tensor, batch: int) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    """One forward + backward + data-parallel sync; returns (local output, local input gradient)."""
    x_local = shard_features(x, groups, dim_name=stack.layers[0].in_dim, batch=batch).requires_grad_(True)
    y_local = stack(x_local)
    # Loss = sum(Y * L): its gradient w.r.t. each local output slice is the matching slice of L, so the
    # replicated copies of Y (over the group that shards the input features) are not double-counted.
    gy_local = shard_features(loss_weights, groups, dim_name=stack.output_dim(), batch=batch)
    y_local.backward(gy_local)
    sync_data_parallel(list(stack.layers), ledger)
    return y_local.detach(), x_local.grad


def check_against_serial(grid: Grid, rank: int, params: dict, chunks: int) -> dict:
    """float64: distributed outputs and gradients vs the serial stack, and measured vs model bytes."""
    features, batch = params["features"], params["batch"]
    weights, x, loss_weights = make_problem(features, batch, params["seed"], torch.float64)
    groups, ledger, stack = distributed_stack(grid, rank, weights, chunks)
    y_local, gx_local = run_step(stack, groups, ledger, x, loss_weights, batch)

    serial_weights = [w.clone().requires_grad_(True) for w in weights]
    x_serial = x.clone().requires_grad_(True)
    y = serial_stack(serial_weights, x_serial)
    y.backward(loss_weights)
    errors = {
        "output": (y_local - shard_features(y.detach(), groups, dim_name=stack.output_dim(), batch=batch)).abs().max(),
        "input_grad": (gx_local - shard_features(x_serial.grad, groups, dim_name=stack.layers[0].in_dim,
                                                 batch=batch)).abs().max(),  # fmt: skip
        "weight_grad": max(
            (layer.weight_shard.grad - _shard_of(w.grad, layer)).abs().max() for layer, w in
            zip(stack.layers, serial_weights, strict=True)),  # fmt: skip
    }
    shapes = alternating_stack([LayerShape(out_features=features[i + 1], in_features=features[i])
                                for i in range(len(features) - 1)])  # fmt: skip
    modelled = model_bytes(shapes, grid, batch=batch, chunks=chunks, dtype_bytes=8)
    measured = {k: {"calls": v["calls"], "message_bytes": v["message_bytes"]} for k, v in ledger.totals().items()}
    return {"errors": {k: float(v) for k, v in errors.items()},
            "measured_bytes": {"|".join(k): v for k, v in sorted(measured.items())},
            "model_bytes": {"|".join(k): v for k, v in sorted(modelled.items())},
            "bytes_match": measured == modelled}  # fmt: skip


def _shard_of(full_grad: torch.Tensor, layer) -> torch.Tensor:
    from workflow_scripts.disttrain.tensor3d.layer import shard_weight

    return shard_weight(full_grad, layer.groups, transposed=layer.transposed)


def time_steps(grid: Grid, rank: int, params: dict, chunks: int) -> dict:
    """float32 steps on the timing sizes: the slowest rank's seconds per step, and the collectives."""
    features, batch = params["timing_features"], params["timing_batch"]
    weights, x, loss_weights = make_problem(features, batch, params["seed"], torch.float32)
    groups, ledger, stack = distributed_stack(grid, rank, weights, chunks)
    times = timed_steps(functools.partial(run_step, stack, groups, ledger, x, loss_weights, batch), stack, ledger,
                        warmup_steps=params["warmup_steps"], timing_steps=params["timing_steps"])  # fmt: skip
    records = [{"op": r.op, "group_size": r.group_size, "message_bytes": r.message_bytes, "seconds": r.seconds}
               for r in ledger.records()]  # fmt: skip
    return step_time_stats(times) | {"step_times_s": times, "collectives": records}


def matmul_flops_per_s(params: dict) -> float:
    """This rank's float32 GEMM rate at the timing sizes (the compute term of the model)."""
    features, batch = params["timing_features"], params["timing_batch"]
    a, b = torch.randn(batch, max(features)), torch.randn(max(features), max(features))
    a @ b
    start = time.perf_counter()
    repeats = 20
    for _ in range(repeats):
        a @ b
    return repeats * 2.0 * batch * max(features) ** 2 / (time.perf_counter() - start)


def validate(params: dict, world: int, rank: int) -> dict:
    """The run on this rank; worker_main writes rank 0's result."""
    grids = [Grid(rows=r, cols=c, depth=d, data=e) for r, c, d, e in factorizations(world, 4)]
    results = []
    progress = Progress("decompositions and overlap points", total=len(grids) + len(params["overlap_chunks"]),
                        unit="point", logger=logger, enabled=rank == 0)  # fmt: skip
    for grid in grids:
        for features, batch in ((params["features"], params["batch"]),
                                (params["timing_features"], params["timing_batch"])):  # fmt: skip
            check_grid(grid, world, batch=batch, in_features=min(features), out_features=max(features),
                       chunks=params["chunks"])  # fmt: skip
        entry = {"grid": grid.label(), "dims": [grid.rows, grid.cols, grid.depth, grid.data],
                 "megatron": grid.is_megatron()}  # fmt: skip
        entry["check_chunks_1"] = check_against_serial(grid, rank, params, chunks=1)
        entry["check_chunks_n"] = check_against_serial(grid, rank, params, chunks=params["chunks"])
        entry["timing"] = time_steps(grid, rank, params, chunks=1)
        results.append(entry)
        if rank == 0:
            logger.info("%s: errors %s, bytes match %s, step %.4f s", grid.label(),
                        entry["check_chunks_n"]["errors"], entry["check_chunks_n"]["bytes_match"],
                        entry["timing"]["step_time_s_median"])  # fmt: skip
        progress.advance()
    overlap_grid = Grid(**dict(zip(("rows", "cols", "depth", "data"), params["overlap_grid"], strict=True)))
    overlap = []
    for chunks in params["overlap_chunks"]:
        timing = time_steps(overlap_grid, rank, params, chunks=chunks)
        overlap.append({"chunks": chunks, "step_time_s_median": timing["step_time_s_median"],
                        "step_time_s_min": timing["step_time_s_min"], "step_time_s_max": timing["step_time_s_max"]})
        progress.advance()
    progress.finish()
    flops = torch.tensor([matmul_flops_per_s(params)], dtype=torch.float64)
    dist.all_reduce(flops, op=dist.ReduceOp.MIN)  # bookkeeping, outside the ledger
    return {"world_size": world, "params": params, "decompositions": results, "matmul_flops_per_s": float(flops),
            "overlap": {"grid": overlap_grid.label(), "points": overlap}}  # fmt: skip


def main(params_path: str, out_path: str) -> None:
    worker_main(params_path, out_path, validate)


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("LOGLEVEL", "INFO"), format="%(asctime)s rank%(process)d %(message)s")
    main(sys.argv[1], sys.argv[2])
