"""The study's steps end to end through their main() functions on tiny settings, and the config checks."""

import json
from pathlib import Path

import pytest
import torch

from tests.conftest import run_snakemake
from workflow_scripts.jorge import cost_model, figures, hparam, numerics, step_cost, summary, train
from workflow_scripts.jorge.tasks import BenchmarkTaskConfig, build_task

TINY_DIGITS = {"kind": "image", "source": "digits", "model": "cnn", "width": 2, "epochs": 2, "batch_size": 128,
               "target": 0.5}  # fmt: skip
TINY_LM = {"kind": "lm", "vocab_size": 4, "context_tokens": 2, "train_tokens": 2000, "eval_tokens": 500,
           "embed_dim": 4, "hidden_dim": 8, "epochs": 2, "batch_size": 128, "target": 0.3}  # fmt: skip
OPTIMIZERS = {
    "sgd": {"transfer_from_sgd": True},
    "adamw": {"transfer_from_sgd": False, "lr": 0.01},
    "jorge": {"transfer_from_sgd": True, "decay": 0.9},
    "shampoo": {"transfer_from_sgd": True, "decay": 0.9},
}


def test_pipeline_end_to_end(tmp_path):
    grids, runs = [], []
    for task_name, task in (("digits", TINY_DIGITS), ("lm", TINY_LM)):
        grid_path = tmp_path / task_name / "sgd_grid.json"
        grid = hparam.main(task_config=task, grid_config={"lrs": [0.05, 0.2], "weight_decays": [0.0], "grid_epochs": 1},
                           task_name=task_name, output=str(grid_path), seed=1, device="cpu")  # fmt: skip
        assert grid["best"]["lr"] in (0.05, 0.2) and len(grid["points"]) == 2
        assert (tmp_path / task_name / "sgd_grid.json.prov.json").exists()
        grids.append(str(grid_path))
        for name, opt in OPTIMIZERS.items():
            out = tmp_path / task_name / f"{name}.json"
            result = train.main(task_config=task, optimizer_config=opt, optimizer_name=name, task_name=task_name,
                                sgd_grid=str(grid_path) if opt["transfer_from_sgd"] else None, output=str(out),
                                seed=1, device="cpu")  # fmt: skip
            if opt["transfer_from_sgd"]:  # hyperparameter transfer: SGD's tuned settings, untouched
                assert result["hparams"]["lr"] == grid["best"]["lr"]
                assert result["hparams"]["weight_decay"] == grid["best"]["weight_decay"]
            assert len(result["history"]) == task["epochs"] + 1
            assert result["optimizer_step_time_s"]["n"] == result["steps"] > 0
            runs.append(str(out))
    num = numerics.main(numerics_config={"rows": 6, "cols": 8, "steps": 30, "decays": [0.5, 0.99],
                                         "gradient_ranks": [6, 1]}, output=str(tmp_path / "numerics.json"), seed=1)  # fmt: skip
    assert num["fault_injection"]["weights_finite"] and not num["fault_injection"]["nonfinite_step_changed_weights"]
    assert num["fault_injection"]["divergence_counts"]["steps_skipped_nonfinite"] == 1
    assert any(b["decay"] == 0.5 for b in num["findings"]["bare_series_breakdowns"])
    cost = step_cost.main(step_cost_config={"sizes": [8, 16], "repeats": 3, "warmup": 1, "batch_size": 8},
                          output=str(tmp_path / "step_cost.json"), seed=1,
                          optimizers={"shampoo": {"precondition_frequency": 2}})  # fmt: skip
    assert [row["size"] for row in cost["rows"]] == [8, 16]
    assert cost["optimizer_settings"]["shampoo"]["precondition_frequency"] == 2
    for row in cost["rows"]:
        assert set(row["iteration_s"]) == set(OPTIMIZERS) and row["precondition_frequency"]["shampoo"] == 2
        assert all(v["counted"] == pytest.approx(v["formula"]) for v in row["flops_per_iteration"].values())
    projection = cost_model.main(step_cost=str(tmp_path / "step_cost.json"), output=str(tmp_path / "projection.json"),
                                 projection_config={"models": {"lm": {"arch": "ngram_lm", "batch_size": 32, "vocab_size": 8,
                                                                      "embed_dim": 4, "hidden_dim": 8}},
                                                    "crossover_sizes": [8, 64]})  # fmt: skip
    assert set(projection["models"]["lm"]["machines"]) == {"measured", "gpu_assumed"}
    assert projection["models"]["lm"]["forward_backward_flops"]["counted"] == projection["models"]["lm"]["forward_backward_flops"]["formula"]
    pngs = {name: str(tmp_path / f"{name}.png") for name in figures.FIGURES}
    for name, path in pngs.items():
        figures.main(figure=name, output=path, runs=runs, numerics=str(tmp_path / "numerics.json"),
                     step_cost=str(tmp_path / "step_cost.json"), cost_projection=str(tmp_path / "projection.json"))  # fmt: skip
    for path in pngs.values():
        assert Path(path).read_bytes()[:4] == b"\x89PNG"
    out = summary.main(runs=runs, grids=grids, numerics=str(tmp_path / "numerics.json"),
                       step_cost=str(tmp_path / "step_cost.json"), cost_projection=str(tmp_path / "projection.json"),
                       output=str(tmp_path / "summary.json"))  # fmt: skip
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert set(on_disk["tasks"]) == {"digits", "lm"}
    for task in on_disk["tasks"].values():
        assert set(task["optimizers"]) == set(OPTIMIZERS)
        for row in task["optimizers"].values():
            assert {"epochs_to_target", "wall_clock_to_target_s", "final_metric", "step_time_s"} <= set(row)
        assert "jorge_epochs_not_more_than_shampoo" in task["claims"]
        for other in ("sgd", "adamw", "shampoo"):
            assert task["claims"][f"iteration_time_ratio_jorge_over_{other}"] > 0
    assert out["notes"] and on_disk["divergence_handling"]["fault_injection"]["weights_finite"]
    for row in on_disk["step_cost"]["by_size"]:
        assert {"jorge_over_sgd_iteration", "jorge_over_adamw_iteration", "jorge_over_shampoo_iteration",
                "jorge_over_sgd_step", "iteration_s", "forward_backward_s"} <= set(row)  # fmt: skip
    projected = on_disk["cost_projection"]
    for machine in ("measured", "gpu_assumed"):
        assert {"jorge_over_sgd", "jorge_over_adamw", "jorge_over_shampoo"} <= set(projected["models"]["lm"][machine]["ratios"])
        assert {"jorge_update_faster_at", "jorge_update_faster_from", "jorge_iteration_faster_at"} <= set(
            projected["jorge_vs_shampoo"][machine])
    assert "jorge_update_faster_at" in projected["jorge_vs_shampoo"]["measured_rows"]
    assert any("ASSUMED GPU" in note for note in on_disk["notes"])


