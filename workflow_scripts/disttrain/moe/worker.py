"""The TED MoE validation run, one process per rank (started by torchrun; see validate.py).

  1. float64: the block with each optimisation switched on and off (duplicate token dropping, plain and
     communication-aware checkpointing) against the plain block and against a serial reference:
     outputs, input gradients and every parameter gradient (max abs difference);
  2. the ledger's all-to-all calls and bytes per step for each variant (and all other collectives), and
     the memory ledger's activation bytes kept between forward and backward;
  3. float32 step times per variant (the slowest rank's time; median, min, max);
  4. the tiled mixed-precision optimizer: measured peak transient memory per tile size, and whether
     every tile size gives the same parameters.
Rank 0 writes one JSON file.

    MALLOC_MMAP_THRESHOLD_=65536 torchrun --standalone --nproc-per-node 4 \
        -m workflow_scripts.disttrain.moe.worker params.json out.json
"""

from __future__ import annotations

import functools
import logging
import os
import sys

import torch

from workflow_scripts.common import Progress
from workflow_scripts.disttrain.comm import CommLedger
from workflow_scripts.disttrain.layer_worker import step_time_stats, timed_steps, worker_main
from workflow_scripts.disttrain.memory import MemoryLedger
from workflow_scripts.disttrain.moe.layer import (
    MoEShape,
    TEDGroups,
    TEDMoEBlock,
    full_weights,
    serial_block,
    sync_data_parallel,
)
from workflow_scripts.disttrain.moe.optimizer import TiledMixedPrecisionAdam, peak_transient_bytes

logger = logging.getLogger(__name__)

# name -> (drop_duplicates, checkpoint, comm_aware_checkpoint)
VARIANTS = {
    "baseline": (False, False, False),
    "dtd": (True, False, False),
    "checkpoint": (False, True, False),
    "checkpoint_comm_aware": (False, True, True),
    "all": (True, True, True),
}
PARAM_NAMES = ("dense_w1", "dense_w2", "router", "expert_w1", "expert_w2")


def _shape(params: dict, prefix: str) -> MoEShape:
    s = params[prefix]
    return MoEShape(hidden=s["hidden"], dense_ffn=s["dense_ffn"], expert_ffn=s["expert_ffn"], experts=params["experts"],
                    top_k=params["top_k"], capacity_factor=params["capacity_factor"], tokens=s["tokens"])  # fmt: skip


def _inputs(shape: MoEShape, data_parallel: int, seed: int, dtype):
    gen = torch.Generator().manual_seed(seed + 1)
    x = torch.randn(data_parallel * shape.tokens, shape.hidden, generator=gen, dtype=dtype)
    loss_weights = torch.randn(data_parallel * shape.tokens, shape.hidden, generator=gen, dtype=dtype)
    return x, loss_weights


def run_step(block: TEDMoEBlock, groups: TEDGroups, ledger: CommLedger, x, loss_weights,
             memory: MemoryLedger | None = None):  # fmt: skip
    """Forward, backward of sum(y * L) on this rank's token shard, and the data-parallel gradient sum.
    With `memory`, the activations kept between forward and backward are measured (saved tensors, plus
    the all-to-all outputs that communication-aware checkpointing keeps outside autograd)."""
    rows = slice(groups.data_index * block.shape.tokens, (groups.data_index + 1) * block.shape.tokens)
    x_local = x[rows].clone().requires_grad_(True)
    if memory is None:
        y = block(x_local)
    else:
        with memory.track_activations(block):
            y = block(x_local)
        kept = block.cache.outputs if block.cache is not None else []
        memory.extra("kept_all_to_all_outputs", sum(t.numel() * t.element_size() for t in kept))
    y.backward(loss_weights[rows])
    sync_data_parallel(block, ledger)
    return y.detach(), x_local.grad


