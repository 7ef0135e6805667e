"""MoE gating, dispatch/combine, the serial block, the tiled optimizer and the count model (no processes)."""

import pytest
import torch

from workflow_scripts.disttrain.moe.gating import combine, dispatch, expert_capacity, top_k_gating
from workflow_scripts.disttrain.moe.layer import MoEShape, full_weights, serial_block
from workflow_scripts.disttrain.moe.optimizer import TiledMixedPrecisionAdam, peak_transient_bytes
from workflow_scripts.disttrain.moe.volumes import Layout, MoEModel, block_counts, memory_bytes


@pytest.mark.parametrize(("tokens", "experts", "k", "factor", "multiple", "expected"),
                         [(12, 4, 2, 1.0, 2, 6), (12, 4, 1, 1.0, 2, 4), (10, 4, 1, 1.0, 2, 4), (10, 4, 1, 1.25, 1, 4),
                          (3, 8, 1, 1.0, 4, 4)])  # fmt: skip
def test_expert_capacity(tokens, experts, k, factor, multiple, expected):
    assert expert_capacity(tokens, experts, k, factor, multiple_of=multiple) == expected


def test_top1_gating_fills_in_token_order_and_drops_overflow():
    logits = torch.tensor([[5.0, 0.0], [4.0, 0.0], [3.0, 0.0], [0.0, 5.0]])
    plan = top_k_gating(logits, k=1, capacity=2)
    assert plan.token_index[0].tolist() == [0, 1]  # token 2 found expert 0 full
    assert plan.slot_valid.tolist() == [[True, True], [True, False]]
    assert plan.token_index[1, 0] == 3
    assert plan.dropped == 1
    probs = torch.softmax(logits, -1)
    assert plan.weights[0, 0] == pytest.approx(float(probs[0, 0]))


def test_top2_first_choices_before_second_and_weights_renormalised():
    logits = torch.tensor([[2.0, 1.0, -9.0], [1.0, 2.0, -9.0]])
    plan = top_k_gating(logits, k=2, capacity=2)
    # Expert 0: token 0 (first choice) then token 1 (second choice).
    assert plan.token_index[0].tolist() == [0, 1] and plan.slot_valid[0].all()
    per_token = torch.zeros(2).index_add(0, plan.token_index.reshape(-1), plan.weights.reshape(-1))
    assert torch.allclose(per_token, torch.ones(2))


def test_dispatch_and_combine_match_a_loop():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(10, 3, generator=gen, dtype=torch.float64)
    plan = top_k_gating(torch.randn(10, 4, generator=gen), k=2, capacity=4)
    buffers = dispatch(x, plan)
    expert_out = buffers * 2 + 1
    expected = torch.zeros_like(x)
    for e in range(4):
        for c in range(4):
            if plan.slot_valid[e, c]:
                t = int(plan.token_index[e, c])
                assert torch.equal(buffers[e, c], x[t])
                expected[t] += plan.weights[e, c] * expert_out[e, c]
            else:
                assert not buffers[e, c].any()
    assert torch.allclose(combine(expert_out, plan, num_tokens=10), expected)


def test_serial_block_gradients_reach_every_weight():
    shape = MoEShape(hidden=8, dense_ffn=16, expert_ffn=16, experts=4, top_k=2, capacity_factor=1.0, tokens=12)
    weights = {k: v.requires_grad_(True) for k, v in full_weights(shape, seed=1).items()}
    x = torch.randn(12, 8, dtype=torch.float64)
    serial_block(weights, x, shape, capacity=6).sum().backward()
    assert all(w.grad is not None and w.grad.abs().sum() > 0 for w in weights.values())


def test_tiled_optimizer_is_bit_identical_for_every_tile():
    results = []
    for tile in (None, 1000, 333, 7):
        p = torch.nn.Parameter(torch.linspace(-1, 1, 5000).bfloat16())
        p.grad = torch.linspace(1, -1, 5000).bfloat16()
        opt = TiledMixedPrecisionAdam([p], lr=1e-2, tile_elems=tile)
        for _ in range(3):
            opt.step()
        results.append((p.detach().clone(), opt.master[0].clone()))
    assert all(torch.equal(r[0], results[0][0]) and torch.equal(r[1], results[0][1]) for r in results)
    assert not torch.equal(results[0][0], torch.linspace(-1, 1, 5000).bfloat16())  # it did update
    with pytest.raises(ValueError, match="tile_elems"):
        TiledMixedPrecisionAdam([p], lr=1e-2, tile_elems=0)


def test_peak_measurement_refuses_without_a_fixed_mmap_threshold(monkeypatch):
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    with pytest.raises(RuntimeError, match="MALLOC_MMAP_THRESHOLD_"):
        peak_transient_bytes(lambda: None)


SHAPE = MoEShape(hidden=8, dense_ffn=16, expert_ffn=16, experts=4, top_k=2, capacity_factor=1.0, tokens=12)


def _a2a(**kw):
    counts = block_counts(SHAPE, tensor=2, expert=2, expert_data=1, dtype_bytes=8, **kw)
    return {tag: v for (op, tag), v in counts.items() if op == "all_to_all_single"}


def test_count_model_six_to_four_all_to_alls_and_dtd_divides_bytes():
    plain = _a2a(drop_duplicates=False, checkpoint=False, comm_aware_checkpoint=False)
    ckpt = _a2a(drop_duplicates=False, checkpoint=True, comm_aware_checkpoint=False)
    aware = _a2a(drop_duplicates=False, checkpoint=True, comm_aware_checkpoint=True)
    dtd = _a2a(drop_duplicates=True, checkpoint=False, comm_aware_checkpoint=False)
    calls = {name: sum(v["calls"] for v in c.values()) for name, c in
             (("plain", plain), ("ckpt", ckpt), ("aware", aware), ("dtd", dtd))}  # fmt: skip
    assert calls == {"plain": 4, "ckpt": 6, "aware": 4, "dtd": 4}
    bytes_ = {name: sum(v["message_bytes"] for v in c.values()) for name, c in (("plain", plain), ("dtd", dtd))}
    assert bytes_["plain"] == 4 * SHAPE.experts * 6 * SHAPE.hidden * 8  # 4 calls x E C h x 8 bytes, C = 6
    assert bytes_["plain"] == 2 * bytes_["dtd"]


def test_projection_model_sizes_and_tensor_parallel_memory():
    model = MoEModel(layers=32, hidden=4096, seq_len=2048, vocab=51200, experts=16, moe_every=2, top_k=1,
                     capacity_factor=1.0)  # fmt: skip
    assert model.base_params() == pytest.approx(6.65e9, rel=0.01)
    assert model.total_params() == pytest.approx(38.9e9, rel=0.01)  # the paper's "40B"
    layout = Layout(tensor=4, expert=16, expert_data=2)
    assert sorted(r for g in layout.groups("tensor") for r in g) == list(range(128))
    ted = memory_bytes(model, layout, micro_batch_tokens=2048, tiled_optimizer=True, tile_elems=10**6,
                       nonexpert_tensor_parallel=True)  # fmt: skip
    ds = memory_bytes(model, layout, micro_batch_tokens=2048, tiled_optimizer=False, tile_elems=10**6,
                      nonexpert_tensor_parallel=False)  # fmt: skip
    assert ted["states_bytes"] < ds["states_bytes"]
    assert ted["optimizer_transient_bytes"] == 12 * 10**6
