"""The Tensor3D linear layer on torch.distributed, and a stack of them with alternating orientation.

A normal layer (W: n x k, out x in) on rank (row r, col c, depth d, data e) holds the flat shard d of the
weight block W[r-th n/G_row rows, c-th k/G_col columns]. Its input is the c-th k/G_col feature slice of
the (e, d)-th batch slice; its output the r-th n/G_row feature slice of the same batch slice.

    forward:  all-gather the block over depth; Y_part = X_loc W_block^T; all-reduce Y_part over columns
    backward: dX_part = dY W_block, all-reduce over rows; dW_block = dY^T X_loc, reduce-scatter over depth
    after:    all-reduce the weight-gradient shard over data (`sync_data_parallel`)

A transposed layer swaps rows and columns, so its input is sharded exactly as the previous layer's output
and the stack needs no communication between layers. With `chunks` > 1 the local batch is split and each
chunk's all-reduce is issued asynchronously right after its GEMM, so it overlaps the next chunk's GEMM.
Every call goes through the CommLedger with the tags of volumes.py.
"""

from __future__ import annotations

import logging

import torch
import torch.distributed as dist

from workflow_scripts.disttrain.comm import CommLedger
from workflow_scripts.disttrain.tensor3d.grid import DIMS, Grid
from workflow_scripts.disttrain.tensor3d.volumes import (
    TAG_DATA_GRAD_REDUCE,
    TAG_INPUT_GRAD_REDUCE,
    TAG_OUTPUT_REDUCE,
    TAG_WEIGHT_GATHER,
    TAG_WEIGHT_GRAD_SCATTER,
)

logger = logging.getLogger(__name__)


class GridGroups:
    """This rank's process groups along each grid dimension (None where the dimension has size 1)."""

    def __init__(self, grid: Grid, rank: int):
        self.grid = grid
        self.rank = rank
        self.coords = grid.coords(rank)
        self.groups: dict[str, dist.ProcessGroup | None] = {}
        for dim in DIMS:
            mine = None
            # new_group is collective: every rank creates every group, in the same order.
            for ranks in grid.group_ranks(dim):
                group = dist.new_group(ranks) if len(ranks) > 1 else None
                if rank in ranks:
                    mine = group
            self.groups[dim] = mine

    def batch_slice(self, batch: int) -> slice:
        """The rows of the global batch this rank's (data, depth) coordinates own."""
        local = batch // (self.grid.data * self.grid.depth)
        index = self.coords["data"] * self.grid.depth + self.coords["depth"]
        return slice(index * local, (index + 1) * local)


