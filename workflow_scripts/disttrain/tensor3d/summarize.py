"""Snakemake step: the Tensor3D summary and figures, from the validation run and the projection.

  - calibrates the alpha-beta model on the collectives timed in the validation run (all-reduce and
    all-gather; gloo's reduce-scatter is an all-reduce underneath, so its time is not used), prices every
    decomposition of the validation's process count with it, and reports the rank correlation (Spearman)
    between modelled and measured step times;
  - exact agreement of measured and modelled bytes for every decomposition, and the float64 errors;
  - the projection's best Tensor3D vs best Megatron-style decomposition and the overlap curve.

Writes results/disttrain/tensor3d/summary.json and figures/{tensor3d_bytes,tensor3d_ranking,
tensor3d_projection,tensor3d_overlap}.png.
"""


import logging

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from workflow_scripts.common import Provenance, atomic_path, configure_logging, read_json, write_json  # noqa: E402
from workflow_scripts.disttrain.netmodel import NetworkModel, calibrate  # noqa: E402
from workflow_scripts.disttrain.tensor3d.grid import Grid  # noqa: E402
from workflow_scripts.disttrain.tensor3d.volumes import (  # noqa: E402
    LayerShape,
    alternating_stack,
    placement_cost,
    step_time_s,
)

logger = logging.getLogger(__name__)
CALIBRATION_OPS = ("all_reduce", "all_gather_into_tensor")


def model_vs_measured(validation: dict) -> dict:
    """Calibrate alpha-beta on the measured collectives; model every decomposition's step time."""
    samples = [(c["op"], c["message_bytes"], c["group_size"], c["seconds"])
               for d in validation["decompositions"] for c in d["timing"]["collectives"]
               if c["op"] in CALIBRATION_OPS]  # fmt: skip
    link = calibrate(samples)
    world = validation["world_size"]
    net = NetworkModel(intra_node=link, inter_node=link, devices_per_node=world)
    cost = placement_cost(net)
    params = validation["params"]
    widths = params["timing_features"]
    shapes = alternating_stack([LayerShape(out_features=widths[i + 1], in_features=widths[i])
                                for i in range(len(widths) - 1)])  # fmt: skip
    rows = []
    for d in validation["decompositions"]:
        grid = Grid(rows=d["dims"][0], cols=d["dims"][1], depth=d["dims"][2], data=d["dims"][3])
        est = step_time_s(shapes, grid, batch=params["timing_batch"], chunks=1, dtype_bytes=4,
                          flops_per_s=validation["matmul_flops_per_s"], cost=cost)  # fmt: skip
        rows.append({"grid": d["grid"], "model_time_s": est.time_s, "model_comm_s": est.comm_s,
                     "measured_time_s": d["timing"]["step_time_s_median"],
                     "measured_time_s_min": d["timing"]["step_time_s_min"],
                     "measured_time_s_max": d["timing"]["step_time_s_max"]})  # fmt: skip
    rho, p_value = spearmanr([r["model_time_s"] for r in rows], [r["measured_time_s"] for r in rows])
    return {"calibrated_alpha_s": link.alpha_s, "calibrated_beta_bytes_per_s": link.beta_bytes_per_s,
            "calibration_samples": len(samples), "rows": rows, "spearman_rho": float(rho),
            "spearman_p_value": float(p_value)}  # fmt: skip


def _save(fig, path):
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)


def figures(validation: dict, ranking: dict, projection: dict, paths: dict) -> None:
    decs = validation["decompositions"]
    labels = [d["grid"] for d in decs]
    measured = [sum(v["message_bytes"] for v in d["check_chunks_n"]["measured_bytes"].values()) for d in decs]
    modelled = [sum(v["message_bytes"] for v in d["check_chunks_n"]["model_bytes"].values()) for d in decs]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], measured, width=0.4, label="measured (ledger)")
    ax.bar([x + 0.2 for x in xs], modelled, width=0.4, label="model")
    ax.set_xticks(list(xs), labels, rotation=45, ha="right")
    ax.set_ylabel("bytes per rank per step")
    ax.set_title(f"Tensor3D communication, {validation['world_size']} processes (float64 check stack)")
    ax.legend()
    _save(fig, paths["bytes"])

    fig, ax = plt.subplots(figsize=(5, 4))
    rows = ranking["rows"]
    ax.scatter([r["model_time_s"] * 1e3 for r in rows], [r["measured_time_s"] * 1e3 for r in rows])
    for r in rows:
        ax.annotate(r["grid"], (r["model_time_s"] * 1e3, r["measured_time_s"] * 1e3), fontsize=7)
    ax.set_xlabel("model step time (ms, calibrated alpha-beta)")
    ax.set_ylabel("measured step time (ms, median)")
    ax.set_title(f"model vs measured, Spearman rho = {ranking['spearman_rho']:.2f}")
    _save(fig, paths["ranking"])

    fig, ax = plt.subplots(figsize=(8, 4))
    top = projection["decompositions_ranked"][:12]
    bars = top + ([projection["best_megatron"]] if projection["best_megatron"] else [])
    names = [f"{r['grid']}/{r['chunks']}" + (" (Megatron)" if r["megatron"] else "") for r in bars]
    ax.barh(names, [r["compute_s"] for r in bars], label="compute")
    ax.barh(names, [r["exposed_comm_s"] for r in bars], left=[r["compute_s"] for r in bars],
            label="exposed communication")  # fmt: skip
    ax.invert_yaxis()
    ax.set_xlabel("modelled step time (s)")
    reduction = projection["time_reduction_vs_megatron"]
    ax.set_title(f"{projection['parameters'] / 1e9:.1f}B CNN on {projection['devices']} devices: best 3D vs "
                 f"Megatron {100 * reduction:.0f}% less time (paper ~{100 * projection['paper_time_reduction']:.0f}%)",
                 fontsize=9)  # fmt: skip
    ax.legend()
    _save(fig, paths["projection"])

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    curve = projection["overlap_curve"]
    ax1.plot([p["chunks"] for p in curve], [p["time_s"] for p in curve], marker="o")
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("chunks")
    ax1.set_ylabel("modelled step time (s)")
    ax1.set_title(f"projection, {projection['best']['grid']}", fontsize=9)
    points = validation["overlap"]["points"]
    ax2.errorbar([p["chunks"] for p in points], [p["step_time_s_median"] * 1e3 for p in points],
                 yerr=[[(p["step_time_s_median"] - p["step_time_s_min"]) * 1e3 for p in points],
                       [(p["step_time_s_max"] - p["step_time_s_median"]) * 1e3 for p in points]],
                 marker="o", capsize=3)  # fmt: skip
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("chunks")
    ax2.set_ylabel("measured step time (ms)")
    ax2.set_title(f"measured, {validation['overlap']['grid']} on {validation['world_size']} CPU processes", fontsize=9)
    _save(fig, paths["overlap"])


