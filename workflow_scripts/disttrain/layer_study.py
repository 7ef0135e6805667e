"""The steps the two single-layer studies (tensor3d/ and moe/) share, on the Snakemake side of the run.

Each study has the same four steps: validate (a worker module on N gloo processes, its result checked against
the study's model), project (the model at the paper's scale), sensitivity, and summary (validation and
projection side by side). What differs, each study keeps in its own files; what a step does around that lives
here:

    run_step("disttrain.moe.project", out_path, config, seed, lambda: project(cfg, machine))
    run_workers("workflow_scripts.disttrain.moe.worker", params, processes=4, timeout_s=600, log_path=log)
    write_summary("disttrain.moe.summary", summarise, validation_path, projection_path, summary_path, ...)

The rank side (joining the process group, timing steps) is layer_worker.py. This module imports no third-party
package, so a projection or summary step does not take torch's version into its software_env.
"""

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from workflow_scripts.common import Provenance, read_json, write_json
from workflow_scripts.common.launch import launch
from workflow_scripts.disttrain import sensitivity

# The validation runs put N processes on the cores a laptop or CI box shares with everything else.
TIMING_NOTE = "CPU processes oversubscribed on shared cores: step times are indicative only"


def run_step(step: str, out_path: str, config: dict, seed: int | None, produce: Callable[[], dict]) -> dict:
    """Run `produce` and write its result to `out_path` (atomically), with the provenance record beside it."""
    prov = Provenance.start(step=step, config=config, seed=seed)
    result = produce()
    write_json(out_path, result)
    prov.finish([out_path])
    return result


def run_workers(worker: str, params: dict, *, processes: int, timeout_s: float, log_path: str | None,
                env: dict[str, str]) -> dict:  # fmt: skip
    """Start the module `worker` on `processes` torchrun processes with `params` (a JSON file its main reads);
    returns the JSON that its rank 0 wrote. The workers' output is appended to `log_path`."""
    study = worker.split(".")[-2]
    with tempfile.TemporaryDirectory(prefix=f"{study}-") as tmp:
        params_path, raw_path = Path(tmp) / "params.json", Path(tmp) / "raw.json"
        params_path.write_text(json.dumps(params), encoding="utf-8")
        launch(worker, [str(params_path), str(raw_path)], nproc=processes, log_path=log_path, timeout_s=timeout_s,
               env=env)  # fmt: skip
        return read_json(raw_path)


def write_summary(step: str, summarise: Callable[[dict, dict], dict], validation_path: str, projection_path: str,
                  summary_path: str, seed: int | None, sensitivity_path: str | None) -> dict:  # fmt: skip
    """The study's summary: `summarise(validation, projection)`, plus the `sensitivity` section when the
    sensitivity step ran (which assumption moves each gap to the paper most, and the value that closes it)."""

    def summary() -> dict:
        out = summarise(read_json(validation_path), read_json(projection_path))
        if sensitivity_path:
            out["sensitivity"] = sensitivity.summary_section(read_json(sensitivity_path))
        return out

    return run_step(step, summary_path, {}, seed, summary)