class _Tensor3DLinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight_shard, layer):
        g = layer.groups
        block_shape = (layer.local_out, layer.local_in)
        if g.groups["depth"] is not None:
            block = torch.empty(block_shape[0] * block_shape[1], dtype=weight_shard.dtype)
            layer.ledger.all_gather_into_tensor(block, weight_shard.contiguous(), group=g.groups["depth"],
                                                tag=TAG_WEIGHT_GATHER)  # fmt: skip
            block = block.view(block_shape)
        else:
            block = weight_shard.view(block_shape)
        outputs, handles = [], []
        for x_chunk in x.chunk(layer.chunks, dim=0):
            y = x_chunk @ block.t()  # (B'/chunks, n_loc): partial sums over this rank's input features
            if g.groups[layer.in_dim] is not None:
                handles.append(layer.ledger.all_reduce(y, group=g.groups[layer.in_dim], tag=TAG_OUTPUT_REDUCE,
                                                       async_op=True))  # fmt: skip
            outputs.append(y)
        for handle in handles:
            handle.wait()
        ctx.save_for_backward(x, block)
        ctx.layer = layer
        return torch.cat(outputs, dim=0)

    @staticmethod
    def backward(ctx, grad_y):
        x, block = ctx.saved_tensors
        layer = ctx.layer
        g = layer.groups
        grads, handles = [], []
        for gy_chunk in grad_y.chunk(layer.chunks, dim=0):
            gx = gy_chunk @ block  # (B'/chunks, k_loc): partial sums over this rank's output features
            if g.groups[layer.out_dim] is not None:
                handles.append(layer.ledger.all_reduce(gx, group=g.groups[layer.out_dim],
                                                       tag=TAG_INPUT_GRAD_REDUCE, async_op=True))  # fmt: skip
            grads.append(gx)
        grad_block = (grad_y.t() @ x).reshape(-1)  # (n_loc * k_loc,), overlaps the input-grad all-reduces
        if g.groups["depth"] is not None:
            grad_shard = torch.empty(grad_block.numel() // layer.grid.depth, dtype=grad_block.dtype)
            layer.ledger.reduce_scatter_tensor(grad_shard, grad_block, group=g.groups["depth"],
                                               tag=TAG_WEIGHT_GRAD_SCATTER)  # fmt: skip
        else:
            grad_shard = grad_block
        for handle in handles:
            handle.wait()
        return torch.cat(grads, dim=0), grad_shard, None


class Tensor3DLinear(torch.nn.Module):
    """Y = X W^T with W (out x in) distributed over the grid; no bias (the papers' layers have none)."""

    def __init__(self, full_weight: torch.Tensor, groups: GridGroups, ledger: CommLedger, *,
                 transposed: bool = False, chunks: int = 1):  # fmt: skip
        super().__init__()
        grid = groups.grid
        self.grid, self.groups, self.ledger, self.chunks = grid, groups, ledger, chunks
        self.transposed = transposed
        # Which grid dimension shards the input features, and which the output features.
        self.in_dim, self.out_dim = ("row", "col") if transposed else ("col", "row")
        out_features, in_features = full_weight.shape
        self.local_out = out_features // grid.dim_size(self.out_dim)
        self.local_in = in_features // grid.dim_size(self.in_dim)
        self.weight_shard = torch.nn.Parameter(shard_weight(full_weight, groups, transposed=transposed))

    def forward(self, x_local: torch.Tensor) -> torch.Tensor:
        return _Tensor3DLinearFn.apply(x_local, self.weight_shard, self)


def _block_slices(shape, groups: GridGroups, transposed: bool) -> tuple[slice, slice]:
    grid, coords = groups.grid, groups.coords
    in_dim, out_dim = ("row", "col") if transposed else ("col", "row")
    n_loc, k_loc = shape[0] // grid.dim_size(out_dim), shape[1] // grid.dim_size(in_dim)
    i, j = coords[out_dim], coords[in_dim]
    return slice(i * n_loc, (i + 1) * n_loc), slice(j * k_loc, (j + 1) * k_loc)


def shard_weight(full_weight: torch.Tensor, groups: GridGroups, *, transposed: bool) -> torch.Tensor:
    """This rank's flat depth shard of its weight block (row-major flattening of the block)."""
    rows, cols = _block_slices(full_weight.shape, groups, transposed)
    block = full_weight[rows, cols].reshape(-1)
    per = block.numel() // groups.grid.depth
    d = groups.coords["depth"]
    return block[d * per:(d + 1) * per].clone()


def shard_features(full: torch.Tensor, groups: GridGroups, *, dim_name: str, batch: int) -> torch.Tensor:
    """The slice of a (batch x features) tensor this rank holds: its batch rows, and its feature slice
    along grid dimension `dim_name` ("row" or "col")."""
    rows = full[groups.batch_slice(batch)]
    p = groups.grid.dim_size(dim_name)
    width = full.shape[1] // p
    j = groups.coords[dim_name]
    return rows[:, j * width:(j + 1) * width].clone()


def sync_data_parallel(layers: list[Tensor3DLinear], ledger: CommLedger) -> None:
    """All-reduce every weight-gradient shard over the data group (sum: the loss is a sum over samples)."""
    for layer in layers:
        group = layer.groups.groups["data"]
        if group is not None and layer.weight_shard.grad is not None:
            ledger.all_reduce(layer.weight_shard.grad, group=group, tag=TAG_DATA_GRAD_REDUCE)


class Tensor3DStack(torch.nn.Module):
    """Linear layers with alternating orientation and a ReLU between them (elementwise: works on shards)."""

    def __init__(self, full_weights: list[torch.Tensor], groups: GridGroups, ledger: CommLedger, *,
                 chunks: int = 1):  # fmt: skip
        super().__init__()
        self.layers = torch.nn.ModuleList(
            Tensor3DLinear(w, groups, ledger, transposed=bool(i % 2), chunks=chunks)
            for i, w in enumerate(full_weights))  # fmt: skip

    def forward(self, x_local):
        for i, layer in enumerate(self.layers):
            x_local = layer(x_local)
            if i < len(self.layers) - 1:
                x_local = torch.relu(x_local)
        return x_local

    def output_dim(self) -> str:
        """The grid dimension that shards the last layer's output features."""
        return self.layers[-1].out_dim


def serial_stack(full_weights: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """The same stack on one process: the reference the distributed one must equal."""
    for i, w in enumerate(full_weights):
        x = x @ w.t()
        if i < len(full_weights) - 1:
            x = torch.relu(x)
    return x
