"""The real layers on 4 torch.distributed processes (gloo; torchrun started by the validate rules of the
shared end-to-end run in conftest.py): what the processes measured, checked against the serial layers and
the communication models."""

import json

import pytest

pytestmark = pytest.mark.multiprocess

PROCESSES = 4


@pytest.fixture(scope="module")
def tensor3d(layer_run):
    root, _ = layer_run
    return json.loads((root / "results/disttrain/tensor3d/validation.json").read_text())


@pytest.fixture(scope="module")
def moe(layer_run):
    root, sections = layer_run
    result = json.loads((root / "results/disttrain/moe/validation.json").read_text())
    return result | {"config": sections["moe"]}


def test_every_decomposition_of_four_is_run(tensor3d):
    grids = {tuple(d["dims"]) for d in tensor3d["decompositions"]}
    assert len(grids) == 10 and all(r * c * d * e == PROCESSES for r, c, d, e in grids)


@pytest.mark.parametrize("check", ["check_chunks_1", "check_chunks_n"])
def test_tensor3d_equals_the_serial_stack_in_float64(tensor3d, check):
    for d in tensor3d["decompositions"]:
        errors = d[check]["errors"]
        assert set(errors) == {"output", "input_grad", "weight_grad"}
        assert max(errors.values()) < 1e-12, (d["grid"], errors)


@pytest.mark.parametrize("check", ["check_chunks_1", "check_chunks_n"])
def test_tensor3d_measured_bytes_equal_the_model_exactly(tensor3d, check):
    for d in tensor3d["decompositions"]:
        assert d[check]["measured_bytes"] == d[check]["model_bytes"], d["grid"]
        assert d[check]["bytes_match"]
    # The grid with depth and data parallelism uses every collective of the layer.
    full = next(d for d in tensor3d["decompositions"] if d["dims"] == [1, 1, 2, 2])
    assert len(full["check_chunks_1"]["measured_bytes"]) == 3  # weight gather, grad scatter, data all-reduce
    # Chunks split the activation all-reduces into more calls with the same bytes.
    mixed = next(d for d in tensor3d["decompositions"] if d["dims"] == [2, 2, 1, 1])
    one, two = mixed["check_chunks_1"]["measured_bytes"], mixed["check_chunks_n"]["measured_bytes"]
    for key in one:
        assert two[key]["message_bytes"] == one[key]["message_bytes"]
        assert two[key]["calls"] == 2 * one[key]["calls"]


def test_tensor3d_timings_and_collectives_recorded(tensor3d):
    assert tensor3d["matmul_flops_per_s"] > 0
    assert [p["chunks"] for p in tensor3d["overlap"]["points"]] == [1, 2]
    for d in tensor3d["decompositions"]:
        assert d["timing"]["step_time_s_median"] > 0
        if d["dims"] != [1, 1, 1, 4]:
            assert d["timing"]["collectives"]


@pytest.mark.parametrize("variant", ["dtd", "checkpoint", "checkpoint_comm_aware", "all"])
def test_moe_optimisations_leave_outputs_and_gradients_identical(moe, variant):
    v = moe["check"]["variants"][variant]
    assert v["max_abs_diff_vs_baseline"] == 0.0
    assert v["bitwise_equal_to_baseline"]


def test_moe_equals_the_serial_block_in_float64(moe):
    diffs = moe["check"]["serial_max_abs_diff"]
    assert set(diffs) == {"output", "input_grad", "dense_w1", "dense_w2", "router", "expert_w1", "expert_w2"}
    assert max(diffs.values()) < 1e-12


def test_moe_duplicate_token_dropping_divides_all_to_all_bytes_by_tensor_degree(moe):
    variants = moe["check"]["variants"]
    assert variants["baseline"]["all_to_all_message_bytes"] == moe["config"]["tensor_parallel"] * variants["dtd"]["all_to_all_message_bytes"]
    assert variants["baseline"]["all_to_all_wire_bytes"] == moe["config"]["tensor_parallel"] * variants["dtd"]["all_to_all_wire_bytes"]


def test_moe_comm_aware_checkpointing_six_to_four_all_to_alls(moe):
    calls = {n: v["all_to_all_calls"] for n, v in moe["check"]["variants"].items()}
    assert calls == {"baseline": 4, "dtd": 4, "checkpoint": 6, "checkpoint_comm_aware": 4, "all": 4}


def test_moe_counts_equal_the_model_exactly(moe):
    for name, v in moe["check"]["variants"].items():
        assert v["totals"] == v["model_totals"], name


def test_moe_optimizer_peak_memory_falls_with_tile_size(moe):
    points = sorted(moe["optimizer"]["points"], key=lambda p: -p["tile_elems"])
    assert all(p["identical_to_untiled"] for p in points)
    peaks = [p["peak_transient_bytes"] for p in points]
    assert peaks == sorted(peaks, reverse=True) and peaks[0] > 4 * peaks[-1]
    # The whole-partition step holds at least one fp32 copy of the partition (4 bytes x elements).
    assert peaks[0] >= 4 * moe["config"]["optimizer"]["partition_elems"] * 0.9


def test_moe_checkpointing_memory_and_the_all_to_all_outputs_it_keeps(moe):
    v = moe["check"]["variants"]
    tp = moe["config"]["tensor_parallel"]
    per_call = v["baseline"]["all_to_all_message_bytes"] // 4  # one all-to-all's output, no DTD
    assert v["checkpoint"]["activations_bytes"] < v["baseline"]["activations_bytes"] / 4
    assert v["checkpoint"]["kept_all_to_all_bytes"] == 0 and v["baseline"]["kept_all_to_all_bytes"] == 0
    assert v["checkpoint_comm_aware"]["kept_all_to_all_bytes"] == 2 * per_call  # dispatch and combine
    assert v["all"]["kept_all_to_all_bytes"] == 2 * per_call // tp  # with DTD each keeps 1/G_t