def main(validation_path: str, projection_path: str, summary_path: str, figure_paths: dict, seed: int | None = None):
    prov = Provenance.start(step="disttrain.tensor3d.summarize", config={}, seed=seed)
    validation, projection = read_json(validation_path), read_json(projection_path)
    ranking = model_vs_measured(validation)
    decs = validation["decompositions"]
    max_error = max(max(d[k]["errors"].values()) for d in decs for k in ("check_chunks_1", "check_chunks_n"))
    best, meg = projection["best"], projection["best_megatron"]
    summary = {
        "validation": {
            "processes": validation["world_size"],
            "decompositions": len(decs),
            "all_bytes_match_model": all(d[k]["bytes_match"] for d in decs for k in ("check_chunks_1", "check_chunks_n")),
            "max_abs_error_vs_serial_float64": max_error,
            "chunks_checked": validation["params"]["chunks"],
            "spearman_model_vs_measured": ranking["spearman_rho"],
            "spearman_p_value": ranking["spearman_p_value"],
            "calibrated_alpha_s": ranking["calibrated_alpha_s"],
            "calibrated_beta_bytes_per_s": ranking["calibrated_beta_bytes_per_s"],
            "measured_vs_model": ranking["rows"],
            "overlap_measured": validation["overlap"],
            "timing_note": "CPU processes oversubscribed on shared cores: step times are indicative only",
        },
        "projection": {
            "parameters": projection["parameters"], "devices": projection["devices"], "machine": projection["machine"],
            "best_3d": {k: best[k] for k in ("grid", "chunks", "time_s", "compute_s", "exposed_comm_s", "memory_bytes")},
            "best_megatron": meg and {k: meg[k] for k in ("grid", "chunks", "time_s", "compute_s", "exposed_comm_s",
                                                          "memory_bytes")},
            "time_reduction_vs_megatron": projection["time_reduction_vs_megatron"],
            "paper_time_reduction": projection["paper_time_reduction"],
            "difference_from_paper": (projection["time_reduction_vs_megatron"] - projection["paper_time_reduction"]
                                      if projection["time_reduction_vs_megatron"] is not None else None),
            "overlap_curve": projection["overlap_curve"],
            "assumptions": "CNN architecture assumed (a stack of equal 3x3 convolutions, see config); GEMMs at the "
                           "configured fraction of A100 peak; activation all-reduces overlap compute through "
                           "chunks, the weight gather, reduce-scatter and data all-reduce are exposed; Megatron-LM "
                           "without overdecomposition; the paper's exact settings were not available",
        },
    }  # fmt: skip
    figures(validation, ranking, projection, figure_paths)
    write_json(summary_path, summary)
    prov.finish([summary_path, *figure_paths.values()])
    logger.info("tensor3d: bytes match %s, max error %.2g, Spearman %.2f; projection %s vs %s: %.0f%% less time",
                summary["validation"]["all_bytes_match_model"], max_error, ranking["spearman_rho"], best["grid"],
                meg and meg["grid"], 100 * (projection["time_reduction_vs_megatron"] or 0))  # fmt: skip
    return summary


if __name__ == "__main__":
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(smk.input.validation, smk.input.projection, smk.output.summary,
         {"bytes": smk.output.bytes_fig, "ranking": smk.output.ranking_fig, "projection": smk.output.projection_fig,
          "overlap": smk.output.overlap_fig}, seed=smk.params.seed)  # fmt: skip
