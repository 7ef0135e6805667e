"""The TED MoE communication and memory model: exact per-step counts at small scale (validated against
the ledger), and the projection to the paper's 40B MoE on 128 V100s.

Counts per rank for one step of one block (tokens T per data-parallel rank, hidden h, E experts, capacity C
per expert, G_t tensor x G_e expert x G_ed expert-data ranks; with C a multiple of G_t):
  all-to-all: E C h elements per call (without duplicate token dropping), E C h / G_t with it; dispatch and
      combine in forward, their two transposes in backward (4 calls), plus the 2 forward ones again when
      the checkpointed block is recomputed without keeping the all-to-all outputs (6 calls);
  DTD all-gathers in the tensor group: E C h elements (output) each, one per all-to-all in forward and
      one per all-to-all in backward (the transpose of the slice);
  tensor-parallel all-reduces: dense FFN T h and experts E C h, forward (again in a recompute) and the
      two input-gradient ones in backward;
  data-parallel all-reduces: dense + router gradients over G_e x G_ed, expert gradients over G_ed.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from workflow_scripts.disttrain.moe.gating import expert_capacity
from workflow_scripts.disttrain.moe.layer import (
    TAG_A2A_COMBINE,
    TAG_A2A_COMBINE_BWD,
    TAG_A2A_DISPATCH,
    TAG_A2A_DISPATCH_BWD,
    TAG_DP_DENSE,
    TAG_DP_EXPERT,
    TAG_TP_GATHER,
    TAG_TP_GATHER_BWD,
    TAG_TP_REDUCE,
    TAG_TP_REDUCE_BWD,
    MoEShape,
)
from workflow_scripts.disttrain.netmodel import slowest_group

logger = logging.getLogger(__name__)


def block_counts(shape: MoEShape, *, tensor: int, expert: int, expert_data: int, drop_duplicates: bool,
                 checkpoint: bool, comm_aware_checkpoint: bool,
                 dtype_bytes: int) -> dict[tuple[str, str], dict[str, int]]:  # fmt: skip
    """Calls and message bytes per (op, tag) for one step of the block: the ledger's `totals()` keys."""
    capacity = expert_capacity(shape.tokens, shape.experts, shape.top_k, shape.capacity_factor, multiple_of=tensor)
    slots = shape.experts * capacity * shape.hidden  # E C h
    dense_act = shape.tokens * shape.hidden
    recompute = 1 if checkpoint else 0  # forward passes repeated in backward
    a2a_replayed = checkpoint and comm_aware_checkpoint
    out: dict[tuple[str, str], dict[str, int]] = {}

    def add(op, tag, calls, elems):
        if calls:
            entry = out.setdefault((op, tag), {"calls": 0, "message_bytes": 0})
            entry["calls"] += calls
            entry["message_bytes"] += calls * elems * dtype_bytes

    if expert > 1:
        dtd = drop_duplicates and tensor > 1
        per_call = slots // tensor if dtd else slots
        fwd_a2a = 1 + (recompute if not a2a_replayed else 0)
        for fwd_tag, bwd_tag in ((TAG_A2A_DISPATCH, TAG_A2A_DISPATCH_BWD), (TAG_A2A_COMBINE, TAG_A2A_COMBINE_BWD)):
            add("all_to_all_single", fwd_tag, fwd_a2a, per_call)
            add("all_to_all_single", bwd_tag, 1, per_call)
        if dtd:
            add("all_gather_into_tensor", TAG_TP_GATHER, 2 * (1 + recompute), slots)
            add("all_gather_into_tensor", TAG_TP_GATHER_BWD, 2, slots)
    if tensor > 1:
        for elems in (dense_act, slots):
            add("all_reduce", TAG_TP_REDUCE, 1 + recompute, elems)
            add("all_reduce", TAG_TP_REDUCE_BWD, 1, elems)
    dense_params = (2 * shape.dense_ffn * shape.hidden) // tensor + shape.experts * shape.hidden
    expert_params = 2 * (shape.experts // expert) * shape.expert_ffn * shape.hidden // tensor
    # One all-reduce per gradient tensor: dense w1, w2 and the router; expert w1 and w2.
    if expert * expert_data > 1:
        out[("all_reduce", TAG_DP_DENSE)] = {"calls": 3, "message_bytes": dense_params * dtype_bytes}
    if expert_data > 1:
        out[("all_reduce", TAG_DP_EXPERT)] = {"calls": 2, "message_bytes": expert_params * dtype_bytes}
    return out


# --- projection to the paper's scale ------------------------------------------------------------------------
CostFn = Callable[[str, float, list[int]], float]  # (op, message_bytes, group_ranks) -> seconds


@dataclasses.dataclass(frozen=True, kw_only=True)
class MoEModel:
    """A GPT-style base model with an MoE FFN in every `moe_every`-th layer."""

    layers: int
    hidden: int
    seq_len: int
    vocab: int
    experts: int
    moe_every: int
    top_k: int
    capacity_factor: float

    @property
    def moe_layers(self) -> int:
        return self.layers // self.moe_every

    def base_params(self) -> float:
        """The dense (base) model: 12 h^2 per layer plus the embeddings."""
        return 12.0 * self.layers * self.hidden**2 + self.vocab * self.hidden

    def expert_params(self) -> float:
        """Extra parameters the experts add: (E - 1) more FFNs of 8 h^2 in each MoE layer."""
        return self.moe_layers * (self.experts - 1) * 8.0 * self.hidden**2

    def total_params(self) -> float:
        return self.base_params() + self.expert_params()


@dataclasses.dataclass(frozen=True, kw_only=True)
class Layout:
    tensor: int
    expert: int
    expert_data: int

    @property
    def size(self) -> int:
        return self.tensor * self.expert * self.expert_data

    def rank(self, t: int, e: int, ed: int) -> int:
        return (ed * self.expert + e) * self.tensor + t

    def groups(self, kind: str) -> list[list[int]]:
        t_, e_, d_ = range(self.tensor), range(self.expert), range(self.expert_data)
        if kind == "tensor":
            return [[self.rank(t, e, d) for t in t_] for d in d_ for e in e_]
        if kind == "expert":
            return [[self.rank(t, e, d) for e in e_] for d in d_ for t in t_]
        if kind == "expert_data":
            return [[self.rank(t, e, d) for d in d_] for e in e_ for t in t_]
        if kind == "dense_data":
            return [[self.rank(t, e, d) for d in d_ for e in e_] for t in t_]
        raise ValueError(f"unknown group kind {kind!r}")


def step_time_s(model: MoEModel, layout: Layout, *, global_batch_tokens: int, drop_duplicates: bool,
                comm_aware_checkpoint: bool, flops_per_s: float, cost: CostFn, devices_per_node: int,
                dtype_bytes: int = 2, data_allreduce_overlap: float = 0.0) -> dict[str, float]:  # fmt: skip
    """One step with activation checkpointing of every layer, priced by parts. Nothing overlaps compute except
    `data_allreduce_overlap` of the data-parallel gradient all-reduces (0: none, the conservative choice), which
    bucketed all-reduces can hide behind the backward pass; its hidden time is `data_allreduce_hidden_s`."""
    if not 0 <= data_allreduce_overlap <= 1:
        raise ValueError(f"data_allreduce_overlap must be in [0, 1], got {data_allreduce_overlap}")
    dp = layout.expert * layout.expert_data  # data parallelism of the non-expert part
    tokens = global_batch_tokens // dp  # per data-parallel rank (shared by its tensor group)
    h, t = model.hidden, layout.tensor
    # Compute: forward, recompute, backward (2x forward) = 4 forward passes; 2 flops per multiply-add.
    dense_flops = 2 * tokens * (12 * h * h * model.layers - 8 * h * h * model.moe_layers) / t
    expert_flops = 2 * tokens * model.top_k * model.capacity_factor * 8 * h * h * model.moe_layers / t
    attention_flops = 2 * 2 * tokens * model.seq_len * h * model.layers / t
    compute_s = 4 * (dense_flops + expert_flops + attention_flops) / flops_per_s
    groups = {k: slowest_group(layout.groups(k), devices_per_node) for k in ("tensor", "expert", "expert_data",
                                                                                "dense_data")}  # fmt: skip
    slots = model.top_k * model.capacity_factor * tokens * h  # E C h
    parts = {"all_to_all_s": 0.0, "dtd_gather_s": 0.0, "tensor_allreduce_s": 0.0, "data_allreduce_s": 0.0}
    if layout.expert > 1:
        dtd = drop_duplicates and t > 1
        a2a_calls = 4 if comm_aware_checkpoint else 6
        per_call = slots / t if dtd else slots
        parts["all_to_all_s"] = model.moe_layers * a2a_calls * cost("all_to_all_single", per_call * dtype_bytes,
                                                                    groups["expert"])  # fmt: skip
        if dtd:
            # One gather per all-to-all of forward, recompute and backward (6), whichever checkpointing.
            parts["dtd_gather_s"] = model.moe_layers * 6 * cost("all_gather_into_tensor", slots * dtype_bytes,
                                                                groups["tensor"])  # fmt: skip
    if t > 1:
        # Megatron: 2 all-reduces of T h in forward (attention, FFN), 2 again in the recompute, 2 in backward.
        per_layer = 6 * cost("all_reduce", tokens * h * dtype_bytes, groups["tensor"])
        expert_extra = 3 * (cost("all_reduce", slots * dtype_bytes, groups["tensor"])
                            - cost("all_reduce", tokens * h * dtype_bytes, groups["tensor"]))  # fmt: skip
        parts["tensor_allreduce_s"] = model.layers * per_layer + model.moe_layers * expert_extra
    dense_grad = (model.base_params() - model.moe_layers * 8 * h * h) / t * dtype_bytes
    expert_grad = model.moe_layers * model.experts / layout.expert * 8 * h * h / t * dtype_bytes
    if dp > 1:
        parts["data_allreduce_s"] += cost("all_reduce", dense_grad, groups["dense_data"])
    if layout.expert_data > 1:
        parts["data_allreduce_s"] += cost("all_reduce", expert_grad, groups["expert_data"])
    comm_s = sum(parts.values())
    hidden_s = data_allreduce_overlap * parts["data_allreduce_s"]
    return {"time_s": compute_s + comm_s - hidden_s, "compute_s": compute_s, "comm_s": comm_s, **parts,
            "data_allreduce_hidden_s": hidden_s}  # fmt: skip


def memory_bytes(model: MoEModel, layout: Layout, *, micro_batch_tokens: int, tiled_optimizer: bool,
                 tile_elems: int, nonexpert_tensor_parallel: bool) -> dict[str, float]:  # fmt: skip
    """Per-GPU bytes: fp16 weights and gradients (4 B/param), fp32 master and Adam moments (12 B/param)
    sharded over the data-parallel group (ZeRO-1), activations of one micro-batch with checkpointing (every
    layer's input, plus one layer's recompute working set of about 16 h values per token, split over the
    tensor group), and the optimizer step's fp32 transient (three temporaries of the whole local partition,
    or of one tile). `nonexpert_tensor_parallel=False` is the DeepSpeed-MoE layout: the non-expert part
    replicated on every GPU (data parallel only)."""
    h = model.hidden
    t_ne = layout.tensor if nonexpert_tensor_parallel else 1
    dp_ne = layout.size // t_ne  # every GPU outside the non-expert part's tensor group is a data replica
    nonexpert = model.base_params() - model.moe_layers * 8 * h * h
    experts = model.moe_layers * model.experts * 8 * h * h
    ne_local = nonexpert / t_ne
    ex_local = experts / (layout.expert * layout.tensor)
    states = ne_local * (4 + 12 / dp_ne) + ex_local * (4 + 12 / layout.expert_data)
    activations = model.layers * micro_batch_tokens * h * 2 + micro_batch_tokens * 16 * h * 2 / t_ne
    partition = ne_local / dp_ne + ex_local / layout.expert_data
    transient = 3 * 4 * (min(tile_elems, partition) if tiled_optimizer else partition)
    return {"states_bytes": states, "activations_bytes": activations, "optimizer_transient_bytes": transient,
            "total_bytes": states + activations + transient}  # fmt: skip


def largest_fitting(ladder: list[MoEModel], layouts: list[Layout], *, micro_batch_tokens: int,
                    memory_limit_bytes: float, ted: bool, tile_elems: int) -> tuple[MoEModel | None, Layout | None]:  # fmt: skip
    """The largest base model of `ladder` that fits some layout (TED: tensor-parallel non-expert part and
    tiled optimizer step; DeepSpeed-MoE style: G_t = 1, replicated non-expert part, untiled step)."""
    best = (None, None)
    for model in sorted(ladder, key=lambda m: m.base_params()):
        for layout in layouts:
            if not ted and layout.tensor != 1:
                continue
            if model.experts % layout.expert:
                continue
            mem = memory_bytes(model, layout, micro_batch_tokens=micro_batch_tokens, tiled_optimizer=ted,
                               tile_elems=tile_elems, nonexpert_tensor_parallel=ted)  # fmt: skip
            if mem["total_bytes"] <= memory_limit_bytes:
                best = (model, layout)
                break
    return best


def layouts_for(world: int, experts: int, max_tensor: int) -> list[Layout]:
    out = []
    for t in range(1, max_tensor + 1):
        for e in range(1, experts + 1):
            if world % (t * e) == 0 and experts % e == 0:
                out.append(Layout(tensor=t, expert=e, expert_data=world // (t * e)))
    return out

