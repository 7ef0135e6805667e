"""The study's headline numbers, and on synthetic data whether the pipeline recovered what was planted.

summary.json holds:
  mode                     "counters" (synthetic or LDMS) or "runtime_only" (source runtimes)
  needs_counters           in run-time-only mode, the parts of the study that need counters and so are
                           not measured here (null otherwise)
  mape, r2                 {family: {model: {app: value}}} on the test runs (family per_app, agnostic,
                           control); "all" pools the apps: its MAPE, and no pooled R2 of seconds (it would
                           reflect only the apps' different scales); r2_log_within_app instead
  verdicts                 {family/model: {app: verdict}}: each model against the better baseline (last
                           run, rolling median) and the permuted-label control; not_better_than_baseline
                           lists where a model is not better
  change_points            {series: {"steps": [{date, effect, p_value, runs_before, runs_after}],
                           "drifts": [...], "candidate": the first split tested, significant or not}}
  dropped_features         (near-)constant features, dropped before fitting and never ranked
  modelled_apps            the apps the models were fitted and scored on
  left_out_of_models       {app: {reason, n_runs, n_train, n_test, baselines}}: apps with too few runs on one
                           side of the cutoff for the models; their change points are reported like any
                           other app's, and the last-run and rolling-median baselines' MAPE over their runs
  loao_mape                {held-out app: {gbm, mlp}}: the app-agnostic models on an app left out of training
  best_achievable_mape     {app: MAPE of the noiseless run time} (synthetic only)
  top_counters             {app: up to three counters with the largest positive grouped permutation
                           importance (a group whose shuffling does not raise the error is not listed)}
  importance_spearman      {per_app: {app: rho}, pooled: rho, agnostic: rho}: rank correlation of each
                           counter's importance with its planted effect, over the drivers, distractors
                           and the non-causal counter (redundant proxies are left out: they carry the
                           driver's signal without being the planted cause). A counter's importance is
                           that of its cluster of strongly correlated counters (analysis.py), since
                           redundant counters cannot be told apart from data; per_app_unclustered
                           gives the counter-by-counter figure
  drivers_above_distractors {app: every driver with a planted effect ranks above every distractor}
  permuted_label_control   the features the control calls important (expected: none)
  change_point_recovery    (synthetic) the planted change and the days from it to the nearest step found
  checks                   each "Done when" criterion: passed, and the numbers behind it
  recovery_failures        where recovery fails, in words
On real data (no truth) the comparisons are null and only the measured numbers are reported.

Run: `snakemake monitoring` (rule monitoring_summary), or `main(analysis_path=..., truth_path=..., ...)`.
"""


import datetime as dt
import logging

import numpy as np
from scipy.stats import spearmanr

from workflow_scripts.common import Provenance, read_json, snakemake_step, write_json

logger = logging.getLogger(__name__)

# Recovery checks: importance must rank the counters like their planted effects (Spearman rho above
# SPEARMAN_MIN), and the change point must be found within CHANGE_POINT_MAX_DAYS of the planted one with a
# p-value of at most CHANGE_POINT_MAX_P.
SPEARMAN_MIN = 0.7
CHANGE_POINT_MAX_DAYS = 1.0
CHANGE_POINT_MAX_P = 0.05
# Reported as recovery failures (not checks): a held-out app's MAPE above LOAO_MAX_RATIO x its per-app
# model's, and a per-app MAPE above BEST_ACHIEVABLE_MAX_RATIO x the noise floor (best achievable MAPE).
LOAO_MAX_RATIO = 1.5
BEST_ACHIEVABLE_MAX_RATIO = 2
EVALUATED_ROLES = ("driver", "distractor", "non_causal")


def _iso(time_s):
    return None if time_s is None else dt.datetime.fromtimestamp(time_s, dt.UTC).isoformat(timespec="minutes")


def _top_three(importance: dict[str, dict]) -> list[str]:
    """Up to three names with the largest positive mean importance, largest first."""
    return [name for name in sorted(importance, key=lambda name: -importance[name]["mean"])
            if importance[name]["mean"] > 0][:3]  # fmt: skip


# What the run-time-only route cannot measure, for the summary.
NEEDS_COUNTERS = [
    "dominant counters (importance of system-state counters: none were given)",
    "counter clusters and the permuted-label control of counter importance",
    "prediction from the system state before each run (the models see only time of day, day of week and, "
    "where given, the node count)",
    "leave-one-application-out generalisation from the system state (reported, but on those features only)",
]


