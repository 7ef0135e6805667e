"""How a Snakemake rule starts N training processes, and the checks that a process count fits.

    launch("workflow_scripts.disttrain.survey.worker", ["--spec", spec_json], nproc=2, log_path=log)

Used by the disttrain studies and by HPC-Coder pretraining (workflow_scripts/hpccoder/pretrain.py), which relaunches
itself through it when it asks for more than one process.

Locally this runs `python -m torch.distributed.run --standalone --nproc-per-node N -m <module> <args>`
(torchrun, from the same Python environment). Inside a SLURM allocation (SLURM_JOB_ID set) it runs the
same under `srun`, one torchrun per node, with the allocation's node count, GPUs per node and a c10d
rendezvous on the first node; N must then equal nodes x GPUs per node. A process count or a model size
that does not fit stops with a message that lists the sizes that would fit.

Workers call `init_worker()` to join the process group (gloo on CPU, NCCL on GPUs: its default, taken when
torch sees a GPU) and `end_worker()` to leave it and end. The disttrain studies keep their models and messages
on the CPU at every scale they run here and ask for gloo explicitly: NCCL takes only CUDA tensors, so the
default would fail on a GPU node.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

logger = logging.getLogger(__name__)
WORKER_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                           "VECLIB_MAXIMUM_THREADS", "GOTO_NUM_THREADS")  # fmt: skip

REPO_ROOT = Path(__file__).resolve().parents[2]


# --- sizes that fit --------------------------------------------------------------------------------------
def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def grids(world_size: int, names: tuple[str, ...]) -> list[dict[str, int]]:
    """Every way to write world_size as a product of len(names) factors."""
    options = divisors(world_size)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(options, repeat=len(names))
            if math.prod(combo) == world_size]  # fmt: skip


def require_grid(world_size: int, grid: dict[str, int], what: str = "process grid") -> None:
    """Stop unless the grid's factors multiply to world_size; the message prints every factor and the fits."""
    if math.prod(grid.values()) == world_size:
        return
    factors = " x ".join(f"{name}={size}" for name, size in grid.items())
    fits = "; ".join(" x ".join(f"{k}={v}" for k, v in g.items()) for g in grids(world_size, tuple(grid)))
    raise ValueError(f"{what}: {factors} = {math.prod(grid.values())} processes, but {world_size} were "
                     f"started. Grids that fit {world_size} processes: {fits}")  # fmt: skip


def require_divisible(value: int, parts: int, what: str, over: str) -> None:
    """Stop unless `value` (e.g. layers) splits evenly over `parts` (e.g. pipeline stages)."""
    if parts >= 1 and value % parts == 0:
        return
    raise ValueError(f"{what} = {value} does not divide over {over} = {parts}; {over} that would fit: "
                     f"{', '.join(map(str, divisors(value)))} (or change {what} to a multiple of {parts})")


# --- starting processes ----------------------------------------------------------------------------------
def in_slurm() -> bool:
    return bool(os.environ.get("SLURM_JOB_ID"))