def test_lm_optimum_is_the_chain_cross_entropy():
    cfg = BenchmarkTaskConfig(name="lm", **TINY_LM)
    task = build_task(cfg, seed=3)
    assert 0.0 < task.optimum_loss < torch.log(torch.tensor(4.0)).item()
    assert task.target_metric == pytest.approx(task.optimum_loss + 0.3)
    assert task.x_train.shape[1] == 2 and task.make_model()(task.x_eval[:5]).shape == (5, 4)


def test_same_seed_same_data_and_split_never_leaks_test():
    cfg = BenchmarkTaskConfig(name="digits", **TINY_DIGITS)
    a, b = build_task(cfg, seed=5), build_task(cfg, seed=5)
    assert torch.equal(a.x_train, b.x_train) and torch.equal(a.y_eval, b.y_eval)
    val = build_task(cfg, seed=5, validation=True)
    assert len(val.x_train) + len(val.x_eval) == len(a.x_train)  # validation is carved from training data


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: BenchmarkTaskConfig(name="t", kind="video", epochs=1, batch_size=1, target=0.5), "kind"),
        (lambda: BenchmarkTaskConfig(name="t", kind="image", epochs=1, batch_size=1, target=1.5), "target"),
        (lambda: BenchmarkTaskConfig(name="t", kind="image", source="npz", epochs=1, batch_size=1, target=0.5), "npz_path"),
        (lambda: train.OptimizerConfig(name="adamw", transfer_from_sgd=True), "transfer_from_sgd"),
        (lambda: train.OptimizerConfig(name="sgd", transfer_from_sgd=True, lr_schedule="step"), "lr_schedule"),
        (lambda: hparam.GridConfig(lrs=[], weight_decays=[0.0]), "lrs"),
        (lambda: numerics.NumericsConfig(gradient_ranks=[99]), "gradient_ranks"),
        (lambda: step_cost.StepCostConfig(sizes=[8], repeats=1), "repeats"),
    ],
)
def test_bad_config_names_the_field(build, field):
    with pytest.raises(ValueError, match=field):
        build()