def _change_point_report(change_points: dict) -> dict:
    """Each series' steps, drifts and first candidate, with dates."""
    out = {}
    for name, found in change_points.items():
        candidate = found["candidate"]
        out[name] = {
            "n": found["n"],
            "steps": [{"date": _iso(step["time_s"]), **step} for step in found["steps"]],
            "drifts": [{"from": _iso(d["start_s"]), "to": _iso(d["end_s"]), **d} for d in found["drifts"]],
            "candidate": None if candidate is None else {"date": _iso(candidate["time_s"]), **candidate},
        }
    return out


def _not_better(verdicts: dict) -> list[str]:
    return [f"{model} on {app}: {v['verdict']}" for model, apps in verdicts.items() for app, v in apps.items()
            if not v["better"]]  # fmt: skip


def importance_vs_truth(importance: dict[str, dict], roles: dict[str, str], effects: dict[str, float]) -> dict:
    """How one app's measured counter importance ranks against the planted effects: Spearman rho, whether
    every driver ranks above every other counter, each counter's rank, and the two series compared."""
    counters = [c for c, role in roles.items() if role in EVALUATED_ROLES and c in importance]
    measured = np.array([importance[c]["mean"] for c in counters])
    planted = np.array([effects.get(c, 0.0) for c in counters])
    rho = float(spearmanr(measured, planted).statistic) if np.ptp(planted) > 0 else None
    drivers = [c for c in counters if effects.get(c, 0.0) > 0]
    others = [c for c in counters if roles[c] != "driver"]
    above = bool(drivers) and min(importance[c]["mean"] for c in drivers) > max(importance[c]["mean"] for c in others)
    order = sorted(counters, key=lambda c: -importance[c]["mean"])
    return {
        "rho": rho,
        "drivers_above_distractors": above,
        "rank": {c: order.index(c) + 1 for c in counters},
        "measured": dict(zip(counters, measured.tolist(), strict=True)),
        "planted": dict(zip(counters, planted.tolist(), strict=True)),
    }


# --- what was measured (real and synthetic data) -----------------------------------------------------
def _metric_by_family(errors: dict, metric: str) -> dict:
    """{family: {model: {app: value}}} of one error metric ("mape" or "r2")."""
    return {
        family: {model: {app: scores[metric] for app, scores in apps.items()} for model, apps in models.items()}
        for family, models in errors.items()
    }


def _held_out_apps(errors: dict) -> list[str]:
    return sorted(app for app in errors["loao"]["gbm"] if app != "all")


def _loao_mape(errors: dict) -> dict:
    """{held-out app: {model: MAPE}} of the app-agnostic models on the app left out of their training."""
    loao = errors["loao"]
    return {app: {model: loao[model][app]["mape"] for model in loao} for app in _held_out_apps(errors)}


def _permuted_label_control(analysis: dict) -> dict:
    """What the models fitted to shuffled labels call important, beside the real models' largest importance."""
    control = analysis["control_important_features"]
    control_importance = analysis["importance"]["control"].values()
    real_importance = analysis["importance"]["per_app"].values()
    return {
        "important_features": control,
        "n_important": sum(len(found) for found in control.values()),
        "max_importance": max(v["mean"] for imp in control_importance for v in imp.values()),
        "max_importance_real_models": max(v["mean"] for imp in real_importance for v in imp.values()),
    }


def measured_summary(analysis: dict, source: str) -> dict:
    """The numbers reported whether or not anything was planted."""
    errors = analysis["errors"]
    importance = analysis["importance"]
    runtime_only = source == "runtimes"
    verdicts = analysis.get("verdicts", {})
    return {
        "source": source,
        "mode": "runtime_only" if runtime_only else "counters",
        "needs_counters": NEEDS_COUNTERS if runtime_only else None,
        "split": {**analysis["split"], "cutoff": _iso(analysis["split"]["cutoff_s"])},
        "mape": _metric_by_family(errors, "mape"),
        "r2": _metric_by_family(errors, "r2"),
        "loao_mape": _loao_mape(errors),
        "top_counters": {app: _top_three(imp) for app, imp in importance["per_app"].items()},
        "clusters": {name: members for name, members in analysis["clusters"].items() if len(members) > 1},
        "top_clusters": {app: _top_three(imp) for app, imp in importance["per_app_clusters"].items()},
        "important_counters": analysis["important_features"],
        "permuted_label_control": _permuted_label_control(analysis),
        "verdicts": {model: {app: v["verdict"] for app, v in apps.items()} for model, apps in verdicts.items()},
        "not_better_than_baseline": _not_better(verdicts),
        "dropped_features": analysis.get("dropped_features", {}),
        "modelled_apps": sorted(importance["per_app"]),
        "left_out_of_models": analysis.get("left_out_of_models", {}),  # {}: an analysis from before it (all modelled)
        "change_points": _change_point_report(analysis["change_points"]),
    }


