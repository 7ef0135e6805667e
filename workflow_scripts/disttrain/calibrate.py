"""Calibrate the alpha-beta model of this machine from timed collectives (rule disttrain_network).

    main(out_json, message_bytes=[4096, 65536, 1048576], repeats=5, nproc=2, log_path=...)

Launches `nproc` processes (torchrun) that time all_reduce and all_gather_into_tensor through the comm
ledger at each message size (median of `repeats` after one warm-up), then fits alpha and beta by least
squares (netmodel.calibrate). Writes {"alpha_s", "beta_bytes_per_s", "samples": [...]} with provenance;
`calibrated_network(path)` reads the fit back as the whole-model studies' summaries report it.
On a shared 2-core machine these are indicative only; the paper machines' values come from the config.
"""


import json
import logging
import statistics
import sys
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)
OPS = ("all_reduce", "all_gather_into_tensor")


def worker(spec_path: str, out_dir: str) -> None:
    import torch

    from workflow_scripts.common.launch import end_worker, init_worker
    from workflow_scripts.disttrain.comm import CommLedger

    spec = json.loads(Path(spec_path).read_text())
    # gloo, also on a GPU node: this study's tensors live on the CPU, and NCCL takes only CUDA tensors.
    rank, world, _ = init_worker("gloo")
    ledger = CommLedger()
    samples = []
    for n_bytes in spec["message_bytes"]:
        numel = max(n_bytes // 4, world) // world * world
        for op in OPS:
            ledger.clear()
            for _ in range(spec["repeats"] + 1):
                if op == "all_reduce":
                    ledger.all_reduce(torch.ones(numel))
                else:
                    ledger.all_gather_into_tensor(torch.empty(numel), torch.ones(numel // world))
            times = [r.seconds for r in ledger.records()[1:]]  # the first call is warm-up
            samples.append({"op": op, "message_bytes": numel * 4, "group_size": world,
                            "median_s": statistics.median(times), "spread_s": max(times) - min(times)})  # fmt: skip
    if rank == 0:
        Path(out_dir, "samples.json").write_text(json.dumps(samples))
    end_worker()


def main(out_json, message_bytes, repeats, nproc, log_path=None, seed=0) -> dict:
    from workflow_scripts.common import Provenance, write_json
    from workflow_scripts.common.launch import launch
    from workflow_scripts.disttrain.netmodel import calibrate

    params = {"message_bytes": list(message_bytes), "repeats": repeats, "nproc": nproc}
    prov = Provenance.start(step="disttrain.calibrate", config=params, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp, "spec.json")
        spec.write_text(json.dumps(params))
        launch("workflow_scripts.disttrain.calibrate", ["--worker", str(spec), tmp], nproc=nproc, log_path=log_path)
        samples = json.loads(Path(tmp, "samples.json").read_text())
    fit = calibrate((s["op"], s["message_bytes"], s["group_size"], s["median_s"]) for s in samples)
    result = {"alpha_s": fit.alpha_s, "beta_bytes_per_s": fit.beta_bytes_per_s, "processes": nproc,
              "samples": samples, "note": "measured on this machine under gloo; indicative only"}  # fmt: skip
    write_json(out_json, result)
    prov.finish([out_json])
    return result


def calibrated_network(calibration_json) -> dict:
    """The fit `main` wrote, as each whole-model study's summary reports it beside its runs."""
    from workflow_scripts.common import read_json

    calibration = read_json(calibration_json)
    return {"alpha_s": calibration["alpha_s"], "beta_bytes_per_s": calibration["beta_bytes_per_s"]}


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
    else:
        from workflow_scripts.common import snakemake_step

        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        main(smk.output.calibration, smk.params.network["calibration_message_bytes"],
             smk.params.network["calibration_repeats"], smk.params.nproc, smk.log[0], smk.params.seed)
