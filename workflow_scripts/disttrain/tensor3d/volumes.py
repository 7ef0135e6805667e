"""The Tensor3D communication model: what each collective of a layer moves, what it costs, and which
decomposition of the devices is best.

For a layer Y = X W^T with W of n x k (out x in; a convolution has k x kernel_elems weights per output
channel and `positions` output pixels per sample) on a grid G_row x G_col x G_depth x G_data and a local
batch B' = B / (G_data G_depth), a normal-orientation layer moves, per rank (elements; x dtype bytes):

    forward   all-gather over depth       of the weight block      n k kernel / (G_row G_col)
              all-reduce over columns     of the partial output    B' positions n / G_row
    backward  all-reduce over rows        of the input gradient    B' positions k / G_col
              reduce-scatter over depth   of the weight gradient   n k kernel / (G_row G_col)
    after     all-reduce over data        of the gradient shard    n k kernel / (G_row G_col G_depth)

A transposed layer (the next one) swaps the roles of rows and columns, so consecutive layers need no
communication between them. Megatron-LM tensor parallelism is the special case G_col = G_depth = 1.
A collective over a group of one rank moves nothing and is not called. With overdecomposition into
`chunks`, the two activation all-reduces are issued once per chunk on 1/chunks of the rows (same total
bytes, `chunks` times the calls) so that each overlaps the next chunk's compute.

`layer_collectives` lists the calls (the same tags the layer passes to the ledger); `step_time_s`
prices them with an alpha-beta cost per group (placement-aware: `placement_cost` prices a collective by
the slowest group of that grid dimension, the one that spans the most nodes) and a two-stage pipeline for the overlapped parts; `enumerate_decompositions` ranks every
factorisation of the device count.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable

from workflow_scripts.disttrain.netmodel import slowest_group
from workflow_scripts.disttrain.tensor3d.grid import Grid, factorizations

logger = logging.getLogger(__name__)

# Tags shared by the layer (layer.py) and the model, so measured and modelled bytes match key by key.
TAG_WEIGHT_GATHER = "t3d.fwd.weight_gather"
TAG_OUTPUT_REDUCE = "t3d.fwd.output_reduce"
TAG_INPUT_GRAD_REDUCE = "t3d.bwd.input_grad_reduce"
TAG_WEIGHT_GRAD_SCATTER = "t3d.bwd.weight_grad_scatter"
TAG_DATA_GRAD_REDUCE = "t3d.dp.weight_grad_reduce"

CostFn = Callable[[str, float, Grid, str], float]  # (op, message_bytes, grid, dimension) -> seconds


@dataclasses.dataclass(frozen=True, kw_only=True)
class LayerShape:
    out_features: int  # n (output channels of a convolution)
    in_features: int  # k (input channels of a convolution)
    kernel_elems: int = 1  # weights per (out, in) pair: 1 for a linear layer, 9 for a 3x3 convolution
    positions: int = 1  # output rows per sample: 1 for a linear layer, H x W pixels for a convolution
    transposed: bool = False  # True: input features sharded over rows, output over columns

    @property
    def weight_elems(self) -> int:
        return self.out_features * self.in_features * self.kernel_elems

    def flops_per_sample(self) -> float:
        """Forward multiply-adds x 2 for one sample (backward is twice this)."""
        return 2.0 * self.weight_elems * self.positions


def alternating_stack(shapes: list[LayerShape]) -> list[LayerShape]:
    """Give consecutive layers alternating orientation (normal, transposed, normal, ...)."""
    return [dataclasses.replace(s, transposed=bool(i % 2)) for i, s in enumerate(shapes)]


def _groups(grid: Grid, transposed: bool) -> tuple[str, str]:
    """(the dimension that shards input features, the one that shards output features)."""
    return ("row", "col") if transposed else ("col", "row")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Collective:
    op: str  # ledger op name
    tag: str
    dim: str  # grid dimension the group spans
    group_size: int
    message_bytes: int  # summed over the `calls` calls
    calls: int
    phase: str  # "fwd_overlap", "fwd", "bwd_overlap", "bwd", "after"


def layer_collectives(shape: LayerShape, grid: Grid, *, batch: int, chunks: int = 1,
                      dtype_bytes: int = 4) -> list[Collective]:  # fmt: skip
    """Every collective one rank issues for one forward + backward (+ data-parallel sync) of a layer."""
    in_dim, out_dim = _groups(grid, shape.transposed)
    g_in, g_out = grid.dim_size(in_dim), grid.dim_size(out_dim)
    local_batch = batch // (grid.data * grid.depth)
    block = shape.weight_elems // (grid.rows * grid.cols)
    out = []

    def add(op, tag, dim, elems, calls, phase):
        p = grid.dim_size(dim)
        if p > 1:
            out.append(Collective(op=op, tag=tag, dim=dim, group_size=p, message_bytes=elems * dtype_bytes,
                                  calls=calls, phase=phase))  # fmt: skip

    add("all_gather_into_tensor", TAG_WEIGHT_GATHER, "depth", block, 1, "fwd")
    add("all_reduce", TAG_OUTPUT_REDUCE, in_dim,
        local_batch * shape.positions * shape.out_features // g_out, chunks, "fwd_overlap")  # fmt: skip
    add("all_reduce", TAG_INPUT_GRAD_REDUCE, out_dim,
        local_batch * shape.positions * shape.in_features // g_in, chunks, "bwd_overlap")  # fmt: skip
    add("reduce_scatter_tensor", TAG_WEIGHT_GRAD_SCATTER, "depth", block, 1, "bwd")
    add("all_reduce", TAG_DATA_GRAD_REDUCE, "data", block // grid.depth, 1, "after")
    return out


def model_bytes(shapes: list[LayerShape], grid: Grid, *, batch: int, chunks: int = 1,
                dtype_bytes: int = 4) -> dict[tuple[str, str], dict[str, int]]:  # fmt: skip
    """Calls and message bytes per (op, tag), summed over the layers: the ledger's `totals()` keys."""
    sums: dict[tuple[str, str], dict[str, int]] = {}
    for shape in shapes:
        for c in layer_collectives(shape, grid, batch=batch, chunks=chunks, dtype_bytes=dtype_bytes):
            entry = sums.setdefault((c.op, c.tag), {"calls": 0, "message_bytes": 0})
            entry["calls"] += c.calls
            entry["message_bytes"] += c.message_bytes
    return sums


