"""The survey study: run every strategy on torchrun processes, check it against single-process training and
its analytic models, project to the paper's scale, and write the runs and the summary.

Inputs: the calibrated network of this machine (results/disttrain/network/calibration.json).
Outputs: results/disttrain/survey/{runs.json, summary.json}; survey/figures.py draws the figures from runs.json.
Run: `snakemake --cores 2 disttrain_survey` (rules/disttrain.smk); tests call `main` directly.
"""


import json
import logging
import tempfile
from pathlib import Path

from workflow_scripts.common import Provenance, read_json, snakemake_step, write_json
from workflow_scripts.common.launch import launch
from workflow_scripts.disttrain.calibrate import calibrated_network
from workflow_scripts.disttrain.netmodel import NetworkModel
from workflow_scripts.disttrain.survey.strategies import DEEPSPEED, SurveyConfig, task_of, train_reference
from workflow_scripts.disttrain.survey.volumes import (
    analytic_bytes,
    analytic_memory,
    zero_bytes_per_parameter,
)

logger = logging.getLogger(__name__)
WORKER = "workflow_scripts.disttrain.survey.worker"
STATE_KEYS = ("parameters_bytes", "gradients_bytes", "optimizer_bytes")


def run_workers(cfg: SurveyConfig, section: dict, nproc: int, log_path, timeout_s) -> dict[str, list[dict]]:
    """Launch the strategies (the hybrid one on its own process count); returns strategy -> per-rank results."""
    plain = [s for s in cfg.strategies if s != "hybrid_fsdp_tp"]
    groups = [(plain, nproc)] if plain else []
    if "hybrid_fsdp_tp" in cfg.strategies:
        groups.append((["hybrid_fsdp_tp"], cfg.hybrid_processes))
    results = {}
    for strategies, processes in groups:
        for name in strategies:
            cfg.check_world(name, processes)  # stop before launching, naming the sizes that fit
        with tempfile.TemporaryDirectory() as tmp:
            spec = Path(tmp, "spec.json")
            spec.write_text(json.dumps({"survey": section, "seed": cfg.seed, "strategies": strategies}))
            launch(WORKER, [str(spec), tmp], nproc=processes, log_path=log_path, timeout_s=timeout_s)
            for name in strategies:
                results[name] = [read_json(Path(tmp, f"{name}.rank{r}.json")) for r in range(processes)]
    return results


def step_losses(ranks: list[dict]) -> list[float]:
    """The global-batch loss per step: the mean over the ranks that report one (equal data slices)."""
    steps = len(ranks[0]["losses"])
    out = []
    for step in range(steps):
        values = [r["losses"][step] for r in ranks if r["losses"][step] is not None]
        out.append(sum(values) / len(values))
    return out