# --- measured against planted (synthetic data) -------------------------------------------------------
def _importance_recovery(analysis: dict, truth: dict) -> tuple[dict, dict, dict]:
    """importance_vs_truth per app with each counter carrying its cluster's importance (redundant counters
    cannot be told apart from data), per app counter by counter, and for the app-agnostic model against the
    mean planted effect over the apps."""
    roles = truth["counter_roles"]
    importance = analysis["importance"]
    cluster_of = {c: name for name, members in analysis["clusters"].items() for c in members}

    def by_counter(cluster_importance: dict) -> dict:
        return {c: cluster_importance[name] for c, name in cluster_of.items()}

    apps = list(importance["per_app"])
    drivers = {app: truth["apps"][app]["drivers"] for app in apps}
    clustered = {
        app: importance_vs_truth(by_counter(importance["per_app_clusters"][app]), roles, drivers[app]) for app in apps
    }
    unclustered = {app: importance_vs_truth(importance["per_app"][app], roles, drivers[app]) for app in apps}
    planted_counters = next(iter(truth["apps"].values()))["planted_effect_log"]
    mean_effect = {
        c: float(np.mean([truth["apps"][app]["planted_effect_log"][c] for app in apps])) for c in planted_counters
    }
    agnostic = importance_vs_truth(by_counter(importance["agnostic_clusters"]), roles, mean_effect)
    return clustered, unclustered, agnostic


def _spearman(clustered: dict, unclustered: dict, agnostic: dict) -> dict:
    """Rank correlations of measured importance with the planted effect: per app, pooled over the apps'
    (counter, app) pairs, for the app-agnostic model, and per app counter by counter."""
    pooled_measured, pooled_planted = [], []
    for result in clustered.values():
        pooled_measured += list(result["measured"].values())
        pooled_planted += list(result["planted"].values())
    return {
        "per_app": {app: result["rho"] for app, result in clustered.items()},
        "pooled": float(spearmanr(pooled_measured, pooled_planted).statistic),
        "agnostic": agnostic["rho"],
        "per_app_unclustered": {app: result["rho"] for app, result in unclustered.items()},
    }


def _nearest_step(found: dict, planted_s: float) -> dict | None:
    return min(found["steps"], key=lambda step: abs(step["time_s"] - planted_s), default=None)


def _change_point_distance_days(analysis: dict, truth: dict) -> dict:
    """Days between the planted change and the nearest step found in each series (None where none was found)."""
    planted_s = truth["change_point"]["time_s"]
    nearest = {name: _nearest_step(found, planted_s) for name, found in analysis["change_points"].items()}
    return {name: None if step is None else abs(step["time_s"] - planted_s) / 86400 for name, step in nearest.items()}


def _recovery_failures(analysis, truth, summary, clustered, unclustered, distance_days, best) -> list[str]:
    """Every place where recovery fails, in words, in the order the checks are listed."""
    roles = truth["counter_roles"]
    mape_per_app_gbm = summary["mape"]["per_app"]["gbm"]
    failures = []
    # A cluster that mixes a driver with counters that have no effect: permutation moves them together.
    for name, members in analysis["clusters"].items():
        drivers_in = [c for c in members if roles.get(c) == "driver"]
        others_in = [c for c in members if roles.get(c) in ("distractor", "non_causal")]
        if drivers_in and others_in:
            failures.append(
                f"cluster {name}: driver(s) {drivers_in} move with {others_in}, so permutation cannot separate them"
            )
    # Counter by counter, a driver below the top len(drivers) places lost out to a redundant proxy.
    for app, result in unclustered.items():
        drivers = truth["apps"][app]["drivers"]
        misses = [c for c in drivers if result["rank"][c] > len(drivers)]
        if misses:
            failures.append(
                f"{app}: counter by counter, driver(s) {misses} rank below a distractor; the model leans on "
                "their redundant proxies instead, so only the counter's cluster is recovered"
            )
    # With clusters: a weak rank correlation, and each driver that ranks below the top places.
    for app, result in clustered.items():
        if result["rho"] is not None and result["rho"] <= SPEARMAN_MIN:
            failures.append(
                f"{app}: importance follows the planted effect only weakly (spearman {result['rho']:.2f})"
            )
        drivers = truth["apps"][app]["drivers"]
        for c, effect in drivers.items():
            if result["rank"][c] > len(drivers):
                failures.append(
                    f"{app}: driver {c} (planted effect {effect:.3f} in log run time) ranks {result['rank'][c]} "
                    f"of {len(result['rank'])}: below a distractor or the other driver"
                )
    for app, found in analysis["control_important_features"].items():
        if found:
            failures.append(
                f"permuted-label control ({app}) calls {found} important: a model fitted to shuffled labels "
                "still moves the error when they are shuffled (threshold analysis.important_min_rmse_increase)"
            )
    for name, days in distance_days.items():
        step = _nearest_step(analysis["change_points"][name], truth["change_point"]["time_s"])
        if step is None or days > CHANGE_POINT_MAX_DAYS or step["p_value"] > CHANGE_POINT_MAX_P:
            found = "no step" if step is None else f"nearest step {_iso(step['time_s'])} ({days:.2f} days away)"
            failures.append(f"change point ({name}): {found}, planted {truth['change_point'].get('date')}")
    for app in _held_out_apps(analysis["errors"]):
        held_out_mape = summary["loao_mape"][app]["gbm"]
        ratio = held_out_mape / max(mape_per_app_gbm[app], 1e-12)
        if ratio > LOAO_MAX_RATIO:
            failures.append(
                f"{app} held out: app-agnostic GBM MAPE {held_out_mape:.3f} is {ratio:.1f}x the per-app "
                f"model's {mape_per_app_gbm[app]:.3f} (its sensitivities differ from the other apps')"
            )
    for app in clustered:
        gap = mape_per_app_gbm[app] / max(best[app], 1e-12)
        if gap > BEST_ACHIEVABLE_MAX_RATIO:
            failures.append(
                f"{app}: per-app GBM MAPE {mape_per_app_gbm[app]:.3f} is {gap:.1f}x the best achievable "
                f"{best[app]:.3f}: part of it is load that changes during the run, which no pre-start feature "
                "can see (the split between that and model error is not measured)"
            )
    return failures


