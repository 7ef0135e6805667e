"""Sparse subnetworks under torchrun (2 processes): the sparse run equals the dense run on unpruned entries,
and its bytes and stored bytes equal the analytic model's."""

import pytest

from workflow_scripts.disttrain.models import GPT, GPTConfig
from workflow_scripts.disttrain.sparse.run import analyse, project, run_workers
from workflow_scripts.disttrain.sparse.train import SparseConfig, analytic, magnitude_masks

SECTION = {"model": {"vocab_size": 32, "block_size": 8, "n_layer": 2, "n_head": 2, "n_embd": 16},
           "densities": [0.25], "global_batch": 4, "steps": 3, "lr": 0.003, "compute_dtype": "bfloat16"}  # fmt: skip
MACHINE = {"name": "test", "devices_per_node": 4, "intra_node": {"alpha_s": 1e-6, "beta_bytes_per_s": 1e11},
           "inter_node": {"alpha_s": 1e-5, "beta_bytes_per_s": 1e10}, "device_memory_bytes": 1.6e10}  # fmt: skip


def test_masks_keep_the_density_of_every_linear_weight():
    model = GPT(GPTConfig(**SECTION["model"]))
    masks = magnitude_masks(model, 0.25)
    assert "tok_emb.weight" not in masks and "head.weight" in masks
    for name, mask in masks.items():
        assert int(mask.sum()) == round(0.25 * mask.numel()), name
    cfg = SparseConfig.from_config(SECTION, seed=0)
    dense, sparse = analytic(cfg, 0.25, sparse=False), analytic(cfg, 0.25, sparse=True)
    assert dense["all_reduce_bytes"] == 4 * cfg.model.num_parameters()
    assert sparse["all_reduce_bytes"] < 0.5 * dense["all_reduce_bytes"]


def test_projection_follows_4_plus_12d():
    proj = project({"parameters": 2.7e9, "devices": 512, "prunable_fraction": 1.0, "usable_memory_fraction": 0.75,
                    "densities": [0.1]}, MACHINE)["by_density"][0]  # fmt: skip
    assert proj["sparse_bytes_per_parameter"] == pytest.approx(4 + 12 * 0.1)
    assert proj["sparse_pipeline_stages"] < proj["dense_pipeline_stages"]
    assert proj["sparse_allreduce_s"] < proj["dense_allreduce_s"]


@pytest.mark.multiprocess
def test_sparse_training_equals_dense_on_unpruned_entries(tmp_path):
    cfg = SparseConfig.from_config(SECTION, seed=3)
    rows = analyse(cfg, run_workers(SECTION, 3, nproc=2, log_path=tmp_path / "log", timeout_s=300), 1e-6)
    dense, sparse = rows
    assert sparse["weights_match_dense"] and sparse["max_abs_pruned_weight"] == 0.0
    assert sparse["losses"] == pytest.approx(dense["losses"], rel=1e-6)
    assert dense["bytes_match_analytic"] and sparse["bytes_match_analytic"]
    assert dense["memory_match_analytic"] and sparse["memory_match_analytic"]
    assert sparse["all_reduce_bytes_per_step"] < dense["all_reduce_bytes_per_step"]
