"""Survey strategies under torchrun (2 processes): same losses as one process, bytes and memory as modelled."""

import pytest

from workflow_scripts.disttrain.survey.run import analyse, run_workers
from workflow_scripts.disttrain.survey.strategies import SurveyConfig, train_reference
from workflow_scripts.disttrain.survey.volumes import (
    analytic_bytes,
    analytic_memory,
    fsdp_padded_numel,
    zero3_partitions,
    zero3_sub_groups,
    zero_flat_numel,
)

SECTION = {"model": {"vocab_size": 32, "block_size": 8, "n_layer": 2, "n_head": 2, "n_embd": 16},
           "cnn": {"channels": 4, "image_size": 8, "num_classes": 4},
           "strategies": ["ddp", "ddp_cnn", "fsdp2", "tp", "pp_gpipe", "pp_1f1b"], "global_batch": 8, "steps": 3,
           "microbatches": 4, "lr": 0.003, "hybrid_processes": 4, "loss_rtol": 1e-5}  # fmt: skip


ODD_MODEL = {"vocab_size": 31, "block_size": 7, "n_layer": 2, "n_head": 1, "n_embd": 5}  # odd parameter sizes


def test_process_counts_that_do_not_fit_name_the_fits():
    cfg = SurveyConfig.from_config(SECTION, seed=0)
    with pytest.raises(ValueError, match="tensor-parallel processes that would fit: 1, 2"):
        cfg.check_world("tp", 3)
    with pytest.raises(ValueError, match="pipeline stages that would fit: 1, 2"):
        cfg.check_world("pp_1f1b", 4)
    with pytest.raises(ValueError, match="unknown"):
        SurveyConfig.from_config(SECTION | {"strategies": ["megatron"]}, seed=0)
    with pytest.raises(ValueError, match="needs at least 2"):
        cfg.check_world("zero2", 1)
    with pytest.raises(ValueError, match="steps must be >= 3 with zero3"):
        SurveyConfig.from_config(SECTION | {"strategies": ["zero3"], "steps": 2}, seed=0)


def test_analytic_models_scale_with_the_grid():
    cfg = SurveyConfig.from_config(SECTION, seed=0)
    n = cfg.model.num_parameters()
    assert analytic_bytes(cfg, "ddp", 0, 2) == {"all_reduce/grad": 4 * n}
    fsdp = analytic_bytes(cfg, "fsdp2", 0, 2)
    assert fsdp["reduce_scatter_tensor/grad_scatter"] == 4 * n  # no padding at these widths
    assert 4 * n < fsdp["all_gather_into_tensor/param_gather"] < 8 * n  # blocks gathered twice, the root once
    hybrid = analytic_bytes(cfg, "hybrid_fsdp_tp", 0, 4)
    assert hybrid["reduce_scatter_tensor/grad_scatter"] < 4 * n  # the tensor-parallel shard, not the model


@pytest.mark.parametrize(("shape", "world", "padded"), [
    ((5,), 2, 6), ((5, 7), 2, 42), ((4, 3, 2), 4, 24), ((31, 5), 4, 160), ((1,), 3, 3),
])  # fmt: skip
def test_fsdp_pads_dim_0_to_the_shard_count(shape, world, padded):
    assert fsdp_padded_numel(shape, world) == padded


@pytest.mark.parametrize(("numel", "world", "flat"), [(1085, 2, 1088), (1085, 3, 1086), (1085, 4, 1088), (8, 2, 8)])
def test_zero_flat_buffer_pads_to_twice_the_world(numel, world, flat):
    assert zero_flat_numel(numel, world) == flat


@pytest.mark.parametrize(("partitions", "sub_group_size", "sub_groups"), [
    ([3, 3, 3], 10, 1),  # all in one, not yet full
    ([5, 5, 1], 10, 2),  # full after two, a partial one after
    ([10, 10], 10, 2),  # each fills one exactly
    ([], 10, 0),
])  # fmt: skip
def test_zero3_sub_groups_fill_in_parameter_order(partitions, sub_group_size, sub_groups):
    assert zero3_sub_groups(partitions, sub_group_size) == sub_groups
    assert zero3_partitions([5, 6, 1], 3) == [2, 2, 1]

