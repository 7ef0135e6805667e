"""Both targets end to end (the shared run of conftest.py): summaries, figures and provenance records; a deleted
figure is planned and redrawn alone."""

import json

import pytest

from tests.conftest import run_snakemake

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

    # Each summary says which assumption moves its gap to the paper most, from the sensitivity rule's table.
    for summary, metrics in ((t3d, ["time_reduction_vs_megatron"]), (moe, ["speedup", "base_size_ratio"])):
        assert sorted(summary["sensitivity"]) == sorted(metrics)
        for metric in metrics:
            entry = summary["sensitivity"][metric]
            assert entry["largest_swing"] == entry["table"][0]["assumption"] and len(entry["table"]) == 3
            assert entry["configured"] == pytest.approx(
                t3d["projection"]["time_reduction_vs_megatron"] if metric.startswith("time") else moe["projection"][metric])
    for study in ("tensor3d", "moe"):
        table = (tmp_path / "results/disttrain" / study / "sensitivity.csv").read_text().splitlines()
        assert table[0].startswith("assumption,group,config_keys,value") and len(table) > 3 * 3

    for study, figures in (("tensor3d", ("bytes", "ranking", "projection", "overlap", "sensitivity")),
                           ("moe", ("all_to_all", "optimizer_memory", "projection", "sensitivity"))):  # fmt: skip
        folder = tmp_path / "results/disttrain" / study
        assert (folder / "summary.json.prov.json").exists()
        for fig in figures:
            path = folder / "figures" / f"{study}_{fig}.png"
            assert path.stat().st_size > 5000 and (path.parent / (path.name + ".prov.json")).exists()


def test_a_deleted_figure_is_redrawn_alone(layer_run):
    root, _ = layer_run
    figures = {"disttrain_figure_tensor3d_ranking": "results/disttrain/tensor3d/figures/tensor3d_ranking.png",
               "disttrain_figure_moe_projection": "results/disttrain/moe/figures/moe_projection.png"}  # fmt: skip
    for path in figures.values():
        (root / path).unlink()
    targets = ["disttrain_tensor3d", "disttrain_moe"]  # before --quiet, which takes several values
    dry = run_snakemake(root, "-n", *targets, "--quiet", "rules", cores=None, timeout=120)
    assert dry.returncode == 0, dry.stderr[-3000:]
    planned = {line.split()[0] for line in dry.stdout.splitlines() if line.startswith("disttrain")}
    # Also MoE's front-page fragment, which shows moe_projection inline (data/headlines.yaml); Tensor3D's shows other
    # figures.
    assert planned == {*figures, *targets, "disttrain_moe_headline_table"}, dry.stdout
    # Redraw them, so the shared run is whole again for the other tests.
    run = run_snakemake(root, *targets, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert all((root / path).stat().st_size > 5000 for path in figures.values())
