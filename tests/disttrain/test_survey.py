"""Survey strategies under torchrun (2 processes): same losses as one process, bytes and memory as modelled."""

import pytest

from workflow_scripts.disttrain.survey.run import analyse, run_workers
from workflow_scripts.disttrain.survey.strategies import SurveyConfig, analytic_bytes, train_reference

SECTION = {"model": {"vocab_size": 32, "block_size": 8, "n_layer": 2, "n_head": 2, "n_embd": 16},
           "cnn": {"channels": 4, "image_size": 8, "num_classes": 4},
           "strategies": ["ddp", "ddp_cnn", "fsdp2", "tp", "pp_gpipe", "pp_1f1b"], "global_batch": 8, "steps": 3,
           "microbatches": 4, "lr": 0.003, "hybrid_processes": 4, "loss_rtol": 1e-5}  # fmt: skip


def test_process_counts_that_do_not_fit_name_the_fits():
    cfg = SurveyConfig.from_config(SECTION, seed=0)
    with pytest.raises(ValueError, match="tensor-parallel processes that would fit: 1, 2"):
        cfg.check_world("tp", 3)
    with pytest.raises(ValueError, match="pipeline stages that would fit: 1, 2"):
        cfg.check_world("pp_1f1b", 4)
    with pytest.raises(ValueError, match="unknown"):
        SurveyConfig.from_config(SECTION | {"strategies": ["megatron"]}, seed=0)


def test_analytic_models_scale_with_the_grid():
    cfg = SurveyConfig.from_config(SECTION, seed=0)
    n = cfg.model.num_parameters()
    assert analytic_bytes(cfg, "ddp", 0, 2) == {"all_reduce/grad": 4 * n}
    fsdp = analytic_bytes(cfg, "fsdp2", 0, 2)
    assert fsdp["reduce_scatter_tensor/grad_scatter"] == 4 * n  # no padding at these widths
    assert 4 * n < fsdp["all_gather_into_tensor/param_gather"] < 8 * n  # blocks gathered twice, the root once
    hybrid = analytic_bytes(cfg, "hybrid_fsdp_tp", 0, 4)
    assert hybrid["reduce_scatter_tensor/grad_scatter"] < 4 * n  # the tensor-parallel shard, not the model


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
def test_deepspeed_zero_and_the_hybrid_match_single_process(tmp_path):
    section = SECTION | {"strategies": ["zero1", "zero3", "hybrid_fsdp_tp"], "loss_rtol": 1e-4}
    cfg = SurveyConfig.from_config(section, seed=11)
    results = run_workers(cfg, section, nproc=2, log_path=tmp_path / "log", timeout_s=400)
    rows = analyse(cfg, results, {"gpt": train_reference(cfg, "gpt")})
    for name, row in rows.items():
        assert row["loss_matches_single_process"], (name, row["max_rel_loss_diff"])
    # ZeRO-3 moves the textbook 1.5x of DDP's volume (parameters gathered in forward and backward, gradients
    # reduce-scattered) up to a few bytes of flags per step (2% of this tiny model).
    assert rows["zero3"]["measured_over_textbook_wire"] == pytest.approx(1.0, abs=0.05)
    assert rows["hybrid_fsdp_tp"]["processes"] == 4
    assert rows["hybrid_fsdp_tp"]["bytes_match_analytic"] and rows["hybrid_fsdp_tp"]["memory_match_analytic"]