def pipeline_time_s(compute_s: float, comm_per_chunk_s: float, chunks: int) -> float:
    """Two-stage pipeline of `chunks` pieces: compute of chunk i+1 overlaps the collective of chunk i."""
    compute_per_chunk_s = compute_s / chunks
    return compute_per_chunk_s + comm_per_chunk_s + (chunks - 1) * max(compute_per_chunk_s, comm_per_chunk_s)


@dataclasses.dataclass(frozen=True, kw_only=True)
class StepEstimate:
    grid: Grid
    time_s: float  # one forward + backward + gradient sync of the whole stack
    compute_s: float
    comm_s: float  # every collective priced on its own (no overlap)
    exposed_comm_s: float  # time_s - compute_s
    comm_bytes: int  # message bytes per rank, all layers
    memory_bytes: float


def step_time_s(shapes: list[LayerShape], grid: Grid, *, batch: int, chunks: int, dtype_bytes: int,
                flops_per_s: float, cost: CostFn, bytes_per_param: float = 0.0,
                activation_bytes: int | None = None, background_overlap: float = 0.0) -> StepEstimate:  # fmt: skip
    """Price one training step: compute from flop/s, collectives from `cost`, activation all-reduces
    overlapped with compute over `chunks`; the weight gather, weight-gradient reduce-scatter and the
    data-parallel all-reduce are exposed except for `background_overlap` of their time (0: all exposed, the
    conservative choice; the same fraction for every grid, Megatron's data all-reduce included)."""
    if not 0 <= background_overlap <= 1:
        raise ValueError(f"background_overlap must be in [0, 1], got {background_overlap}")
    local_batch = batch // (grid.data * grid.depth)
    total_s = compute_total_s = comm_total_s = 0.0
    comm_bytes = 0
    # Identical layers cost the same: price each distinct shape once and multiply by its count.
    for shape, count in Counter(shapes).items():
        # Each rank multiplies its B' rows by its block (1/(G_row G_col) of the weight).
        fwd_s = local_batch * shape.flops_per_sample() / (grid.rows * grid.cols) / flops_per_s
        bwd_dx_s = bwd_dw_s = fwd_s
        compute_total_s += count * (fwd_s + bwd_dx_s + bwd_dw_s)
        by_phase = {c.phase: c for c in layer_collectives(shape, grid, batch=batch, chunks=chunks,
                                                          dtype_bytes=dtype_bytes)}  # fmt: skip
        layer_s = bwd_dw_s
        for phase, compute_s in (("fwd_overlap", fwd_s), ("bwd_overlap", bwd_dx_s)):
            c = by_phase.get(phase)
            if c is None:
                layer_s += compute_s
                continue
            per_chunk_s = cost(c.op, c.message_bytes / c.calls, grid, c.dim)
            comm_total_s += count * per_chunk_s * c.calls
            layer_s += pipeline_time_s(compute_s, per_chunk_s, c.calls)
        for phase in ("fwd", "bwd", "after"):
            c = by_phase.get(phase)
            if c is not None:
                t = cost(c.op, c.message_bytes, grid, c.dim)
                comm_total_s += count * t
                layer_s += (1 - background_overlap) * t
        comm_bytes += count * sum(c.message_bytes for c in by_phase.values())
        total_s += count * layer_s
    memory = memory_bytes(shapes, grid, batch=batch, bytes_per_param=bytes_per_param,
                          activation_bytes=activation_bytes or dtype_bytes)  # fmt: skip
    return StepEstimate(grid=grid, time_s=total_s, compute_s=compute_total_s, comm_s=comm_total_s,
                        exposed_comm_s=total_s - compute_total_s, comm_bytes=comm_bytes,
                        memory_bytes=memory)  # fmt: skip