def serial_reference(shape: MoEShape, weights, groups: TEDGroups, capacity: int, x, loss_weights):
    """Every data-parallel shard through the serial block; gradients summed over shards."""
    w = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
    x = x.clone().requires_grad_(True)
    outputs = []
    for i in range(groups.data_parallel):
        rows = slice(i * shape.tokens, (i + 1) * shape.tokens)
        outputs.append(serial_block(w, x[rows], shape, capacity))
    y = torch.cat(outputs)
    y.backward(loss_weights)
    return y.detach(), x.grad, {k: v.grad for k, v in w.items()}


def local_view(block: TEDMoEBlock, name: str, full: torch.Tensor) -> torch.Tensor:
    """The slice of a full (serial) tensor that parameter `name` of this rank holds."""
    g = block.groups
    fd, fe = block.shape.dense_ffn // g.tensor, block.shape.expert_ffn // g.tensor
    experts = slice(g.e * block.local_experts, (g.e + 1) * block.local_experts)
    return {"dense_w1": lambda t: t[g.t * fd:(g.t + 1) * fd], "dense_w2": lambda t: t[:, g.t * fd:(g.t + 1) * fd],
            "router": lambda t: t, "expert_w1": lambda t: t[experts, g.t * fe:(g.t + 1) * fe],
            "expert_w2": lambda t: t[experts, :, g.t * fe:(g.t + 1) * fe]}[name](full)  # fmt: skip


def _max_diff(a: dict, b: dict) -> dict:
    return {k: float((a[k] - b[k]).abs().max()) for k in a}


def check_variants(params: dict, world: int, rank: int) -> dict:
    shape = _shape(params, "check")
    groups = TEDGroups(world, rank, tensor=params["tensor_parallel"], expert=params["expert_parallel"])
    weights = full_weights(shape, params["seed"])
    x, loss_weights = _inputs(shape, groups.data_parallel, params["seed"], torch.float64)
    results, local = {}, {}
    for name, (dtd, ckpt, comm_aware) in VARIANTS.items():
        ledger = CommLedger()
        block = TEDMoEBlock(shape, weights, groups, ledger, drop_duplicates=dtd, checkpoint=ckpt,
                            comm_aware_checkpoint=comm_aware)  # fmt: skip
        memory = MemoryLedger()
        y, gx = run_step(block, groups, ledger, x, loss_weights, memory=memory)
        tensors = {"output": y, "input_grad": gx} | {n: getattr(block, n).grad for n in PARAM_NAMES}
        local[name] = tensors
        a2a = [r for r in ledger.records() if r.op == "all_to_all_single"]
        results[name] = {
            "drop_duplicates": dtd, "checkpoint": ckpt, "comm_aware_checkpoint": comm_aware,
            "all_to_all_calls": len(a2a), "all_to_all_message_bytes": sum(r.message_bytes for r in a2a),
            "all_to_all_wire_bytes": sum(r.wire_bytes for r in a2a),
            "totals": {"|".join(k): {"calls": v["calls"], "message_bytes": v["message_bytes"]}
                       for k, v in sorted(ledger.totals().items())},
            "capacity": block.capacity,
            "activations_bytes": memory.bytes["activations"],
            "kept_all_to_all_bytes": memory.bytes["kept_all_to_all_outputs"],
        }  # fmt: skip
    # Against the plain block: each optimisation must leave outputs and gradients unchanged.
    for name in VARIANTS:
        diffs = _max_diff(local[name], local["baseline"])
        results[name]["max_abs_diff_vs_baseline"] = max(diffs.values())
        results[name]["bitwise_equal_to_baseline"] = all(torch.equal(local[name][k], local["baseline"][k])
                                                         for k in local[name])  # fmt: skip
    # Against the serial block (all experts on one process).
    block = TEDMoEBlock(shape, weights, groups, CommLedger(), drop_duplicates=False, checkpoint=False,
                        comm_aware_checkpoint=False)  # fmt: skip
    y_ref, gx_ref, grads_ref = serial_reference(shape, weights, groups, block.capacity, x, loss_weights)
    rows = slice(groups.data_index * shape.tokens, (groups.data_index + 1) * shape.tokens)
    ref = {"output": y_ref[rows], "input_grad": gx_ref[rows]} | {n: local_view(block, n, grads_ref[n]) for n in PARAM_NAMES}
    serial_diff = _max_diff(local["baseline"], ref)
    return {"variants": results, "serial_max_abs_diff": serial_diff, "capacity": block.capacity,
            "data_parallel": groups.data_parallel, "expert_data_parallel": groups.expert_data}  # fmt: skip


