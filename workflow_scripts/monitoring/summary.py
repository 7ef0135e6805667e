"""The study's headline numbers, and on synthetic data whether the pipeline recovered what was planted.

summary.json holds:
  mape, r2                 {family: {model: {app: value}}} on the test runs (family per_app, agnostic,
                           control); "all" pools the apps
  loao_mape                {held-out app: {gbm, mlp}}: the app-agnostic models on an app left out of training
  best_achievable_mape     {app: MAPE of the noiseless run time} (synthetic only)
  top_counters             {app: the three counters with the largest grouped permutation importance}
  importance_spearman      {per_app: {app: rho}, pooled: rho, agnostic: rho}: rank correlation of each
                           counter's importance with its planted effect, over the drivers, distractors
                           and the non-causal counter (redundant proxies are left out: they carry the
                           driver's signal without being the planted cause). A counter's importance is
                           that of its cluster of strongly correlated counters (analysis.py), since
                           redundant counters cannot be told apart from data; per_app_unclustered
                           gives the counter-by-counter figure
  drivers_above_distractors {app: every driver with a planted effect ranks above every distractor}
  permuted_label_control   the features the control calls important (expected: none)
  change_point             planted vs found (per app and pooled), distance in days, p-value
  checks                   each "Done when" criterion: passed, and the numbers behind it
  recovery_failures        where recovery fails, in words
On real data (no truth) the comparisons are null and only the measured numbers are reported.

Run: `snakemake monitoring` (rule monitoring_summary), or `main(analysis_path=..., truth_path=..., ...)`.
"""


import datetime as dt
import logging

import numpy as np
from scipy.stats import spearmanr

from workflow_scripts.common import Provenance, configure_logging, read_json, write_json

logger = logging.getLogger(__name__)

SPEARMAN_MIN = 0.7  # the bar for "importance follows the planted effect"
CHANGE_POINT_MAX_DAYS = 1.0
CHANGE_POINT_MAX_P = 0.05
EVALUATED_ROLES = ("driver", "distractor", "non_causal")


def _iso(time_s):
    return None if time_s is None else dt.datetime.fromtimestamp(time_s, dt.UTC).isoformat(timespec="minutes")


def importance_vs_truth(importance: dict[str, dict], roles: dict[str, str], effects: dict[str, float]) -> dict:
    counters = [c for c, role in roles.items() if role in EVALUATED_ROLES and c in importance]
    measured = np.array([importance[c]["mean"] for c in counters])
    planted = np.array([effects.get(c, 0.0) for c in counters])
    rho = float(spearmanr(measured, planted).statistic) if np.ptp(planted) > 0 else None
    drivers = [c for c in counters if effects.get(c, 0.0) > 0]
    others = [c for c in counters if roles[c] != "driver"]
    above = bool(drivers) and min(importance[c]["mean"] for c in drivers) > max(importance[c]["mean"] for c in others)
    order = sorted(counters, key=lambda c: -importance[c]["mean"])
    return {"rho": rho, "drivers_above_distractors": above, "rank": {c: order.index(c) + 1 for c in counters},
            "measured": dict(zip(counters, measured.tolist(), strict=True)),
            "planted": dict(zip(counters, planted.tolist(), strict=True))}  # fmt: skip