@pytest.mark.integration
def test_snakemake_dry_run_and_schema(workflow_dir):
    work = workflow_dir
    dry = run_snakemake(work, "-n", "jorge", cores=1, timeout=120)
    assert dry.returncode == 0, dry.stderr + dry.stdout
    for rule, count in (("jorge_train", 8), ("jorge_sgd_grid", 2), ("jorge_numerics", 1), ("jorge_step_cost", 1),
                        ("jorge_cost_projection", 1)):  # fmt: skip
        assert any(line.split() == [rule, str(count)] for line in dry.stdout.splitlines()), dry.stdout
    bad = work / "bad.yaml"
    bad.write_text("jorge:\n  optimizers:\n    jorge: {transfer_from_sgd: true, series_guard: clip}\n")
    rejected = run_snakemake(work, "-n", "jorge", "--configfile", str(bad), cores=1, timeout=120)
    assert rejected.returncode != 0
    assert "series_guard" in rejected.stderr + rejected.stdout


MICRO_JORGE = {
    "threads": 1,
    "tasks": {"lm": TINY_LM | {"epochs": 1}},
    "optimizers": {"sgd": OPTIMIZERS["sgd"], "jorge": OPTIMIZERS["jorge"]},
    "sgd_grid": {"lrs": [0.1], "weight_decays": [0.0], "grid_epochs": 1},
    "numerics": {"rows": 4, "cols": 6, "steps": 10, "decays": [0.9], "gradient_ranks": [4], "curve_points": 5},
    "step_cost": {"sizes": [8], "repeats": 3, "warmup": 0, "batch_size": 8},
    "projection": {"models": {"lm": {"arch": "ngram_lm", "batch_size": 32, "vocab_size": 4, "context_tokens": 2,
                                     "embed_dim": 4, "hidden_dim": 8}}, "crossover_sizes": [8, 64]},
}


@pytest.mark.integration
def test_snakemake_runs_jorge_and_reruns_only_the_changed_optimizer(workflow_dir):
    import yaml

    work = workflow_dir
    config_path = work / "config" / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    config["jorge"] = MICRO_JORGE
    config_path.write_text(yaml.safe_dump(config))
    run = run_snakemake(work, "jorge", timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads((work / "results/jorge/summary.json").read_text())
    assert set(result["tasks"]["lm"]["optimizers"]) == {"sgd", "jorge"}
    for figure in ("convergence_epochs", "convergence_time", "factor_error", "step_cost", "per_iteration_cost"):
        assert (work / f"results/jorge/figures/{figure}.png").stat().st_size > 0
    # Change one Jorge setting: only Jorge's run (and the figures and summary that read it) are redone.
    config["jorge"]["optimizers"]["jorge"]["decay"] = 0.8
    config_path.write_text(yaml.safe_dump(config))
    dry = run_snakemake(work, "-n", "jorge", timeout=120)
    assert dry.returncode == 0, dry.stderr[-3000:]
    scheduled = {line.split()[0] for line in dry.stdout.splitlines() if line.startswith("jorge") and len(line.split()) == 2}
    assert scheduled == {"jorge", "jorge_train", "jorge_figure_convergence_epochs", "jorge_figure_convergence_time",
                         "jorge_summary", "jorge_headline_table", "jorge_summary_table"}, dry.stdout  # fmt: skip
    assert "output: results/jorge/lm/jorge.json" in dry.stdout
    assert "output: results/jorge/lm/sgd.json" not in dry.stdout


def test_figure_names_and_missing_input_are_reported(tmp_path):
    with pytest.raises(ValueError, match="unknown"):
        figures.main(figure="loss_landscape", output=str(tmp_path / "x.png"))
    with pytest.raises(ValueError, match="numerics"):
        figures.main(figure="factor_error", output=str(tmp_path / "x.png"), runs=["a.json"])
