"""Both targets end to end (the shared run of conftest.py): summaries, figures and provenance records."""

import json

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.multiprocess]


def test_both_targets_write_summaries_figures_and_provenance(layer_run):
    tmp_path, _ = layer_run
    t3d = json.loads((tmp_path / "results/disttrain/tensor3d/summary.json").read_text())
    assert t3d["validation"]["decompositions"] == 10
    assert t3d["validation"]["all_bytes_match_model"] is True
    assert t3d["validation"]["max_abs_error_vs_serial_float64"] < 1e-12
    assert -1 <= t3d["validation"]["spearman_model_vs_measured"] <= 1
    projection = t3d["projection"]
    assert projection["best_megatron"]["grid"].startswith("r") and projection["best_3d"]["time_s"] > 0
    assert projection["best_3d"]["time_s"] <= projection["best_megatron"]["time_s"]
    assert projection["time_reduction_vs_megatron"] == pytest.approx(
        1 - projection["best_3d"]["time_s"] / projection["best_megatron"]["time_s"])

    moe = json.loads((tmp_path / "results/disttrain/moe/summary.json").read_text())
    assert moe["validation"]["all_to_all_calls_per_step"]["checkpoint"] == 6
    assert moe["validation"]["all_to_all_calls_per_step"]["checkpoint_comm_aware"] == 4
    assert moe["validation"]["all_to_all_bytes_reduction_dtd"] == 2
    assert all(moe["validation"]["bitwise_equal_to_plain"].values())
    assert moe["projection"]["step_time_s_with"] < moe["projection"]["step_time_s_without"]

    for study, figures in (("tensor3d", ("bytes", "ranking", "projection", "overlap")),
                           ("moe", ("all_to_all", "optimizer_memory", "projection"))):  # fmt: skip
        folder = tmp_path / "results/disttrain" / study
        assert (folder / "summary.json.prov.json").exists()
        for fig in figures:
            path = folder / "figures" / f"{study}_{fig}.png"
            assert path.stat().st_size > 5000 and (path.parent / (path.name + ".prov.json")).exists()
