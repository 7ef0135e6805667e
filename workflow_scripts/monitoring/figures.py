"""The study's four figures, drawn only from computed artifacts.

  runtime_variability.png   run time (relative to the app's median) of every run over time, per app,
                            with the planted change (synthetic) and each detected step labelled with its
                            effect and p-value; a series without a significant step shows its best
                            candidate as a grey dotted line marked "n.s."
  predicted_vs_measured.png test runs: per-app GBM and app-agnostic GBM predictions against measured
  top_features.png          permutation importance of counter clusters for each app's GBM (clusters
                            holding a true driver marked when there is ground truth), with the control
  loao_error.png            MAPE per held-out app: app-agnostic GBM and MLP trained without it, beside the
                            per-app GBM, the "last run" and "rolling median" baselines, the permuted-label
                            control and the best achievable error; apps left out of the models (too
                            few runs) named below it

Run: `snakemake monitoring` (rules monitoring_figure_<name>, one per figure), or
`main(figure=..., output=..., runs=..., predictions=..., analysis=..., truth=...)`.
"""


import logging

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import LogLocator, NullFormatter, StrMethodFormatter  # noqa: E402

from workflow_scripts.common import snakemake_step  # noqa: E402
from workflow_scripts.common.figures import (  # noqa: E402
    Registry,
    draw_figure,
    legend_below,
    legend_outside,
    readable,
    save_figure,
)

logger = logging.getLogger(__name__)



# Names the figures show for the counters (synthetic.py's and the LDMS loader's names; a counter not listed shows
# its name with spaces) and the model families.
COUNTER_NAMES = {"nic_stalled_cycles": "NIC stalled cycles", "rtr_stalled_cycles": "router stalled cycles",
                 "rtr_flits": "router flits", "fs_read_bytes": "file-system bytes read",
                 "fs_write_bytes": "file-system bytes written", "fs_wait_ms": "file-system wait (ms)",
                 "node_temp_c": "node temperature (C)", "login_sessions": "login sessions",
                 "mem_used_mb": "memory used (MB)", "cpu_user_frac": "CPU user fraction", "power_w": "power (W)",
                 "placement": "placement of the job's nodes", "time": "time of day and week"}  # fmt: skip
FAMILY_NAMES = {"per_app": "one GBM per application", "agnostic": "one application-agnostic GBM"}


def counter_name(feature: str) -> str:
    """A counter (or a cluster of counters joined by "+") in words, one per line: "router flits per s"."""
    names = []
    for part in feature.split("+"):
        rate = part.endswith("_per_s")
        names.append(readable(part.removesuffix("_per_s"), COUNTER_NAMES) + (" per s" if rate else ""))
    return "\n+ ".join(names)


