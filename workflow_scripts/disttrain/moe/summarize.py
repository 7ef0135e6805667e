"""Snakemake step: the TED MoE summary and figures, from the validation run and the projection.

Writes results/disttrain/moe/summary.json and figures/{moe_all_to_all,moe_optimizer_memory,
moe_projection}.png.
"""


import logging

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import Provenance, atomic_path, configure_logging, read_json, write_json  # noqa: E402

logger = logging.getLogger(__name__)


def _save(fig, path):
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)


def figures(validation: dict, projection: dict, paths: dict) -> None:
    variants = validation["check"]["variants"]
    names = list(variants)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5))
    ax1.bar(names, [variants[n]["all_to_all_calls"] for n in names])
    ax1.set_ylabel("all-to-alls per step (measured)")
    ax2.bar(names, [variants[n]["all_to_all_message_bytes"] for n in names], label="measured")
    ax2.plot(names, [sum(v["message_bytes"] for k, v in variants[n]["model_totals"].items()
                         if k.startswith("all_to_all_single")) for n in names],
             "k_", markersize=30, label="model")  # fmt: skip
    ax2.set_ylabel("all-to-all bytes per rank per step")
    ax2.legend()
    for ax in (ax1, ax2):
        ax.tick_params(axis="x", rotation=30)
    fig.suptitle(f"TED MoE block on {validation['world_size']} processes (G_t={validation['params']['tensor_parallel']},"
                 f" G_e={validation['params']['expert_parallel']})", fontsize=10)  # fmt: skip
    _save(fig, paths["all_to_all"])

    points = validation["optimizer"]["points"]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.loglog([p["tile_elems"] for p in points], [p["peak_transient_bytes"] / 1e6 for p in points], "o-",
              label="measured peak transient")  # fmt: skip
    ax.loglog([p["tile_elems"] for p in points], [p["fp32_tile_bytes"] / 1e6 for p in points], "--",
              label="one fp32 copy of the tile")  # fmt: skip
    ax.set_xlabel("tile (elements)")
    ax.set_ylabel("MB")
    ax.set_title(f"optimizer step, {validation['optimizer']['partition_elems']:,} parameters", fontsize=9)
    ax.legend(fontsize=8)
    _save(fig, paths["optimizer"])

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    step = projection["step"]
    order = ["without", "dtd_only", "checkpoint_only", "with"]
    parts = ["compute_s", "all_to_all_s", "dtd_gather_s", "tensor_allreduce_s", "data_allreduce_s"]
    bottom = [0.0] * len(order)
    for part in parts:
        values = [step[v][part] for v in order]
        ax1.bar(order, values, bottom=bottom, label=part.removesuffix("_s"))
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax1.set_ylabel("modelled step time (s)")
    ax1.set_title(f"{projection['total_params'] / 1e9:.0f}B MoE on {projection['devices']} GPUs: "
                  f"{100 * projection['speedup']:.0f}% faster (paper ~{100 * projection['paper_speedup']:.0f}%)",
                  fontsize=9)  # fmt: skip
    ax1.legend(fontsize=7)
    ax1.tick_params(axis="x", rotation=20)
    fits = projection["largest_base_that_fits"]
    labels = ["DeepSpeed-MoE style", "TED"]
    sizes = [(fits[k]["base_params"] / 1e9 if fits[k] else 0) for k in ("deepspeed_moe", "ted")]
    ax2.bar(labels, sizes)
    for x, (k, s) in enumerate(zip(("deepspeed_moe", "ted"), sizes, strict=True)):
        if fits[k]:
            ax2.annotate(f"{fits[k]['name']} (G_t={fits[k]['layout']['tensor']})", (x, s), ha="center", va="bottom")
    ax2.set_ylabel("largest base model that fits (B parameters)")
    ratio = projection["base_size_ratio"]
    ax2.set_title(f"ratio {ratio:.1f}x (paper {projection['paper_base_size_ratio'][0]:.0f}-"
                  f"{projection['paper_base_size_ratio'][1]:.0f}x)" if ratio else "no base model fits", fontsize=9)
    _save(fig, paths["projection"])


