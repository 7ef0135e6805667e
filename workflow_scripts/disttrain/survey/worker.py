"""torchrun entry of the survey: run the listed strategies one after another in this process group.

    python -m torch.distributed.run --standalone --nproc-per-node 2 \
        -m workflow_scripts.disttrain.survey.worker <spec.json> <out_dir>

spec.json: {"survey": <config section>, "seed": int, "strategies": [...]}. Each rank writes
<out_dir>/<strategy>.rank<r>.json (the dict `run_strategy` returns). Launched by survey/run.py.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import torch.distributed as dist

from workflow_scripts.common import Progress, write_json
from workflow_scripts.common.launch import end_worker, init_worker
from workflow_scripts.disttrain.survey.strategies import SurveyConfig, run_strategy

logger = logging.getLogger(__name__)


def main(spec_path: str, out_dir: str) -> None:
    logging.basicConfig(level="INFO", format="%(asctime)s rank %(process)d %(name)s: %(message)s")
    spec = json.loads(Path(spec_path).read_text())
    cfg = SurveyConfig.from_config(spec["survey"], seed=spec["seed"])
    # gloo, also on a GPU node: this study's tensors live on the CPU, and NCCL takes only CUDA tensors.
    rank, world, _ = init_worker("gloo")
    progress = Progress("strategies", total=len(spec["strategies"]), unit="strategy", logger=logger,
                        enabled=rank == 0)  # fmt: skip
    for name in spec["strategies"]:
        logger.info("strategy %s on %d processes", name, world)
        result = run_strategy(name, cfg, rank, world)
        write_json(Path(out_dir) / f"{name}.rank{rank}.json", result)
        dist.barrier()
        progress.advance(note=f"{name}: median step {result['median_step_time_s']:.4f} s")
    progress.finish()
    end_worker()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