def time_variants(params: dict, world: int, rank: int, progress: Progress | None = None) -> dict:
    shape = _shape(params, "timing")
    groups = TEDGroups(world, rank, tensor=params["tensor_parallel"], expert=params["expert_parallel"])
    weights = full_weights(shape, params["seed"], dtype=torch.float32)
    x, loss_weights = _inputs(shape, groups.data_parallel, params["seed"], torch.float32)
    out = {}
    for name, (dtd, ckpt, comm_aware) in VARIANTS.items():
        ledger = CommLedger()
        block = TEDMoEBlock(shape, weights, groups, ledger, drop_duplicates=dtd, checkpoint=ckpt,
                            comm_aware_checkpoint=comm_aware)  # fmt: skip
        times = timed_steps(functools.partial(run_step, block, groups, ledger, x, loss_weights), block, ledger,
                            warmup_steps=params["warmup_steps"], timing_steps=params["timing_steps"])  # fmt: skip
        a2a_s = sum(r.seconds for r in ledger.records() if r.op == "all_to_all_single") / params["timing_steps"]
        out[name] = step_time_stats(times) | {"all_to_all_s_per_step": a2a_s}
        if progress is not None:
            progress.advance(note=f"timed {name}")
    return out


def optimizer_memory(params: dict) -> dict:
    """Peak transient memory of the mixed-precision step per tile size (this rank's partition)."""
    elems = params["optimizer_partition_elems"]
    gen = torch.Generator().manual_seed(params["seed"])
    rows = []
    reference = None
    for tile in [None, *params["optimizer_tiles"]]:
        p = torch.nn.Parameter((torch.randn(elems, generator=gen) * 0).add_(1.0).bfloat16())
        p.grad = torch.linspace(-1, 1, elems).bfloat16()
        opt = TiledMixedPrecisionAdam([p], lr=1e-3, tile_elems=tile)
        opt.step()  # the first step allocates nothing persistent that later steps lack; measure the second
        peak = peak_transient_bytes(opt.step)
        if reference is None:
            reference = p.detach().clone()
        rows.append({"tile_elems": tile or elems, "whole_partition": tile is None, "peak_transient_bytes": peak,
                     "fp32_tile_bytes": 4 * (tile or elems), "identical_to_untiled": torch.equal(p.detach(), reference)})
    return {"partition_elems": elems, "half_precision": "bfloat16", "points": rows}


def validate(params: dict, world: int, rank: int) -> dict:
    """The run on this rank; worker_main writes rank 0's result."""
    # Phases: the check of every variant, the timing of each variant, the optimizer's tiles.
    progress = Progress("MoE phases", total=len(VARIANTS) + 2, unit="phase", logger=logger, enabled=rank == 0)
    result = {"world_size": world, "params": params, "check": check_variants(params, world, rank)}
    progress.advance(note="checked every variant")
    if rank == 0:
        logger.info("checks: %s", {k: (v["all_to_all_calls"], v["max_abs_diff_vs_baseline"])
                                   for k, v in result["check"]["variants"].items()})  # fmt: skip
    result["timing"] = time_variants(params, world, rank, progress)
    result["optimizer"] = optimizer_memory(params)
    progress.advance()
    progress.finish()
    return result


def main(params_path: str, out_path: str) -> None:
    worker_main(params_path, out_path, validate)


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("LOGLEVEL", "INFO"), format="%(asctime)s %(message)s")
    main(sys.argv[1], sys.argv[2])
