"""The sensitivity figure of a projection (tensor3d/figures.py and moe/figures.py draw theirs with it): one panel
per headline (stacked), one bar per assumption from the lowest to the highest value the headline takes over that
assumption's range (circle: at the low end of the range, triangle: at the high end), the configured projection
(solid line) and the paper's value (dashed), and, right of each bar, the value of the assumption that gives the
paper's number (from sensitivity.solve) or "not reached".
Kept apart from sensitivity.py so that the summaries, which import that, do not import matplotlib.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common.figures import legend_below, save_figure  # noqa: E402


def _solved_label(solved: dict) -> str:
    if not solved["reached"]:
        return "not reached"
    change = (f"{solved['change_from_configured']:.2g}x" if solved["change_kind"] == "ratio"
              else f"{solved['change_from_configured']:+.2g}")  # fmt: skip
    return f"= {solved['value']:.3g} ({change})" + ("" if solved["continuous"] else ", jump")


def plot_sensitivity(sensitivity: dict, path: str, *, titles: dict[str, str], scales: dict[str, float],
                     units: dict[str, str]) -> None:  # fmt: skip
    """`titles`, `scales` (multiply the metric for display) and `units` per metric, in panel order."""
    metrics = list(titles)
    rows = max(len(sensitivity[m]["knobs"]) for m in metrics)
    fig, axes = plt.subplots(len(metrics), 1, figsize=(10, (0.3 * rows + 1.4) * len(metrics)), squeeze=False,
                             layout="constrained")  # keeps each panel's title clear of the tick labels above it
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        entry, scale = sensitivity[metric], scales[metric]
        knobs = [k for k in entry["knobs"] if k["min"] is not None]
        ys = range(len(knobs))
        for y, k in zip(ys, knobs, strict=True):
            ax.plot([k["min"] * scale, k["max"] * scale], [y, y], color="tab:blue", linewidth=6, alpha=0.5)
            for end, marker in (("metric_at_low", "o"), ("metric_at_high", "^")):
                if k[end] is not None:
                    ax.plot(k[end] * scale, y, marker, color="tab:blue")
        ax.axvline(entry["configured"] * scale, color="black", linewidth=1, label="configured projection")
        ax.axvline(entry["paper"] * scale, color="tab:red", linestyle="--", label="paper")
        labels = [f"{k['name']} [{k['range'][0]:.3g}, {k['range'][1]:.3g}]" for k in knobs]
        ax.set_yticks(list(ys), labels, fontsize=8)
        ax.invert_yaxis()
        right = ax.secondary_yaxis("right")
        right.set_yticks(list(ys), [_solved_label(k["solved"]) for k in knobs], fontsize=7)
        ax.set_xlabel(f"{titles[metric]} ({units[metric]})")
        ax.set_title(f"{titles[metric]}: {entry['configured'] * scale:.3g} configured, paper "
                     f"{entry['paper'] * scale:.3g}; right: value that gives the paper's", fontsize=9)  # fmt: skip
    legend_below(fig, axes[-1, 0], ncol=2)
    save_figure(fig, path)