# ODD_MODEL's 1085 parameters: embeddings 155 + 35, per block two layer norms 4 x 5, q/k/v/proj 4 x (25 + 5),
# fc 100 + 20, proj 100 + 5; final norm 2 x 5; head 155. Of its 37 tensors, 20 have 5 elements, 8 have 25,
# 4 have 100, 2 have 20, 2 have 155 and one 35.
@pytest.mark.parametrize(("world", "flat", "zero3_padded"), [
    (2, 1088, 1085 + 2 * 1 + 1 + 20 * 1 + 8 * 1),  # ZeRO-1/2: a multiple of 4; ZeRO-3: every odd size + 1
    (3, 1086, 1085 + 2 * 1 + 1 + 20 * 1 + 8 * 2 + 4 * 2 + 2 * 1),  # multiples of 6 and of 3
    (4, 1088, 1085 + 2 * 1 + 1 + 20 * 3 + 8 * 3),  # multiples of 8 and of 4
])  # fmt: skip
def test_deepspeed_byte_model_pads_like_deepspeed(world, flat, zero3_padded):
    """ZeRO-1/2 pad the flat buffer to a multiple of 2 x world; ZeRO-3 pads every parameter to a multiple of
    world. Sizes counted by hand from ODD_MODEL's shapes; the 2- and 3-process runs measured the same."""
    cfg = SurveyConfig.from_config(SECTION | {"model": ODD_MODEL}, seed=0)
    n = cfg.model.num_parameters()
    assert n == 1085
    for stage in ("zero1", "zero2"):
        assert analytic_bytes(cfg, stage, 0, world) == {"reduce/zero": 4 * n, "all_reduce/zero": 4,
                                                        "all_gather_into_tensor/zero": 4 * flat}  # fmt: skip
    assert analytic_bytes(cfg, "zero3", 0, world) == {"all_gather_into_tensor/zero": 2 * 4 * zero3_padded,
                                                      "reduce_scatter_tensor/zero": 4 * zero3_padded,
                                                      "all_reduce/zero": 8}  # fmt: skip


