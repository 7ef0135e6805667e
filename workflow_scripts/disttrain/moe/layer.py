"""A mixture-of-experts block with tensor-expert-data (TED) parallelism on torch.distributed.

World = G_tensor x G_expert x G_expert_data ranks, rank = (ed * G_expert + e) * G_tensor + t:
  - tensor groups (contiguous ranks) shard the non-expert FFN (Megatron column/row parallel) and every
    expert (its first matrix by rows, its second by columns);
  - expert groups (same t and ed) hold the E experts, E / G_expert each, and exchange tokens by all-to-all;
  - expert-data groups (same t and e) replicate experts; the non-expert part is replicated over
    G_expert x G_expert_data (its data-parallel group). Tokens differ between data-parallel ranks and are
    identical within a tensor group.

Block: h = x + DenseTP(x); plan = gate(h); buffers = dispatch(h) (E, C, h) -> all-to-all -> experts (TP)
-> all-to-all -> y = h + combine(...).

Optimisations (each can be switched off; outputs and gradients do not change):
  - duplicate token dropping (DTD): the tensor ranks hold the same buffers, so rank t sends only slots
    [t C / G_t, (t+1) C / G_t) through each all-to-all and an all-gather in the tensor group rebuilds them:
    all-to-all bytes / G_t;
  - communication-aware checkpointing: the block is recomputed in backward (activation checkpointing), but
    the all-to-all outputs of the first forward are kept and replayed, so the recompute does not repeat the
    all-to-alls: 6 -> 4 all-to-alls per step.
"""

from __future__ import annotations

import dataclasses
import logging

import torch
import torch.distributed as dist

from workflow_scripts.disttrain.comm import CommLedger
from workflow_scripts.disttrain.moe.gating import combine, dispatch, expert_capacity, top_k_gating

logger = logging.getLogger(__name__)

TAG_A2A_DISPATCH = "moe.a2a.dispatch"
TAG_A2A_COMBINE = "moe.a2a.combine"
TAG_A2A_DISPATCH_BWD = "moe.a2a.dispatch.bwd"
TAG_A2A_COMBINE_BWD = "moe.a2a.combine.bwd"
TAG_TP_GATHER = "moe.tp.dtd_gather"
TAG_TP_GATHER_BWD = "moe.tp.dtd_gather.bwd"
TAG_TP_REDUCE = "moe.tp.reduce"
TAG_TP_REDUCE_BWD = "moe.tp.reduce.bwd"
TAG_DP_DENSE = "moe.dp.dense_grad"
TAG_DP_EXPERT = "moe.dp.expert_grad"


@dataclasses.dataclass(frozen=True, kw_only=True)
class MoEShape:
    hidden: int  # h
    dense_ffn: int  # hidden size of the non-expert FFN
    expert_ffn: int  # hidden size of each expert's FFN
    experts: int  # E
    top_k: int  # 1 or 2
    capacity_factor: float
    tokens: int  # tokens per data-parallel rank (identical within a tensor group)