def runtime_variability(runs: pd.DataFrame, analysis: dict, truth: dict, path):
    """Each detected step is a dashed line numbered at its top; the numbers' effects and p-values are listed right
    of the panel (labels on the lines overlapped wherever two steps were close)."""
    apps = sorted(runs["app"].unique())
    fig, axes = plt.subplots(len(apps), 1, figsize=(10, 1.9 * len(apps)), sharex=True, squeeze=False)
    planted = truth.get("change_point") or {}
    for ax, app in zip(axes[:, 0], apps, strict=True):
        rows = runs[runs["app"] == app].sort_values("start_s")
        when = pd.to_datetime(rows["start_s"], unit="s")
        ax.plot(when, rows["run_time_s"] / rows["run_time_s"].median(), ".", ms=3)
        found = analysis["change_points"][app]
        steps = sorted(found["steps"], key=lambda step: step["time_s"])
        notes = []
        for number, step in enumerate(steps, start=1):
            ax.axvline(pd.to_datetime(step["time_s"], unit="s"), color="tab:red", ls="--", lw=1)
            ax.annotate(str(number), (pd.to_datetime(step["time_s"], unit="s"), 1), xycoords=("data", "axes fraction"),
                        ha="center", va="bottom", fontsize=6, color="tab:red")  # fmt: skip
            notes.append(f"{number}: {step['effect']:+.1%}, p={step['p_value']:.2g}")
        candidate = found["candidate"]
        if not steps and candidate is not None:  # not significant: drawn apart, so it is not read as a step
            ax.axvline(pd.to_datetime(candidate["time_s"], unit="s"), color="0.5", ls=":", lw=1)
            ax.annotate("n.s.", (pd.to_datetime(candidate["time_s"], unit="s"), 1), xycoords=("data", "axes fraction"),
                        ha="center", va="bottom", fontsize=6, color="0.4")  # fmt: skip
            notes.append(f"n.s.: {candidate['effect']:+.1%}, p={candidate['p_value']:.2g}")
        ax.annotate("\n".join(notes) or "no step found", (1.01, 1), xycoords="axes fraction", va="top", fontsize=6,
                    color="tab:red" if steps else "0.4")  # fmt: skip
        if planted:
            ax.axvline(pd.to_datetime(planted["time_s"], unit="s"), color="k", lw=1, alpha=0.6)
        ax.set_ylabel(f"{app}\nrun time / median")
    handles = [plt.Line2D([], [], color="tab:red", ls="--", lw=1, label="detected step (numbered; effect and p right)"),
               plt.Line2D([], [], color="0.5", ls=":", lw=1,
                          label="best candidate, not significant (n.s.)")]  # fmt: skip
    if planted:
        handles.append(plt.Line2D([], [], color="k", lw=1, alpha=0.6, label="planted change"))
    axes[-1, 0].set_xlabel("run start (UTC)")
    fig.autofmt_xdate()  # dates slanted so they do not overlap
    fig.suptitle("Run-time variability of the control jobs (run time / the application's median)")
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(handles), fontsize=7,
               frameon=False)  # fmt: skip
    save_figure(fig, path)


def _log_ticks(axis, low: float, high: float):
    """Labelled ticks in plain numbers, denser the fewer decades the data span, so that real data (often
    within one decade) gets several labels, not one."""
    decades = np.log10(high / low)
    subs = (1.0, 1.2, 1.5, *range(2, 10)) if decades <= 1 else (1.0, 2.0, 3.0, 5.0) if decades <= 2 else (1.0, 2.0, 5.0)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(StrMethodFormatter("{x:g}"))
    axis.set_minor_locator(LogLocator(base=10, subs=np.arange(1, 10)))
    axis.set_minor_formatter(NullFormatter())


def predicted_vs_measured(predictions: pd.DataFrame, path):
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), sharex=True, sharey=True)
    for ax, family in zip(axes, ("per_app", "agnostic"), strict=True):
        part = predictions[(predictions["family"] == family) & (predictions["model"] == "gbm")]
        for app, rows in part.groupby("app"):
            ax.loglog(rows["run_time_s"], rows["predicted_s"], ".", ms=4, label=app)
        low, high = part[["run_time_s", "predicted_s"]].min().min(), part[["run_time_s", "predicted_s"]].max().max()
        ax.plot([low, high], [low, high], "k-", lw=0.8)
        ax.set_title(f"{FAMILY_NAMES[family]}, test runs", fontsize=10)
        for axis in (ax.xaxis, ax.yaxis):
            _log_ticks(axis, low, high)
        ax.tick_params(axis="x", labelrotation=45, labelsize=7)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel("measured run time (s)")
    axes[0].set_ylabel("predicted run time (s)")
    fig.tight_layout()
    legend_outside(axes[1], fontsize=7, title="application", title_fontsize=7)
    save_figure(fig, path)