def slurm_shape() -> tuple[int, int, str]:
    """(nodes, processes per node, first host) of the current SLURM allocation.

    Read from the controller (`scontrol show job`), not from SLURM_* variables: Snakemake's SLURM
    job-step executor removes those from a job's environment. Processes per node are the GPUs per
    node when the job has GPUs, else its tasks per node.
    """
    job_id = os.environ["SLURM_JOB_ID"]
    text = subprocess.run(["scontrol", "show", "job", job_id], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip
    fields = dict(item.split("=", 1) for item in text.split() if "=" in item)
    nodes = int(fields["NumNodes"].split("-")[0])
    gpus = re.search(r"gres/gpu(?::[^:=,]+)?[:=](\d+)", fields.get("TresPerNode", ""))
    per_node = int(gpus.group(1)) if gpus else max(1, int(fields["NumTasks"]) // nodes)
    first = subprocess.run(["scontrol", "show", "hostnames", fields["NodeList"]], capture_output=True, text=True,
                           check=True).stdout.split()[0]  # fmt: skip
    return nodes, per_node, first


def torchrun_command(target: str, args: list[str], nproc: int) -> list[str]:
    """The command that starts `nproc` processes running `target` (a module name, or a path to a .py file)."""
    if nproc < 1:
        raise ValueError(f"nproc must be >= 1, got {nproc}")
    entry = [target] if target.endswith(".py") else ["-m", target]
    run = [sys.executable, "-m", "torch.distributed.run"]
    if not in_slurm():
        return [*run, "--standalone", f"--nproc-per-node={nproc}", *entry, *map(str, args)]
    nodes, per_node, first = slurm_shape()
    if nodes * per_node != nproc:
        raise ValueError(f"the config asks for {nproc} processes but the SLURM allocation has {nodes} nodes x "
                         f"{per_node} devices = {nodes * per_node}; set the process count to {nodes * per_node} "
                         f"or request nodes x devices = {nproc}")  # fmt: skip
    return ["srun", f"--nodes={nodes}", "--ntasks-per-node=1", *run, f"--nnodes={nodes}",
            f"--nproc-per-node={per_node}", "--rdzv-backend=c10d", f"--rdzv-endpoint={first}:29500",
            *entry, *map(str, args)]  # fmt: skip


def launch(target: str, args: list[str], nproc: int, log_path: str | os.PathLike | None = None,
           timeout_s: float | None = None, env: dict[str, str] | None = None,
           cwd: str | os.PathLike = REPO_ROOT) -> None:  # fmt: skip
    """Run `target` on `nproc` processes and wait; the workers' output goes to `log_path` (appended).

    The output is written to the log as the workers print it (a day-long training run shows its progress in
    the rule's log, and a job killed at its time limit leaves what was printed), or captured when there is
    no log. The workers run in `cwd` (the repository by default; a step whose arguments are paths relative
    to the Snakemake working directory passes that). A failed run raises RuntimeError with the tail of the
    workers' output.
    """
    command = torchrun_command(target, args, nproc)
    child_env = dict(os.environ)
    child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), child_env.get("PYTHONPATH")]))
    # One compute thread per worker, as torchrun's own default: Snakemake exports the rule's `threads` to the job
    # in every thread-count variable (MKL_NUM_THREADS sets torch's intra-op threads even when OMP_NUM_THREADS
    # is 1), which N workers would each take, N x threads on `threads` cores. A caller's `env` can still ask.
    child_env.update(dict.fromkeys(WORKER_THREAD_VARIABLES, "1"))
    child_env.setdefault("PYTHONUNBUFFERED", "1")  # workers' prints reach the log when printed
    child_env.update(env or {})
    logger.info("launching: %s", " ".join(command))
    if log_path:
        log_path = Path(log_path)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        for handler in logging.getLogger().handlers:
            handler.flush()  # this process's lines first, then the workers'
        with open(log_path, "a", encoding="utf-8") as handle:
            start = handle.tell()
            returncode = subprocess.run(command, cwd=cwd, env=child_env, stdout=handle, stderr=subprocess.STDOUT,
                                        timeout=timeout_s).returncode  # fmt: skip
        text = ""
        if returncode != 0:  # the workers' output is read back only to quote it in the error
            with open(log_path, encoding="utf-8", errors="replace") as handle:
                handle.seek(start)
                text = handle.read()
    else:
        out = subprocess.run(command, cwd=cwd, env=child_env, capture_output=True, text=True,
                             timeout=timeout_s)  # fmt: skip
        returncode, text = out.returncode, out.stdout + out.stderr
    if returncode != 0:
        tail = "\n".join(text.splitlines()[-40:])
        raise RuntimeError(f"{target} on {nproc} processes failed (exit {returncode}):\n{tail}")


def init_worker(backend: str | None = None):
    """Join the process group torchrun set up; returns (rank, world_size, device)."""
    import torch
    import torch.distributed as dist

    if backend is None:
        backend = "nccl" if torch.cuda.is_available() else "gloo"
    if not dist.is_initialized():
        dist.init_process_group(backend=backend)
    device = torch.device("cpu")
    if backend == "nccl":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    return dist.get_rank(), dist.get_world_size(), device


def end_worker() -> NoReturn:
    """Leave the process group together and end this worker process with status 0: every rank waits at a barrier
    (rank 0 has written what it writes), the group is destroyed, logs and standard streams are flushed, and the
    process exits without the interpreter's teardown.

    That teardown is where the C++ runtime destroys what torch still holds (gloo's threads, a DDP reducer kept by a
    reference cycle); HPC-Coder pretraining's rank 1 aborted there once ("terminate called without an active
    exception", SIGABRT) in a loaded `make test`, after its group had been destroyed, and torchrun failed the run.
    Call it only in a process torchrun started: it never returns."""
    import gc

    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        gc.collect()  # what a reference cycle still holds goes while its group is up
        dist.barrier()
        dist.destroy_process_group()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
