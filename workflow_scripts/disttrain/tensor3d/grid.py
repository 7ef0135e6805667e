"""The Tensor3D process grid: G_row x G_col x G_depth x G_data ranks, and its communication groups.

Rank layout (innermost first): row, column, depth, data, i.e.
    rank = ((data * G_depth + depth) * G_col + col) * G_row + row
so row groups are contiguous ranks (they stay inside a node first), then column, depth and data groups
with growing strides. `group_ranks` gives every group of a dimension; the communication model uses the
same function, so the placement it assumes is the one the processes use.

    grid = Grid(rows=2, cols=1, depth=2, data=1)
    grid.coords(rank)            # {"row": r, "col": c, "depth": d, "data": e}
    grid.group_ranks("depth")    # [[0, 2], [1, 3]]
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import math

logger = logging.getLogger(__name__)

DIMS = ("row", "col", "depth", "data")  # innermost (fastest-varying rank) first


def factorizations(n: int, parts: int) -> list[tuple[int, ...]]:
    """Every ordered tuple of `parts` positive integers whose product is `n` (sorted)."""
    if parts == 1:
        return [(n,)]
    out = []
    for first in range(1, n + 1):
        if n % first == 0:
            out.extend((first, *rest) for rest in factorizations(n // first, parts - 1))
    return sorted(out)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Grid:
    rows: int  # G_row: shards a layer's output features (input features of a transposed layer)
    cols: int  # G_col: shards a layer's input features
    depth: int  # G_depth: shards the weight block further, and the batch
    data: int  # G_data: data parallelism (replicas of the whole grid)

    def __post_init__(self):
        for name in ("rows", "cols", "depth", "data"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"Grid.{name} must be a positive integer, got {value!r}")

    @property
    def size(self) -> int:
        return self.rows * self.cols * self.depth * self.data

    def dim_size(self, dim: str) -> int:
        return {"row": self.rows, "col": self.cols, "depth": self.depth, "data": self.data}[dim]

    def label(self) -> str:
        return f"r{self.rows}c{self.cols}d{self.depth}x{self.data}"

    def is_megatron(self) -> bool:
        """Megatron-LM tensor parallelism is the special case with one grid dimension (G_col = G_depth = 1)."""
        return self.cols == 1 and self.depth == 1

    def coords(self, rank: int) -> dict[str, int]:
        out = {}
        for dim in DIMS:
            size = self.dim_size(dim)
            out[dim] = rank % size
            rank //= size
        return out

    def rank_of(self, coords: dict[str, int]) -> int:
        rank, stride = 0, 1
        for dim in DIMS:
            rank += coords[dim] * stride
            stride *= self.dim_size(dim)
        return rank

    def group_ranks(self, dim: str) -> list[list[int]]:
        """Every group along `dim`: ranks that differ only in that coordinate, ordered by it."""
        others = [d for d in DIMS if d != dim]
        groups = []
        for fixed in itertools.product(*(range(self.dim_size(d)) for d in others)):
            base = dict(zip(others, fixed, strict=True))
            groups.append([self.rank_of(base | {dim: i}) for i in range(self.dim_size(dim))])
        return sorted(groups)

    def group_of(self, dim: str, rank: int) -> list[int]:
        return next(g for g in self.group_ranks(dim) if rank in g)


def check_grid(grid: Grid, world_size: int, *, batch: int, in_features: int, out_features: int,
               chunks: int = 1) -> None:  # fmt: skip
    """Stop with every factor printed when the grid does not fit the world size or the layer's shapes."""
    factors = (f"G_row={grid.rows} x G_col={grid.cols} x G_depth={grid.depth} x G_data={grid.data} "
               f"= {grid.size}")  # fmt: skip
    if grid.size != world_size:
        fits = ", ".join("x".join(map(str, f)) for f in factorizations(world_size, 4))
        raise ValueError(f"process grid {factors} does not match the {world_size} processes; "
                         f"grids (row x col x depth x data) that fit: {fits}")
    problems = []
    shard = grid.rows * grid.cols
    for name, features in (("in_features", in_features), ("out_features", out_features)):
        # Either orientation may be used (layers alternate), so both features divide by rows and cols.
        if features % math.lcm(grid.rows, grid.cols):
            problems.append(f"{name}={features} is not divisible by lcm(G_row={grid.rows}, G_col={grid.cols})")
    if (in_features * out_features // shard) % grid.depth:
        problems.append(f"the weight block {out_features}x{in_features}/(G_row*G_col={shard}) does not "
                        f"split into G_depth={grid.depth} shards")  # fmt: skip
    batch_split = grid.data * grid.depth * chunks
    if batch % batch_split:
        ok = [b for b in range(batch_split, 4 * batch_split + 1, batch_split)]
        problems.append(f"batch={batch} is not divisible by G_data={grid.data} x G_depth={grid.depth} x "
                        f"chunks={chunks} = {batch_split} (batches that fit: {ok[:4]} ...)")  # fmt: skip
    if problems:
        raise ValueError(f"process grid {factors}: " + "; ".join(problems))
    logger.debug("process grid %s fits batch=%d, in=%d, out=%d, chunks=%d", factors, batch, in_features,
                out_features, chunks)  # fmt: skip