def summarise(analysis: dict, truth: dict) -> dict:
    errors = analysis["errors"]
    mape = {f: {m: {a: v["mape"] for a, v in apps.items()} for m, apps in models.items()} for f, models in errors.items()}
    r2 = {f: {m: {a: v["r2"] for a, v in apps.items()} for m, apps in models.items()} for f, models in errors.items()}
    held_out = sorted(a for a in errors["loao"]["gbm"] if a != "all")
    loao = {a: {m: errors["loao"][m][a]["mape"] for m in errors["loao"]} for a in held_out}
    per_app_imp = analysis["importance"]["per_app"]
    top = {a: sorted(imp, key=lambda c: -imp[c]["mean"])[:3] for a, imp in per_app_imp.items()}
    control = analysis["control_important_features"]
    summary = {
        "source": truth["source"],
        "split": {**analysis["split"], "cutoff": _iso(analysis["split"]["cutoff_s"])},
        "mape": mape,
        "r2": r2,
        "loao_mape": loao,
        "top_counters": top,
        "clusters": {name: members for name, members in analysis["clusters"].items() if len(members) > 1},
        "top_clusters": {a: sorted(imp, key=lambda c: -imp[c]["mean"])[:3]
                         for a, imp in analysis["importance"]["per_app_clusters"].items()},
        "important_counters": analysis["important_features"],
        "permuted_label_control": {
            "important_features": control,
            "n_important": sum(len(v) for v in control.values()),
            "max_importance": max(v["mean"] for imp in analysis["importance"]["control"].values() for v in imp.values()),
            "max_importance_real_models": max(v["mean"] for imp in per_app_imp.values() for v in imp.values()),
        },
        "change_point": {"found": {k: {**v, "date": _iso(v["time_s"])} for k, v in analysis["change_points"].items()}},
    }
    if truth.get("apps") is None:  # real data: nothing planted to compare with
        summary.update(importance_spearman=None, best_achievable_mape=None, drivers_above_distractors=None,
                       checks=None, recovery_failures=None)  # fmt: skip
        return summary

    roles = truth["counter_roles"]
    cluster_of = {c: name for name, members in analysis["clusters"].items() for c in members}

    def by_counter(cluster_importance):  # each counter carries its cluster's importance
        return {c: cluster_importance[name] for c, name in cluster_of.items()}

    per_app = {a: importance_vs_truth(by_counter(analysis["importance"]["per_app_clusters"][a]), roles,
                                      truth["apps"][a]["drivers"]) for a in per_app_imp}  # fmt: skip
    unclustered = {a: importance_vs_truth(per_app_imp[a], roles, truth["apps"][a]["drivers"]) for a in per_app_imp}
    pooled_measured, pooled_planted = [], []
    for result in per_app.values():
        pooled_measured += list(result["measured"].values())
        pooled_planted += list(result["planted"].values())
    mean_effect = {c: float(np.mean([truth["apps"][a]["planted_effect_log"][c] for a in per_app])) for c in
                   next(iter(truth["apps"].values()))["planted_effect_log"]}  # fmt: skip
    agnostic = importance_vs_truth(by_counter(analysis["importance"]["agnostic_clusters"]), roles, mean_effect)
    spearman = {"per_app": {a: r["rho"] for a, r in per_app.items()},
                "pooled": float(spearmanr(pooled_measured, pooled_planted).statistic),
                "agnostic": agnostic["rho"],
                "per_app_unclustered": {a: r["rho"] for a, r in unclustered.items()}}  # fmt: skip
    planted_s = truth["change_point"]["time_s"]
    distance = {k: (None if v["time_s"] is None else abs(v["time_s"] - planted_s) / 86400)
                for k, v in analysis["change_points"].items()}  # fmt: skip
    summary["change_point"].update(planted=truth["change_point"], distance_days=distance)
    best = {a: truth["apps"][a]["best_achievable_mape"] for a in per_app}

    failures = []
    for name, members in analysis["clusters"].items():
        drivers_in = [c for c in members if roles.get(c) == "driver"]
        others_in = [c for c in members if roles.get(c) in ("distractor", "non_causal")]
        if drivers_in and others_in:
            failures.append(f"cluster {name}: driver(s) {drivers_in} move with {others_in}, so permutation cannot "
                            "separate them")  # fmt: skip
    for a, result in unclustered.items():
        misses = [c for c in truth["apps"][a]["drivers"] if result["rank"][c] > len(truth["apps"][a]["drivers"])]
        if misses:
            failures.append(f"{a}: counter by counter, driver(s) {misses} rank below a distractor; the model leans on "
                            "their redundant proxies instead, so only the counter's cluster is recovered")  # fmt: skip
    for a, result in per_app.items():
        if result["rho"] is not None and result["rho"] <= SPEARMAN_MIN:
            failures.append(f"{a}: importance follows the planted effect only weakly (spearman {result['rho']:.2f})")
        weak = [c for c, e in truth["apps"][a]["drivers"].items()
                if result["rank"][c] > len(truth["apps"][a]["drivers"])]  # fmt: skip
        for c in weak:
            failures.append(f"{a}: driver {c} (planted effect {truth['apps'][a]['drivers'][c]:.3f} in log run time) "
                            f"ranks {result['rank'][c]} of {len(result['rank'])}: below a distractor or the other driver")  # fmt: skip
    for a, found in control.items():
        if found:
            failures.append(f"permuted-label control ({a}) calls {found} important: a model fitted to shuffled labels "
                            "still moves the error when they are shuffled (threshold analysis.important_min_rmse_increase)")  # fmt: skip
    for k, d in distance.items():
        p = analysis["change_points"][k]["p_value"]
        if d is None or d > CHANGE_POINT_MAX_DAYS or p > CHANGE_POINT_MAX_P:
            failures.append(f"change point ({k}): found {summary['change_point']['found'][k]['date']} "
                            f"({'n/a' if d is None else f'{d:.2f}'} days from the planted one, p={p})")  # fmt: skip
    for a in held_out:
        ratio = loao[a]["gbm"] / max(mape["per_app"]["gbm"][a], 1e-12)
        if ratio > 1.5:
            failures.append(f"{a} held out: app-agnostic GBM MAPE {loao[a]['gbm']:.3f} is {ratio:.1f}x the per-app "
                            f"model's {mape['per_app']['gbm'][a]:.3f} (its sensitivities differ from the other apps')")  # fmt: skip
    for a in per_app:
        gap = mape["per_app"]["gbm"][a] / max(best[a], 1e-12)
        if gap > 2:
            failures.append(f"{a}: per-app GBM MAPE {mape['per_app']['gbm'][a]:.3f} is {gap:.1f}x the best achievable "
                            f"{best[a]:.3f}: part of it is load that changes during the run, which no pre-start feature can see (the split between that and model error is not measured)")  # fmt: skip

    checks = {
        "drivers_rank_above_distractors": {"passed": all(r["drivers_above_distractors"] for r in per_app.values()),
                                           "per_app": {a: r["drivers_above_distractors"] for a, r in per_app.items()}},
        "importance_spearman_above_0.7": {"passed": spearman["pooled"] > SPEARMAN_MIN
                                          and all(r is None or r > SPEARMAN_MIN for r in spearman["per_app"].values()),
                                          "values": spearman},
        "permuted_label_control_finds_nothing": {"passed": summary["permuted_label_control"]["n_important"] == 0,
                                                 "important": control},
        "change_point_within_one_day": {"passed": distance["pooled"] is not None
                                        and distance["pooled"] <= CHANGE_POINT_MAX_DAYS
                                        and analysis["change_points"]["pooled"]["p_value"] <= CHANGE_POINT_MAX_P,
                                        "pooled_distance_days": distance["pooled"]},
        "loao_reported_per_app": {"passed": set(held_out) == set(per_app), "apps": held_out},
    }  # fmt: skip
    summary.update(importance_spearman=spearman, best_achievable_mape=best,
                   drivers_above_distractors={a: r["drivers_above_distractors"] for a, r in per_app.items()},
                   importance_rank={a: r["rank"] for a, r in per_app.items()}, checks=checks,
                   recovery_failures=failures or ["none: every check passed and every driver ranked on top"])  # fmt: skip
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
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(analysis_path=smk.input.analysis, truth_path=smk.input.truth, summary_path=smk.output.summary)