class TEDGroups:
    """This rank's tensor, expert, expert-data and dense-data groups (None for a group of one)."""

    def __init__(self, world: int, rank: int, *, tensor: int, expert: int):
        if world % (tensor * expert):
            raise ValueError(f"world size {world} is not divisible by G_tensor={tensor} x G_expert={expert}; "
                             f"pick factors whose product divides {world}")  # fmt: skip
        self.world, self.rank = world, rank
        self.tensor, self.expert = tensor, expert
        self.expert_data = world // (tensor * expert)
        self.t = rank % tensor
        self.e = (rank // tensor) % expert
        self.ed = rank // (tensor * expert)

        def rank_of(t, e, ed):
            return (ed * expert + e) * tensor + t

        layouts = {
            "tensor": [[rank_of(t, e, ed) for t in range(tensor)] for ed in range(self.expert_data)
                       for e in range(expert)],
            "expert": [[rank_of(t, e, ed) for e in range(expert)] for ed in range(self.expert_data)
                       for t in range(tensor)],
            "expert_data": [[rank_of(t, e, ed) for ed in range(self.expert_data)] for e in range(expert)
                            for t in range(tensor)],
            "dense_data": [[rank_of(t, e, ed) for ed in range(self.expert_data) for e in range(expert)]
                           for t in range(tensor)],
        }  # fmt: skip
        self.group_ranks = {}
        self.groups: dict[str, dist.ProcessGroup | None] = {}
        for name, groups in layouts.items():
            for ranks in groups:  # every rank creates every group, in the same order
                handle = dist.new_group(ranks) if len(ranks) > 1 else None
                if rank in ranks:
                    self.groups[name], self.group_ranks[name] = handle, ranks

    @property
    def data_index(self) -> int:
        """Which data-parallel shard of the tokens this rank holds (its dense-data group rank)."""
        return self.ed * self.expert + self.e

    @property
    def data_parallel(self) -> int:
        return self.expert * self.expert_data


class A2ACache:
    """All-to-all outputs kept from the first forward and replayed by the recompute (comm-aware checkpointing)."""

    def __init__(self):
        self.mode: str | None = None  # None, "record" or "replay"
        self.outputs: list[torch.Tensor] = []


class _AllToAll(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group, ledger, tag, bwd_tag, cache):
        ctx.group, ctx.ledger, ctx.bwd_tag = group, ledger, bwd_tag
        if cache is not None and cache.mode == "replay":
            return cache.outputs.pop(0)
        x = x.contiguous()
        out = torch.empty_like(x)
        ledger.all_to_all_single(out, x, group=group, tag=tag)
        if cache is not None and cache.mode == "record":
            cache.outputs.append(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous()
        out = torch.empty_like(grad)
        # Equal splits on dim 0: the inverse permutation is the same all-to-all.
        ctx.ledger.all_to_all_single(out, grad, group=ctx.group, tag=ctx.bwd_tag)
        return out, None, None, None, None, None


def _gather_dim(x, group, size, dim, ledger, tag):
    """All-gather `x` over `group` and concatenate along `dim` (rank order)."""
    x = x.contiguous()
    out = torch.empty((size * x.shape[0], *x.shape[1:]), dtype=x.dtype)  # gloo wants dim 0 stacked
    ledger.all_gather_into_tensor(out, x, group=group, tag=tag)
    return torch.cat(out.view(size, *x.shape).unbind(0), dim=dim)


class _SplitToTensorRank(torch.autograd.Function):
    """Forward: keep this tensor rank's slice along `dim` (duplicates dropped); backward: all-gather."""

    @staticmethod
    def forward(ctx, x, groups, ledger, dim):
        ctx.groups, ctx.ledger, ctx.dim = groups, ledger, dim
        return x.chunk(groups.tensor, dim=dim)[groups.t].contiguous()

    @staticmethod
    def backward(ctx, grad):
        g = ctx.groups
        return _gather_dim(grad, g.groups["tensor"], g.tensor, ctx.dim, ctx.ledger, TAG_TP_GATHER_BWD), None, None, None


class _GatherFromTensorRanks(torch.autograd.Function):
    """Forward: all-gather the slices along `dim`; backward: the gradient is replicated, keep this slice."""

    @staticmethod
    def forward(ctx, x, groups, ledger, dim):
        ctx.groups, ctx.dim = groups, dim
        return _gather_dim(x, groups.groups["tensor"], groups.tensor, dim, ledger, TAG_TP_GATHER)

    @staticmethod
    def backward(ctx, grad):
        return grad.chunk(ctx.groups.tensor, dim=ctx.dim)[ctx.groups.t].contiguous(), None, None, None


class _CopyToTensorRanks(torch.autograd.Function):
    """Megatron's f: identity forward, all-reduce of the input gradient backward."""

    @staticmethod
    def forward(ctx, x, group, ledger):
        ctx.group, ctx.ledger = group, ledger
        return x

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous().clone()
        ctx.ledger.all_reduce(grad, group=ctx.group, tag=TAG_TP_REDUCE_BWD)
        return grad, None, None


class _ReduceFromTensorRanks(torch.autograd.Function):
    """Megatron's g: all-reduce of partial sums forward, identity backward."""

    @staticmethod
    def forward(ctx, x, group, ledger):
        x = x.contiguous().clone()
        ledger.all_reduce(x, group=group, tag=TAG_TP_REDUCE)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None


def full_weights(shape: MoEShape, seed: int, dtype=torch.float64) -> dict[str, torch.Tensor]:
    """The unsharded weights, the same on every rank (and in the serial reference)."""
    gen = torch.Generator().manual_seed(seed)
    h, fd, fe, e = shape.hidden, shape.dense_ffn, shape.expert_ffn, shape.experts

    def init(*size, fan_in):
        return torch.randn(*size, generator=gen, dtype=dtype) / fan_in**0.5

    return {"dense_w1": init(fd, h, fan_in=h), "dense_w2": init(h, fd, fan_in=fd), "router": init(e, h, fan_in=h),
            "expert_w1": init(e, fe, h, fan_in=h), "expert_w2": init(e, h, fe, fan_in=fe)}  # fmt: skip


def _gelu(x):
    return torch.nn.functional.gelu(x)


def serial_block(weights: dict[str, torch.Tensor], x: torch.Tensor, shape: MoEShape, capacity: int) -> torch.Tensor:
    """The block on one process with every expert: the reference for one data-parallel shard of tokens."""
    h = x + _gelu(x @ weights["dense_w1"].t()) @ weights["dense_w2"].t()
    plan = top_k_gating(h @ weights["router"].t(), k=shape.top_k, capacity=capacity)
    buffers = dispatch(h, plan)  # (E, C, h)
    hidden = _gelu(torch.bmm(buffers, weights["expert_w1"].transpose(1, 2)))
    out = torch.bmm(hidden, weights["expert_w2"].transpose(1, 2))
    return h + combine(out, plan, num_tokens=x.shape[0])


class TEDMoEBlock(torch.nn.Module):
    def __init__(self, shape: MoEShape, weights: dict[str, torch.Tensor], groups: TEDGroups, ledger: CommLedger, *,
                 drop_duplicates: bool, comm_aware_checkpoint: bool, checkpoint: bool):  # fmt: skip
        super().__init__()
        g = groups
        for name, size in (("dense_ffn", shape.dense_ffn), ("expert_ffn", shape.expert_ffn)):
            if size % g.tensor:
                raise ValueError(f"moe.{name}={size} is not divisible by G_tensor={g.tensor}")
        if shape.experts % g.expert:
            raise ValueError(f"moe.experts={shape.experts} is not divisible by G_expert={g.expert}")
        self.shape, self.groups, self.ledger = shape, g, ledger
        self.drop_duplicates, self.checkpoint = drop_duplicates, checkpoint
        self.comm_aware_checkpoint = comm_aware_checkpoint
        self.capacity = expert_capacity(shape.tokens, shape.experts, shape.top_k, shape.capacity_factor,
                                        multiple_of=g.tensor)  # fmt: skip
        self.local_experts = shape.experts // g.expert
        self.cache = A2ACache() if (checkpoint and comm_aware_checkpoint) else None
        fd, fe = shape.dense_ffn // g.tensor, shape.expert_ffn // g.tensor
        experts = slice(g.e * self.local_experts, (g.e + 1) * self.local_experts)
        self.dense_w1 = torch.nn.Parameter(weights["dense_w1"][g.t * fd:(g.t + 1) * fd].clone())
        self.dense_w2 = torch.nn.Parameter(weights["dense_w2"][:, g.t * fd:(g.t + 1) * fd].clone())
        self.router = torch.nn.Parameter(weights["router"].clone())
        self.expert_w1 = torch.nn.Parameter(weights["expert_w1"][experts, g.t * fe:(g.t + 1) * fe].clone())
        self.expert_w2 = torch.nn.Parameter(weights["expert_w2"][experts, :, g.t * fe:(g.t + 1) * fe].clone())

    # The parameters each data-parallel all-reduce covers.
    def dense_parameters(self):
        return [self.dense_w1, self.dense_w2, self.router]

    def expert_parameters(self):
        return [self.expert_w1, self.expert_w2]

    def _tp_copy(self, x):
        return _CopyToTensorRanks.apply(x, self.groups.groups["tensor"], self.ledger) if self.groups.tensor > 1 else x

    def _tp_reduce(self, x):
        return _ReduceFromTensorRanks.apply(x, self.groups.groups["tensor"], self.ledger) if self.groups.tensor > 1 else x

    def _exchange(self, x, tag, bwd_tag):
        """(G_e, E_loc, C, h) -> all-to-all over the expert group (with DTD: 1/G_t of the slots, then gather)."""
        g = self.groups
        if g.expert == 1:
            return x
        if self.drop_duplicates and g.tensor > 1:
            mine = _SplitToTensorRank.apply(x, g, self.ledger, 2)
            moved = _AllToAll.apply(mine, g.groups["expert"], self.ledger, tag, bwd_tag, self.cache)
            return _GatherFromTensorRanks.apply(moved, g, self.ledger, 2)
        return _AllToAll.apply(x, g.groups["expert"], self.ledger, tag, bwd_tag, self.cache)

    def _inner(self, x):
        s, g = self.shape, self.groups
        # Non-expert part, Megatron tensor parallel: column-parallel w1, row-parallel w2.
        h = x + self._tp_reduce(_gelu(self._tp_copy(x) @ self.dense_w1.t()) @ self.dense_w2.t())
        plan = top_k_gating(h @ self.router.t(), k=s.top_k, capacity=self.capacity)
        buffers = dispatch(h, plan).view(g.expert, self.local_experts, self.capacity, s.hidden)
        received = self._exchange(buffers, TAG_A2A_DISPATCH, TAG_A2A_DISPATCH_BWD)  # (G_e, E_loc, C, h)
        tokens = self._tp_copy(received).transpose(0, 1).reshape(self.local_experts, -1, s.hidden)
        hidden = _gelu(torch.bmm(tokens, self.expert_w1.transpose(1, 2)))  # (E_loc, G_e C, f / G_t)
        partial = torch.bmm(hidden, self.expert_w2.transpose(1, 2))  # (E_loc, G_e C, h), partial over f
        out = self._tp_reduce(partial.view(self.local_experts, g.expert, self.capacity, s.hidden).transpose(0, 1))
        returned = self._exchange(out, TAG_A2A_COMBINE, TAG_A2A_COMBINE_BWD)  # (E / G_e ... ) = (E, C, h)
        return h + combine(returned.reshape(s.experts, self.capacity, s.hidden), plan, num_tokens=x.shape[0])

    def forward(self, x):
        if not self.checkpoint:
            return self._inner(x)
        return _Checkpointed.apply(self, x, *self.parameters())


class _Checkpointed(torch.autograd.Function):
    """Activation checkpointing of the whole block: forward without saving activations, recompute in
    backward. With the A2A cache the first forward records the all-to-all outputs and the recompute
    replays them instead of communicating again."""

    @staticmethod
    def forward(ctx, block, x, *params):
        ctx.block = block
        ctx.save_for_backward(x)
        if block.cache is not None:
            block.cache.mode, block.cache.outputs = "record", []
        try:
            with torch.no_grad():
                return block._inner(x)
        finally:
            if block.cache is not None:
                block.cache.mode = None

    @staticmethod
    def backward(ctx, grad):
        block = ctx.block
        (x,) = ctx.saved_tensors
        x = x.detach().requires_grad_(True)
        if block.cache is not None:
            block.cache.mode = "replay"
        try:
            with torch.enable_grad():
                y = block._inner(x)
        finally:
            if block.cache is not None:
                block.cache.mode, block.cache.outputs = None, []
        params = list(block.parameters())
        grads = torch.autograd.grad(y, [x, *params], grad, allow_unused=True)
        return (None, *grads)


def sync_data_parallel(block: TEDMoEBlock, ledger: CommLedger) -> None:
    """Sum gradients over the data-parallel groups: dense parameters over G_expert x G_expert_data,
    expert parameters over G_expert_data."""
    g = block.groups
    for params, group, tag in ((block.dense_parameters(), g.groups["dense_data"], TAG_DP_DENSE),
                               (block.expert_parameters(), g.groups["expert_data"], TAG_DP_EXPERT)):  # fmt: skip
        if group is None:
            continue
        for p in params:
            if p.grad is not None:
                ledger.all_reduce(p.grad, group=group, tag=tag)
