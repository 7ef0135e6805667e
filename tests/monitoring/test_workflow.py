"""`snakemake monitoring` end to end on a small synthetic system, in a temporary copy of the repository."""

import json
import os
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_snakemake
from tests.monitoring.conftest import SMALL_APPS

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


# A site's run-time table: four apps over 90 days, its own column names, local times in its own format.
SITE_APPS = {  # app: (base run time s, runs, [(day of the step, relative change)])
    "AMG": (600, 168, [(None, -0.195)]),  # the step falls after the 25th run (below)
    "MILC": (900, 220, [(60, 0.11)]),
    "miniVite": (300, 200, []),
    "UMT": (1200, 240, [(30, 0.15), (70, -0.10)]),
}
SITE_ZONE = "America/Chicago"
RUNTIMES = {
    "monitoring": {
        "source": "runtimes",
        "real": {"run_table": "site_runtimes.csv", "time_format": "%Y-%m-%d_%H-%M-%S", "time_zone": SITE_ZONE,
                 "columns": {"app": "application", "start": "started", "job_id": "jobid", "run_time": "elapsed_s",
                             "nodes": "nnodes"}},
        "models": {"gbm": {"max_iter": 60}, "mlp": {"hidden_layers": [16], "max_iter": 100}},
        "analysis": {"permutation_repeats": 3, "change_point_permutations": 99},
    }
}  # fmt: skip


def write_site_runtimes(path, seed=3) -> dict:
    """The table, and each app's planted steps as (UTC seconds between the runs either side, relative change)."""
    import datetime as dt
    import zoneinfo

    import numpy as np

    rng = np.random.default_rng(seed)
    zone = zoneinfo.ZoneInfo(SITE_ZONE)
    start = dt.datetime(2025, 1, 6, tzinfo=dt.UTC).timestamp()
    lines, planted, job = ["application,started,jobid,elapsed_s,nnodes"], {}, 1000
    for app, (base_s, n, steps) in SITE_APPS.items():
        starts = np.sort(start + rng.uniform(0, 90 * 86400, n)).round()
        level = np.zeros(n)
        planted[app] = []
        for day, change in steps:
            at = 25 if day is None else int(np.searchsorted(starts, start + day * 86400))
            level[at:] += np.log1p(change)
            planted[app].append(((starts[at - 1] + starts[at]) / 2, change))
        run_times = base_s * np.exp(level + 0.03 * rng.standard_normal(n))
        for when, run_time in zip(starts, run_times, strict=True):
            local = dt.datetime.fromtimestamp(when, zone).strftime("%Y-%m-%d_%H-%M-%S")
            job += 1
            lines.append(f"{app},{local},{job}.batch,{run_time:.1f},{8 if app != 'miniVite' else 4}")
    path.write_text("\n".join(lines) + "\n")
    return planted


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
    assert set(summary["verdicts"]["per_app/gbm"]) == set(SITE_APPS)
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