def _checks(analysis, summary, clustered, spearman, distance_days, truth_time_s) -> dict:
    """Each "Done when" criterion of the study: passed, and the numbers behind it."""
    control = summary["permuted_label_control"]
    pooled_days = distance_days["pooled"]
    held_out = _held_out_apps(analysis["errors"])
    return {
        "drivers_rank_above_distractors": {
            "passed": all(result["drivers_above_distractors"] for result in clustered.values()),
            "per_app": {app: result["drivers_above_distractors"] for app, result in clustered.items()},
        },
        "importance_spearman_above_0.7": {
            "passed": spearman["pooled"] > SPEARMAN_MIN
            and all(rho is None or rho > SPEARMAN_MIN for rho in spearman["per_app"].values()),
            "values": spearman,
        },
        "permuted_label_control_finds_nothing": {
            "passed": control["n_important"] == 0,
            "important": control["important_features"],
        },
        "change_point_within_one_day": {
            "passed": pooled_days is not None
            and pooled_days <= CHANGE_POINT_MAX_DAYS
            and _nearest_step(analysis["change_points"]["pooled"], truth_time_s)["p_value"] <= CHANGE_POINT_MAX_P,
            "pooled_distance_days": pooled_days,
        },
        "loao_reported_per_app": {"passed": set(held_out) == set(clustered), "apps": held_out},
    }


def summarise(analysis: dict, truth: dict) -> dict:
    """summary.json (the module docstring lists its keys) from analysis.json and truth.json."""
    summary = measured_summary(analysis, truth["source"])
    if truth.get("apps") is None:  # real data: nothing planted to compare with
        nothing_planted = ("importance_spearman", "best_achievable_mape", "drivers_above_distractors", "checks",
                           "recovery_failures")
        summary.update(dict.fromkeys(nothing_planted))
        return summary

    clustered, unclustered, agnostic = _importance_recovery(analysis, truth)
    spearman = _spearman(clustered, unclustered, agnostic)
    distance_days = _change_point_distance_days(analysis, truth)
    summary["change_point_recovery"] = {"planted": truth["change_point"], "distance_days": distance_days}
    best = {app: truth["apps"][app]["best_achievable_mape"] for app in clustered}
    failures = _recovery_failures(analysis, truth, summary, clustered, unclustered, distance_days, best)
    checks = _checks(analysis, summary, clustered, spearman, distance_days, truth["change_point"]["time_s"])
    summary.update(
        importance_spearman=spearman,
        best_achievable_mape=best,
        drivers_above_distractors={app: result["drivers_above_distractors"] for app, result in clustered.items()},
        importance_rank={app: result["rank"] for app, result in clustered.items()},
        checks=checks,
        recovery_failures=failures or ["none: every check passed and every driver ranked on top"],
    )
    for name, check in checks.items():
        logger.info("check %s: %s", name, "passed" if check["passed"] else "FAILED")
    for line in failures:
        logger.info("recovery: %s", line)
    return summary


def main(*, analysis_path, truth_path, summary_path):
    prov = Provenance.start(step="monitoring.summary")
    write_json(summary_path, summarise(read_json(analysis_path), read_json(truth_path)))
    prov.finish([summary_path])


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(analysis_path=smk.input.analysis, truth_path=smk.input.truth, summary_path=smk.output.summary)