def analyse(cfg: SurveyConfig, results: dict, references: dict[str, list[float]]) -> dict:
    """Per strategy: losses against the single-process reference of its task, bytes and memory against the models."""
    tokens_per_step = cfg.global_batch * cfg.model.block_size
    rows = {}
    for name, ranks in results.items():
        world = ranks[0]["world"]
        losses = step_losses(ranks)
        reference = references[task_of(name)]
        rel = max(abs(a - b) / abs(b) for a, b in zip(losses, reference, strict=True))
        step_s = max(r["median_step_time_s"] for r in ranks)  # the slowest rank sets the pace
        measured_bytes = [{k: v["message_bytes"] for k, v in r["comm_per_step"].items()} for r in ranks]
        memory = [r["memory"] for r in ranks]
        row = {"processes": world, "losses": losses, "max_rel_loss_diff": rel,
               "loss_matches_single_process": rel <= cfg.loss_rtol,
               "median_step_time_s": step_s, "throughput_tokens_per_s": tokens_per_step / step_s,
               "message_bytes_per_step_per_rank": [r["message_bytes_per_step"] for r in ranks],
               "wire_bytes_per_step_per_rank": [r["wire_bytes_per_step"] for r in ranks],
               "bytes_by_op_per_rank": measured_bytes,
               "model_state_bytes_per_rank": [sum(m.get(k, 0) for k in (*STATE_KEYS, "master_weights_bytes"))
                                              for m in memory],
               "activations_bytes_per_rank": [m.get("activations_bytes", 0) for m in memory],
               "peak_rss_bytes_per_rank": [m["peak_rss_bytes"] for m in memory]}  # fmt: skip
        analytic = [analytic_bytes(cfg, name, r, world) for r in range(world)]
        row["analytic_bytes_by_op_per_rank"] = analytic
        row["bytes_match_analytic"] = all(
            {k: float(v) for k, v in a.items()} == m for a, m in zip(analytic, measured_bytes, strict=True))
        if name in DEEPSPEED:
            # Also against the textbook volume a reader compares with the ZeRO paper: ZeRO-1/2 move what DDP
            # moves (reduce-scatter + all-gather), ZeRO-3 1.5x that. The exact model adds DeepSpeed's padding
            # and its gradient-norm scalars.
            ddp_wire = 2 * (world - 1) / world * 4 * cfg.model.num_parameters()
            textbook = {"zero1": 1.0, "zero2": 1.0, "zero3": 1.5}[name]
            row["textbook_wire_bytes_per_step"] = textbook * ddp_wire
            row["measured_over_textbook_wire"] = max(row["wire_bytes_per_step_per_rank"]) / (textbook * ddp_wire)
            row["gradient_buckets_bytes_per_rank"] = [m["gradient_buckets_bytes"] for m in memory]
        # Every category the model gives must equal the ledger's: DeepSpeed's add master weights and its
        # reduce buckets, which model_state_bytes leaves out (a staging buffer sized by the config).
        mem_model = [analytic_memory(cfg, name, r, world) for r in range(world)]
        row["analytic_memory_per_rank"] = mem_model
        row["analytic_model_state_bytes_per_rank"] = [
            sum(v for k, v in m.items() if k != "gradient_buckets_bytes") for m in mem_model]  # fmt: skip
        row["memory_match_analytic"] = all(all(mem[k] == model[k] for k in model)
                                           for mem, model in zip(memory, mem_model, strict=True))  # fmt: skip
        rows[name] = row
    return rows


