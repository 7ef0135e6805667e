"""The Tensor3D grid, volume model and enumerator (no processes)."""

import pytest

from workflow_scripts.disttrain.tensor3d.grid import Grid, check_grid, factorizations
from workflow_scripts.disttrain.tensor3d.volumes import (
    TAG_DATA_GRAD_REDUCE,
    TAG_INPUT_GRAD_REDUCE,
    TAG_OUTPUT_REDUCE,
    TAG_WEIGHT_GATHER,
    TAG_WEIGHT_GRAD_SCATTER,
    LayerShape,
    alternating_stack,
    enumerate_decompositions,
    model_bytes,
    pipeline_time_s,
    step_time_s,
)


@pytest.mark.parametrize(("n", "count"), [(1, 1), (2, 4), (4, 10), (8, 20), (256, 165)])
def test_factorizations_into_four_grid_sizes(n, count):
    grids = factorizations(n, 4)
    assert len(grids) == count
    assert all(a * b * c * d == n for a, b, c, d in grids)


def test_grid_groups_partition_the_ranks_and_rows_are_contiguous():
    grid = Grid(rows=2, cols=1, depth=2, data=2)
    for dim in ("row", "col", "depth", "data"):
        groups = grid.group_ranks(dim)
        assert sorted(r for g in groups for r in g) == list(range(8))
    assert grid.group_ranks("row") == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert grid.group_ranks("depth") == [[0, 2], [1, 3], [4, 6], [5, 7]]
    assert all(grid.rank_of(grid.coords(r)) == r for r in range(8))


def test_check_grid_names_every_factor_and_the_sizes_that_fit():
    with pytest.raises(ValueError) as err:
        check_grid(Grid(rows=2, cols=2, depth=2, data=1), 4, batch=8, in_features=8, out_features=8)
    message = str(err.value)
    assert "G_row=2 x G_col=2 x G_depth=2 x G_data=1 = 8" in message
    assert "1x1x1x4" in message and "2x2x1x1" in message
    with pytest.raises(ValueError, match=r"batch=6 is not divisible by G_data=2 x G_depth=1 x chunks=2 = 4"):
        check_grid(Grid(rows=2, cols=1, depth=1, data=2), 4, batch=6, in_features=8, out_features=8, chunks=2)
    with pytest.raises(ValueError, match="in_features=6"):
        check_grid(Grid(rows=4, cols=1, depth=1, data=1), 4, batch=8, in_features=6, out_features=8)


def test_volumes_of_one_layer_by_hand():
    # n=8 out, k=4 in, batch 8, grid 2 x 2 x 2 x 1, 4-byte elements, normal orientation.
    shape = LayerShape(out_features=8, in_features=4)
    counts = model_bytes([shape], Grid(rows=2, cols=2, depth=2, data=1), batch=8, chunks=2, dtype_bytes=4)
    block = 8 * 4 // 4  # n k / (G_r G_c)
    local_batch = 8 // 2
    assert counts[("all_gather_into_tensor", TAG_WEIGHT_GATHER)] == {"calls": 1, "message_bytes": block * 4}
    assert counts[("reduce_scatter_tensor", TAG_WEIGHT_GRAD_SCATTER)] == {"calls": 1, "message_bytes": block * 4}
    assert counts[("all_reduce", TAG_OUTPUT_REDUCE)] == {"calls": 2, "message_bytes": local_batch * 8 // 2 * 4}
    assert counts[("all_reduce", TAG_INPUT_GRAD_REDUCE)] == {"calls": 2, "message_bytes": local_batch * 4 // 2 * 4}
    assert ("all_reduce", TAG_DATA_GRAD_REDUCE) not in counts  # a data group of one moves nothing


def test_megatron_is_the_one_dimensional_special_case():
    shapes = alternating_stack([LayerShape(out_features=16, in_features=16)] * 2)
    counts = model_bytes(shapes, Grid(rows=4, cols=1, depth=1, data=1), batch=8)
    # No depth group: no weight gather or scatter; the transposed layer reduces over rows forward.
    assert {tag for _, tag in counts} == {TAG_OUTPUT_REDUCE, TAG_INPUT_GRAD_REDUCE}
    assert counts[("all_reduce", TAG_OUTPUT_REDUCE)]["calls"] == 1  # only the transposed layer
    assert Grid(rows=4, cols=1, depth=1, data=1).is_megatron()
    assert not Grid(rows=2, cols=2, depth=1, data=1).is_megatron()


def test_pipeline_overlap_formula():
    assert pipeline_time_s(1.0, 1.0, 1) == 2.0
    # Four chunks of 0.25 s compute and 0.25 s communication: 0.25 + 0.25 + 3 x 0.25.
    assert pipeline_time_s(1.0, 0.25, 4) == pytest.approx(1.25)


def _linear_cost(op, message_bytes, grid, dim):
    return 1e-5 + message_bytes / 1e9 * (10 if dim == "data" else 1)


def test_enumerator_ranks_by_modelled_time_and_applies_memory():
    shapes = alternating_stack([LayerShape(out_features=64, in_features=64)] * 4)
    ranked = enumerate_decompositions(shapes, 4, batch=16, chunks=1, dtype_bytes=4, flops_per_s=1e9,
                                      cost=_linear_cost, bytes_per_param=16)  # fmt: skip
    assert len(ranked) == 10
    times = [e.time_s for e in ranked]
    assert times == sorted(times)
    limit = sorted(e.memory_bytes for e in ranked)[4]
    fitting = enumerate_decompositions(shapes, 4, batch=16, chunks=1, dtype_bytes=4, flops_per_s=1e9,
                                       cost=_linear_cost, bytes_per_param=16, memory_limit_bytes=limit)  # fmt: skip
    assert 0 < len(fitting) < 10 and all(e.memory_bytes <= limit for e in fitting)


def test_overdecomposition_hides_communication_in_the_model():
    shapes = alternating_stack([LayerShape(out_features=256, in_features=256, positions=64)] * 2)
    grid = Grid(rows=2, cols=2, depth=1, data=1)
    one = step_time_s(shapes, grid, batch=64, chunks=1, dtype_bytes=4, flops_per_s=1e10, cost=_linear_cost)
    four = step_time_s(shapes, grid, batch=64, chunks=4, dtype_bytes=4, flops_per_s=1e10, cost=_linear_cost)
    assert four.compute_s == one.compute_s and four.comm_bytes == one.comm_bytes
    assert four.exposed_comm_s < one.exposed_comm_s