def main(validation_path: str, projection_path: str, summary_path: str, figure_paths: dict, seed: int | None = None):
    prov = Provenance.start(step="disttrain.moe.summarize", config={}, seed=seed)
    validation, projection = read_json(validation_path), read_json(projection_path)
    variants = validation["check"]["variants"]
    base = variants["baseline"]
    tp = validation["params"]["tensor_parallel"]
    points = validation["optimizer"]["points"]
    summary = {
        "validation": {
            "processes": validation["world_size"],
            "tensor_parallel": tp, "expert_parallel": validation["params"]["expert_parallel"],
            "max_abs_diff_vs_plain": {n: v["max_abs_diff_vs_baseline"] for n, v in variants.items()},
            "bitwise_equal_to_plain": {n: v["bitwise_equal_to_baseline"] for n, v in variants.items()},
            "max_abs_diff_vs_serial_float64": max(validation["check"]["serial_max_abs_diff"].values()),
            "all_to_all_calls_per_step": {n: v["all_to_all_calls"] for n, v in variants.items()},
            "all_to_all_bytes_per_step": {n: v["all_to_all_message_bytes"] for n, v in variants.items()},
            "all_to_all_bytes_reduction_dtd": base["all_to_all_message_bytes"] / variants["dtd"]["all_to_all_message_bytes"],
            "activations_kept_bytes": {n: v["activations_bytes"] + v["kept_all_to_all_bytes"]
                                       for n, v in variants.items()},
            "counts_match_model": {n: v["counts_match_model"] for n, v in variants.items()},
            "step_time_s": {n: v["step_time_s_median"] for n, v in validation["timing"].items()},
            "optimizer_peak_transient_bytes": {str(p["tile_elems"]): p["peak_transient_bytes"] for p in points},
            "optimizer_tiles_identical": all(p["identical_to_untiled"] for p in points),
            "timing_note": "CPU processes oversubscribed on shared cores: step times are indicative only",
        },
        "projection": {
            "machine": projection["machine"], "devices": projection["devices"], "layout": projection["layout"],
            "total_params": projection["total_params"], "base_params": projection["base_params"],
            "step_time_s_without": projection["step"]["without"]["time_s"],
            "step_time_s_with": projection["step"]["with"]["time_s"],
            "speedup": projection["speedup"], "paper_speedup": projection["paper_speedup"],
            "speedup_difference_from_paper": projection["speedup"] - projection["paper_speedup"],
            "largest_base_that_fits": projection["largest_base_that_fits"],
            "base_size_ratio": projection["base_size_ratio"],
            "paper_base_size_ratio": projection["paper_base_size_ratio"],
            "memory_per_device": projection["memory_per_device"],
            "layout_fits_device_memory": (projection["memory_per_device"]["tiled"]["total_bytes"]
                                          <= projection["device_memory_bytes"]),
            "assumptions": "top-1 gating, capacity factor 1.0, MoE in every other layer, 1M tokens per step, "
                           "compute at the configured fraction of V100 peak, no overlap of communication with "
                           "compute, ZeRO-1 optimizer sharding; the paper's exact settings were not available",
        },
    }  # fmt: skip
    figures(validation, projection, figure_paths)
    write_json(summary_path, summary)
    prov.finish([summary_path, *figure_paths.values()])
    logger.info("moe: a2a calls %s, DTD byte reduction %.1fx; projection %.0f%% faster, base ratio %s",
                summary["validation"]["all_to_all_calls_per_step"], summary["validation"]["all_to_all_bytes_reduction_dtd"],
                100 * projection["speedup"], projection["base_size_ratio"])  # fmt: skip
    return summary


if __name__ == "__main__":
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(smk.input.validation, smk.input.projection, smk.output.summary,
         {"all_to_all": smk.output.all_to_all_fig, "optimizer": smk.output.optimizer_fig,
          "projection": smk.output.projection_fig}, seed=smk.params.seed)  # fmt: skip