# ZeRO-1/2 gradients held per rank: every parameter that meets the rank's partition of the flat buffer, whole,
# plus the buffer's padding in it. By hand from ODD_MODEL's offsets (tok_emb 0-155, ..., blocks.0.attn.v.weight
# 260-285, mlp.fc.weight 330-430, mlp.proj.weight 450-550, blocks.1.mlp.fc.weight 695-795, mlp.proj.weight
# 815-915, head 930-1085).
@pytest.mark.parametrize(("world", "held_per_rank"), [
    (2, [550, 1085 - 450 + 3]),  # partitions of 544: the first ends inside mlp.proj.weight (450-550)
    (3, [430, 795 - 330, 1085 - 695 + 1]),  # partitions of 362
    (4, [285, 550 - 260, 915 - 450, 1085 - 815 + 3]),  # partitions of 272
])  # fmt: skip
def test_deepspeed_memory_model_counts_partitions_as_deepspeed_stores_them(world, held_per_rank):
    cfg = SurveyConfig.from_config(SECTION | {"model": ODD_MODEL, "zero_bucket_numel": 50}, seed=0)
    # The flat buffer and ZeRO-3's padded sizes of test_deepspeed_byte_model_pads_like_deepspeed, over world.
    flat, zero3_part = {2: (1088, 1116 // 2), 3: (1086, 1134 // 3), 4: (1088, 1172 // 4)}[world]
    for rank, held in enumerate(held_per_rank):
        for stage in ("zero1", "zero2"):  # the same with one micro-step per step
            assert analytic_memory(cfg, stage, rank, world) == {
                "parameters_bytes": 4 * flat, "gradients_bytes": 4 * held, "master_weights_bytes": 4 * flat // world,
                "optimizer_bytes": 8 * flat // world + 4, "gradient_buckets_bytes": 4 * 50}  # fmt: skip
        assert analytic_memory(cfg, "zero3", rank, world) == {
            "parameters_bytes": 4 * zero3_part, "gradients_bytes": 4 * zero3_part,
            "master_weights_bytes": 4 * zero3_part, "optimizer_bytes": 8 * zero3_part + 4,
            "gradient_buckets_bytes": 4 * 50}  # fmt: skip


@pytest.mark.multiprocess
def test_strategies_match_single_process_and_their_models(tmp_path):
    cfg = SurveyConfig.from_config(SECTION, seed=7)
    results = run_workers(cfg, SECTION, nproc=2, log_path=tmp_path / "log", timeout_s=300)
    rows = analyse(cfg, results, {"gpt": train_reference(cfg, "gpt"), "cnn": train_reference(cfg, "cnn")})
    for name, row in rows.items():
        assert row["loss_matches_single_process"], (name, row["max_rel_loss_diff"])
        assert row["bytes_match_analytic"] is True, (name, row["bytes_by_op_per_rank"])
        assert row["memory_match_analytic"] is True, name
    # 1F1B keeps at most (stages - rank) microbatches in flight on a stage, GPipe all of them.
    assert rows["pp_1f1b"]["activations_bytes_per_rank"][0] < rows["pp_gpipe"]["activations_bytes_per_rank"][0]
    # Sharding halves the model state of FSDP2 against DDP.
    assert rows["fsdp2"]["model_state_bytes_per_rank"][0] < 0.51 * rows["ddp"]["model_state_bytes_per_rank"][0]


@pytest.mark.multiprocess
def test_deepspeed_zero_matches_single_process_and_its_exact_byte_and_memory_models(tmp_path):
    # Odd widths (every ZeRO-3 partition and the ZeRO-1/2 flat buffer padded) and buckets of 50 elements (many
    # reduce calls, parameters larger than a bucket): the bytes must still equal the model. Four steps, so ZeRO-3
    # has two steady steps after its two warm-up steps.
    section = SECTION | {"model": ODD_MODEL, "strategies": ["zero1", "zero2", "zero3"], "global_batch": 6,
                         "microbatches": 2, "steps": 4, "loss_rtol": 1e-4, "zero_bucket_numel": 50}  # fmt: skip
    cfg = SurveyConfig.from_config(section, seed=11)
    results = run_workers(cfg, section, nproc=2, log_path=tmp_path / "log", timeout_s=400)
    rows = analyse(cfg, results, {"gpt": train_reference(cfg, "gpt")})
    for name, row in rows.items():
        assert row["loss_matches_single_process"], (name, row["max_rel_loss_diff"])
        assert row["bytes_match_analytic"] is True, (name, row["bytes_by_op_per_rank"],
                                                     row["analytic_bytes_by_op_per_rank"])  # fmt: skip
        # Within a few percent of the ZeRO paper's volumes: the rest is padding and the norm scalars.
        assert row["measured_over_textbook_wire"] == pytest.approx(1.0, abs=0.05), name
        assert row["memory_match_analytic"] is True, (name, [r["memory"] for r in results[name]],
                                                      row["analytic_memory_per_rank"])  # fmt: skip
    # ZeRO-3 shards the parameters too: 20/n bytes per parameter against ZeRO-2's 4 + 16/n, 10 against 12 here
    # (ZeRO-3 pads every parameter of these odd shapes, hence 0.9 rather than 10/12).
    assert max(rows["zero3"]["model_state_bytes_per_rank"]) < 0.9 * min(rows["zero2"]["model_state_bytes_per_rank"])
    # The gradient partition (plus the parameters that straddle its edges) is about half of the gradients.
    zero2_grads = [r["memory"]["gradients_bytes"] for r in results["zero2"]]
    assert max(zero2_grads) < 0.6 * 4 * cfg.model.num_parameters()
    calls = {name: results[name][0]["comm_per_step"] for name in rows}
    assert calls["zero1"]["reduce/zero"]["calls"] > 2  # several buckets, each reduced to both owners
    assert calls["zero3"]["reduce_scatter_tensor/zero"]["calls"] > 1


@pytest.mark.multiprocess
def test_hybrid_matches_single_process_and_its_models(tmp_path):
    section = SECTION | {"strategies": ["hybrid_fsdp_tp"], "loss_rtol": 1e-4}
    cfg = SurveyConfig.from_config(section, seed=11)
    results = run_workers(cfg, section, nproc=2, log_path=tmp_path / "log", timeout_s=400)
    rows = analyse(cfg, results, {"gpt": train_reference(cfg, "gpt")})
    row = rows["hybrid_fsdp_tp"]
    assert row["loss_matches_single_process"], row["max_rel_loss_diff"]
    assert row["processes"] == 4
    assert row["bytes_match_analytic"] and row["memory_match_analytic"]
