"""`snakemake monitoring` end to end on a small synthetic system, in a temporary copy of the repository."""

import json
import os
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_snakemake
from tests.monitoring.conftest import SITE_APPS, SITE_REAL, SMALL_APPS, write_site_runtimes

SMALL = {
    "monitoring": {
        "synthetic": {"days": 12, "sample_interval_s": 1800, "groups": 2, "routers_per_group": 2,
                      "nodes_per_router": 2, "runs_per_app_per_day": 8, "change_point_day": 5, "apps": SMALL_APPS},
        "models": {"gbm": {"max_iter": 60}, "mlp": {"hidden_layers": [16], "max_iter": 100}},
        "analysis": {"permutation_repeats": 3, "change_point_permutations": 49},
    }
}  # fmt: skip
# --configfile takes several files, so it goes last: small.yaml overrides the tiny default.
CONFIG_FILES = ("--configfile", "config/config.yaml", "small.yaml")


@pytest.mark.integration
def test_monitoring_target_runs_and_reruns_only_what_a_change_touches(workflow_dir):
    work = workflow_dir
    (work / "small.yaml").write_text(yaml.safe_dump(SMALL))
    run = run_snakemake(work, "monitoring", *CONFIG_FILES, timeout=300, env=os.environ | {"OMP_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-4000:]

    summary = json.loads((work / "results/monitoring/summary.json").read_text())
    for key in ("importance_spearman", "mape", "loao_mape", "permuted_label_control", "change_points",
                "change_point_recovery", "verdicts", "checks", "recovery_failures"):  # fmt: skip
        assert key in summary, key
    assert summary["mode"] == "counters" and summary["needs_counters"] is None
    assert set(summary["loao_mape"]) == {"netapp", "ioapp", "quiet"}
    assert set(summary["mape"]["per_app"]) == {"gbm", "mlp", "linear", "last_run", "rolling_median"}
    assert summary["top_counters"]["netapp"][0] in {"rtr_stalled_cycles_per_s", "nic_stalled_cycles_per_s"}
    assert summary["top_counters"]["ioapp"][0] in {"fs_wait_ms_per_s", "fs_read_bytes_per_s", "fs_write_bytes_per_s"}
    for name in ("runtime_variability", "predicted_vs_measured", "top_features", "loao_error"):
        figure = work / f"results/monitoring/figures/{name}.png"
        assert figure.stat().st_size > 10_000 and Path(str(figure) + ".prov.json").exists()

    # A model parameter changes: models and everything after rerun, data and features do not.
    changed = json.loads(json.dumps(SMALL))
    changed["monitoring"]["models"]["train_fraction"] = 0.6
    (work / "small.yaml").write_text(yaml.safe_dump(changed))
    dry = run_snakemake(work, "monitoring", "-n", "--quiet", "rules", *CONFIG_FILES, timeout=300,
                        env=os.environ | {"OMP_NUM_THREADS": "1"})  # fmt: skip
    assert dry.returncode == 0, dry.stderr[-3000:]
    planned = dry.stdout + dry.stderr
    assert "monitoring_models" in planned and "monitoring_summary" in planned
    assert "monitoring_data" not in planned and "monitoring_features" not in planned


RUNTIMES = {
    "monitoring": {
        "source": "runtimes",
        "real": {"run_table": "site_runtimes.csv", **SITE_REAL},
        "models": {"gbm": {"max_iter": 60}, "mlp": {"hidden_layers": [16], "max_iter": 100}},
        "analysis": {"permutation_repeats": 3, "change_point_permutations": 99},
    }
}  # fmt: skip


@pytest.mark.integration
def test_a_run_time_table_alone_runs_through_the_study(workflow_dir):
    work = workflow_dir
    planted = write_site_runtimes(work / "site_runtimes.csv")
    (work / "runtimes.yaml").write_text(yaml.safe_dump(RUNTIMES))
    run = run_snakemake(work, "monitoring", "--configfile", "config/config.yaml", "runtimes.yaml", timeout=300,
                        env=os.environ | {"OMP_NUM_THREADS": "1"})  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    summary = json.loads((work / "results/monitoring/summary.json").read_text())
    assert summary["mode"] == "runtime_only" and summary["needs_counters"]
    assert summary["importance_spearman"] is None  # nothing planted to compare with
    assert summary["dropped_features"] == {}
    assert set(summary["mape"]["per_app"]) == {"gbm", "mlp", "linear", "last_run", "rolling_median"}
    assert summary["r2"]["per_app"]["gbm"]["all"] is None  # no R2 of seconds pooled over apps
    # The field case: MILC's 38 runs all precede the cutoff, so it is left out of the models, with the reason,
    # and its change points are found like the others'.
    assert set(summary["left_out_of_models"]) == {"MILC"}
    assert summary["left_out_of_models"]["MILC"]["reason"].startswith("app MILC: 38 training and 0 test runs")
    assert summary["modelled_apps"] == ["AMG", "UMT", "miniVite"]
    assert set(summary["verdicts"]["per_app/gbm"]) == set(SITE_APPS) - {"MILC"}
    for app, steps in planted.items():
        found = summary["change_points"][app]["steps"]
        big = sorted(sorted(found, key=lambda s: -abs(s["effect"]))[: len(steps)], key=lambda s: s["time_s"])
        assert len(big) == len(steps), (app, found)
        for (planted_s, change), step in zip(steps, big, strict=True):
            assert abs(step["time_s"] - planted_s) < 86400, (app, step)  # within a day (runs are ~10 h apart)
            assert step["effect"] == pytest.approx(change, abs=0.03) and step["p_value"] <= 0.02
            assert step["date"] and step["runs_before"] > 0
        assert all(abs(s["effect"]) < 0.05 for s in found if s not in big)
    amg = max(summary["change_points"]["AMG"]["steps"], key=lambda s: abs(s["effect"]))
    assert amg["index"] == 25  # the field case: 25 of 168 runs before a 19.5 % drop
    for name in ("runtime_variability", "predicted_vs_measured", "top_features", "loao_error"):
        assert (work / f"results/monitoring/figures/{name}.png").stat().st_size > 10_000