def project(section: dict, machine: dict) -> dict:
    """Per-step communication time and bytes per device of each strategy for the paper-scale model."""
    proj = section["projection"]
    net = NetworkModel.from_config(machine)
    p, gpus = proj["parameters"], proj["devices"]
    layers, hidden, seq, batch = proj["layers"], proj["hidden"], proj["seq_len"], proj["global_batch"]
    ranks = range(gpus)
    half = 2  # bytes of an fp16 value
    grads = half * p
    act = half * (batch // gpus) * seq * hidden  # one microbatch's boundary activation per data-parallel rank
    tp = proj["tensor_parallel"]
    tp_act = half * (batch // (gpus // tp)) * seq * hidden
    times = {
        "ddp": net.time("all_reduce", grads, ranks),
        "zero1": net.time("reduce_scatter_tensor", grads, ranks) + net.time("all_gather_into_tensor", grads, ranks),
        "zero2": net.time("reduce_scatter_tensor", grads, ranks) + net.time("all_gather_into_tensor", grads, ranks),
        "zero3": net.time("reduce_scatter_tensor", grads, ranks) + 2 * net.time("all_gather_into_tensor", grads, ranks),
        # Megatron: 4 activation all-reduces per layer (2 forward, 2 backward) inside a node, plus the data-parallel
        # all-reduce of the 1/tp gradient shard across nodes.
        "tp": layers * 4 * net.time("all_reduce", tp_act, range(tp))
        + net.time("all_reduce", grads / tp, range(0, gpus, tp)),
        "pp_1f1b": 2 * net.time("send", act, [0, machine["devices_per_node"]]) * proj["microbatches"]
        + net.time("all_reduce", grads / proj["pipeline_stages"], range(0, gpus, proj["pipeline_stages"])),
    }  # fmt: skip
    dp = gpus
    memory = {name: zero_bytes_per_parameter(name, {"tp": tp, "pp_1f1b": proj["pipeline_stages"]}.get(name, dp)) * p
              for name in times}  # fmt: skip
    fits = {name: memory[name] <= machine["device_memory_bytes"] for name in times}
    return {"machine": machine["name"], "parameters": p, "devices": gpus,
            "comm_time_per_step_s": times, "model_state_bytes_per_device": memory,
            "fits_device_memory": fits}  # fmt: skip


def main(calibration_json, runs_json, summary_json, section: dict, machine: dict, seed: int, nproc: int,
         log_path=None, timeout_s=600) -> dict:  # fmt: skip
    cfg = SurveyConfig.from_config(section, seed=seed)
    prov = Provenance.start(step="disttrain.survey", config={"survey": section, "machine": machine, "nproc": nproc},
                            seed=seed)  # fmt: skip
    results = run_workers(cfg, section, nproc, log_path, timeout_s)
    tasks = sorted({task_of(name) for name in cfg.strategies})
    reference = {task: train_reference(cfg, task) for task in tasks}
    rows = analyse(cfg, results, reference)
    write_json(runs_json, {"reference_losses": reference, "strategies": rows, "raw": results})
    summary = {
        "processes": nproc, "strategies": list(rows), "reference_losses": reference,
        "all_losses_match_single_process": all(r["loss_matches_single_process"] for r in rows.values()),
        "loss_rtol": cfg.loss_rtol,
        "max_rel_loss_diff": {n: r["max_rel_loss_diff"] for n, r in rows.items()},
        "bytes_match_analytic": {n: r["bytes_match_analytic"] for n, r in rows.items()},
        "memory_match_analytic": {n: r["memory_match_analytic"] for n, r in rows.items()},
        "message_bytes_per_step_per_rank": {n: max(r["message_bytes_per_step_per_rank"]) for n, r in rows.items()},
        "analytic_message_bytes_per_step_per_rank": {n: max(sum(a.values()) for a in r["analytic_bytes_by_op_per_rank"])
                                                     for n, r in rows.items()},
        "model_state_bytes_per_rank": {n: max(r["model_state_bytes_per_rank"]) for n, r in rows.items()},
        "activations_bytes_per_rank": {n: max(r["activations_bytes_per_rank"]) for n, r in rows.items()},
        "throughput_tokens_per_s": {n: r["throughput_tokens_per_s"] for n, r in rows.items()},
        "deepspeed_measured_over_textbook_wire": {n: rows[n].get("measured_over_textbook_wire") for n in rows
                                                  if n in DEEPSPEED},
        "calibrated_network": calibrated_network(calibration_json),
        "projection": project(section, machine),
        "notes": ("Tiny GPT on gloo CPU processes sharing 2 cores: bytes and bytes stored are exact and checked "
                  "against the analytic models; throughput and times are indicative only and cannot show the "
                  "papers' GPU scaling. DeepSpeed ZeRO's bytes are checked against an exact model of what "
                  "DeepSpeed sends (its padding and gradient-norm scalars included; ZeRO-3 after its two trace "
                  "warm-up steps), and also given over the textbook volumes of the ZeRO paper. DeepSpeed's "
                  "memory per rank equals an exact model too (fp32 parameters, gradients after backward, fp32 "
                  "master partition, Adam moments, reduce buckets; ZeRO-1 stores what ZeRO-2 does with one "
                  "micro-step per step); the projections use the papers' mixed-precision bytes per parameter."),
    }  # fmt: skip
    write_json(summary_json, summary)
    prov.finish([runs_json, summary_json])
    logger.info("survey: losses match %s; exact bytes %s", summary["all_losses_match_single_process"],
                summary["bytes_match_analytic"])  # fmt: skip
    return summary


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.calibration, smk.output.runs, smk.output.summary, smk.params.survey, smk.params.machine,
         smk.params.seed, smk.params.nproc, smk.log[0], smk.params.timeout_s)  # fmt: skip