def top_features(analysis: dict, truth: dict, path):
    """Importance of counter clusters (strongly correlated counters permuted together) per app."""
    per_app = analysis["importance"]["per_app_clusters"]
    apps = sorted(per_app)
    fig, axes = plt.subplots(1, len(apps), figsize=(3.6 * len(apps), 4.4), squeeze=False)
    for ax, app in zip(axes[0], apps, strict=True):
        imp = per_app[app]
        control = analysis["importance"]["control_clusters"][app]
        names = sorted(imp, key=lambda c: imp[c]["mean"])[-8:]
        drivers = set((truth.get("apps") or {}).get(app, {}).get("drivers", {}))
        y = np.arange(len(names))
        colours = ["tab:red" if set(analysis["clusters"][n]) & drivers else "tab:blue" for n in names]
        ax.barh(y, [imp[n]["mean"] for n in names], xerr=[imp[n]["sd"] for n in names], color=colours)
        ax.plot([control[n]["mean"] for n in names], y, "k|", ms=10, label="permuted-label control")
        labels = [counter_name(n) for n in names]
        ax.set_yticks(y, labels, fontsize=6)
        ax.set_title(app)
        ax.set_xlabel("RMSE rise, log run time")
    legend_below(fig, axes[0, 0])
    counters_given = any(set(members) - {"time", "placement"} for members in analysis["clusters"].values())
    title = ("Permutation importance of counter clusters" if counters_given else
             "Permutation importance of the run table's features (no counters given)")  # fmt: skip
    fig.suptitle(title + (" (red: holds a planted driver)" if truth.get("apps") else ""))
    fig.tight_layout()
    save_figure(fig, path)


def loao_error(analysis: dict, truth: dict, path):
    errors = analysis["errors"]
    apps = sorted(a for a in errors["loao"]["gbm"] if a != "all")
    bars = {
        "left out: application-agnostic GBM": [errors["loao"]["gbm"][a]["mape"] for a in apps],
        "left out: application-agnostic MLP": [errors["loao"]["mlp"][a]["mape"] for a in apps],
        "per-application GBM (trained on it)": [errors["per_app"]["gbm"][a]["mape"] for a in apps],
        "the application's last run": [errors["per_app"]["last_run"][a]["mape"] for a in apps],
        "rolling median of its runs": [errors["per_app"]["rolling_median"][a]["mape"] for a in apps],
        "GBM on permuted labels (control)": [errors["control"]["gbm"][a]["mape"] for a in apps],
    }
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(bars)
    for k, (label, values) in enumerate(bars.items()):
        ax.bar(np.arange(len(apps)) + k * width, values, width, label=label)
    if truth.get("apps"):
        best = [truth["apps"][a]["best_achievable_mape"] for a in apps]
        ax.scatter(np.arange(len(apps)) + 0.4 - width / 2, best, marker="_", s=600, color="k", label="best achievable")
    ax.set_xticks(np.arange(len(apps)) + 0.4 - width / 2, apps)
    ax.set_ylabel("MAPE on test runs (0.1 = 10%)")
    ax.set_title("Error per application left out of training")
    legend_outside(ax, fontsize=7)
    # An analysis written before apps could be left out has no such field: it modelled every app (or stopped).
    left_out = analysis.get("left_out_of_models", {})
    if left_out:  # named, so an app missing from the bars is not read as one that was forgotten
        note = "; ".join(f"{app} ({v['n_train']} training, {v['n_test']} test runs)" for app, v in left_out.items())
        fig.text(0.01, 0.01, f"not modelled, too few runs: {note}", fontsize=7, color="0.3")
    save_figure(fig, path)


# Figure name -> (the inputs it is drawn from, in order; how). One Snakemake rule per figure (rules/monitoring.smk),
# so deleting one figure redraws only it.
FIGURES: Registry = {
    "runtime_variability": (("runs", "analysis", "truth"), runtime_variability),
    "predicted_vs_measured": (("predictions",), predicted_vs_measured),
    "top_features": (("analysis", "truth"), top_features),
    "loao_error": (("analysis", "truth"), loao_error),
}


def main(*, figure: str, output, runs=None, predictions=None, analysis=None, truth=None, caption=None) -> None:
    """Draw `figure` into `output`; `runs` and `predictions` are Parquet tables, `analysis` and `truth` JSON,
    `caption` the figure's caption file (its first sentence is drawn under the figure)."""
    draw_figure("monitoring", FIGURES, figure, output,
                {"runs": runs, "predictions": predictions, "analysis": analysis, "truth": truth}, caption=caption)


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, runs=smk.input.runs, predictions=smk.input.predictions,
         analysis=smk.input.analysis, truth=smk.input.truth, caption=smk.input.caption)  # fmt: skip