def placement_cost(net) -> CostFn:
    """A cost function over a NetworkModel: each collective is priced on the group of its grid dimension
    that spans the most nodes (all groups of a dimension run at once; the slowest sets the pace)."""
    slowest: dict[tuple[str, str], list[int]] = {}

    def cost(op: str, message_bytes: float, grid: Grid, dim: str) -> float:
        key = (grid.label(), dim)
        if key not in slowest:
            slowest[key] = slowest_group(grid.group_ranks(dim), net.devices_per_node)
        return net.time(op, message_bytes, slowest[key])

    return cost


def memory_bytes(shapes: list[LayerShape], grid: Grid, *, batch: int, bytes_per_param: float,
                 activation_bytes: int) -> float:  # fmt: skip
    """Per-rank memory: parameter state sharded over row x col x depth, the largest gathered weight
    block (transient), and every layer's input activations kept for backward."""
    shard = grid.rows * grid.cols * grid.depth
    local_batch = batch // (grid.data * grid.depth)
    params = sum(s.weight_elems for s in shapes) / shard * bytes_per_param
    gathered = max(s.weight_elems for s in shapes) / (grid.rows * grid.cols) * activation_bytes
    acts = 0.0
    for s in shapes:
        in_dim, _ = _groups(grid, s.transposed)
        acts += local_batch * s.positions * s.in_features / grid.dim_size(in_dim) * activation_bytes
    return params + gathered + acts


def fits(shapes: list[LayerShape], grid: Grid, *, batch: int, chunks: int) -> bool:
    """Whether every shard and batch split is whole (the same checks as grid.check_grid)."""
    if batch % (grid.data * grid.depth * chunks):
        return False
    for s in shapes:
        if s.in_features % grid.rows or s.in_features % grid.cols:
            return False
        if s.out_features % grid.rows or s.out_features % grid.cols:
            return False
        if (s.weight_elems // (grid.rows * grid.cols)) % grid.depth:
            return False
    return True


def enumerate_decompositions(shapes: list[LayerShape], world_size: int, *, batch: int, chunks: int,
                             dtype_bytes: int, flops_per_s: float, cost: CostFn, bytes_per_param: float = 0.0,
                             memory_limit_bytes: float | None = None,
                             background_overlap: float = 0.0) -> list[StepEstimate]:  # fmt: skip
    """Every factorisation of `world_size` into row x col x depth x data that fits the shapes (and the
    memory limit, if given), ranked by modelled step time (fastest first)."""
    estimates = []
    for rows, cols, depth, data in factorizations(world_size, 4):
        grid = Grid(rows=rows, cols=cols, depth=depth, data=data)
        if not fits(shapes, grid, batch=batch, chunks=chunks):
            continue
        est = step_time_s(shapes, grid, batch=batch, chunks=chunks, dtype_bytes=dtype_bytes,
                          flops_per_s=flops_per_s, cost=cost, bytes_per_param=bytes_per_param,
                          background_overlap=background_overlap)  # fmt: skip
        if memory_limit_bytes is not None and est.memory_bytes > memory_limit_bytes:
            continue
        estimates.append(est)
    estimates.sort(key=lambda e: (e.time_s, e.grid.label()))
    logger.info("%d of %d decompositions of %d fit", len(estimates), len(factorizations(world_size, 4)),
                world_size)  # fmt: skip
    return estimates
