"""Where a stage runs: the one place that turns a config's `device` value into a torch device.

    device = resolve_device(cfg.device, key="rlpf.device")    # "auto" | "cpu" | "cuda" | "cuda:N"
    model.to(device)
    TrainingArguments(..., **trainer_device_args(device, bf16=False, key="rlpf.device"))   # use_cpu, bf16
    prov.finish([out], device=describe_device(device))         # "cpu" or "cuda:0 (NVIDIA H100 80GB HBM3)"

"auto" is a GPU when torch sees one, else the CPU (so the tiny run on a laptop is a CPU run). "cuda" or
"cuda:N" without a visible GPU is an error that names the config key and the fix: a paper-scale stage never
falls back to a CPU run that would take weeks and look like a result. Every training and generation stage
(HPC-Coder pretraining and pragma fine-tuning, RLPF, Jorge, the hf generation backend) resolves its device
here and records the result in its provenance and metrics.
"""

from __future__ import annotations

import logging
import os
import re

logger = logging.getLogger(__name__)

DEVICE_PATTERN = re.compile(r"^(auto|cpu|cuda(:[0-9]+)?)$")


def resolve_device(requested: str, *, key: str = "device"):
    """The torch device that `requested` ("auto", "cpu", "cuda", "cuda:N") names on this machine.

    `key` is the config key the value came from; error messages name it.
    """
    import torch

    if not isinstance(requested, str) or not DEVICE_PATTERN.match(requested):
        raise ValueError(f"{key}: {requested!r} is not a device (allowed: auto, cpu, cuda, cuda:N)")
    if requested == "cpu":
        return torch.device("cpu")
    # is_available and device_count ask the driver without creating a CUDA context: a parent that only checks
    # before relaunching under torchrun keeps no GPU memory. "cuda" is the first visible GPU.
    available = torch.cuda.is_available()
    if requested == "auto":
        return torch.device("cuda", 0) if available else torch.device("cpu")
    if not available:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "<unset>")
        raise RuntimeError(f"{key} is {requested!r} but torch sees no GPU (torch.cuda.is_available() is False; "
                           f"CUDA_VISIBLE_DEVICES={visible}; torch {torch.__version__}, built for CUDA "
                           f"{torch.version.cuda or 'none'}): run on a GPU node with a CUDA build of torch "
                           f"(docs/gpu.md), or set {key}: cpu")  # fmt: skip
    index = int(requested.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise RuntimeError(f"{key} is {requested!r} but torch sees {torch.cuda.device_count()} GPU(s) "
                           f"(indices 0..{torch.cuda.device_count() - 1}): pick one of those, or 'cuda'")  # fmt: skip
    return torch.device("cuda", index)


def describe_device(device) -> str:
    """A device as provenance records it: "cpu", or "cuda:0 (NVIDIA H100 80GB HBM3)"."""
    import torch

    device = torch.device(device)
    if device.type != "cuda":
        return device.type  # "cpu" (a distributed Trainer says cpu:0)
    index = device.index if device.index is not None else torch.cuda.current_device()
    return f"cuda:{index} ({torch.cuda.get_device_name(index)})"


def synchronize(device) -> None:
    """Wait for the device's queued work (a GPU runs asynchronously: time only after this); no-op on CPU."""
    import torch

    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def use_bf16(setting: bool | None, device) -> bool:
    """A config's `bf16` (null: where it pays, `bf16_available`; true or false: as asked) for `device`."""
    return bf16_available(device) if setting is None else bool(setting)


def trainer_device_args(device, *, bf16: bool, key: str = "device") -> dict:
    """The transformers/TRL `TrainingArguments` fields that put a Trainer on `device`.

    A single-process Trainer takes the CPU when `use_cpu` is set and otherwise always the first visible GPU
    (cuda:0), replicating the model over every visible GPU with nn.DataParallel when there are several; under
    torchrun each process takes the GPU of its local rank. So `cuda:N` (N > 0) cannot be honoured by a
    single-process Trainer and is refused, naming the way that works. bf16 mixed precision on a GPU needs one
    that has it (Ampere or later).
    """
    import torch

    device = torch.device(device)
    if device.type == "cuda":
        if device.index not in (None, 0) and "LOCAL_RANK" not in os.environ:
            raise ValueError(f"{key}: {device} - a single-process Trainer always trains on the first visible GPU; "
                             f"set CUDA_VISIBLE_DEVICES={device.index} and {key}: cuda")  # fmt: skip
        if torch.cuda.device_count() > 1 and "LOCAL_RANK" not in os.environ:
            logger.warning("%s: %d GPUs visible to one process: the Trainer replicates the model over all of them "
                           "(nn.DataParallel); set CUDA_VISIBLE_DEVICES to one GPU to train on one",
                           key, torch.cuda.device_count())  # fmt: skip
        if bf16 and not torch.cuda.is_bf16_supported():
            raise RuntimeError(f"{key}: bf16 is asked for but {describe_device(device)} has no bfloat16 support: "
                               f"turn bf16 off for this GPU")  # fmt: skip
    return {"use_cpu": device.type == "cpu", "bf16": bf16}


def bf16_available(device) -> bool:
    """Whether bf16 mixed precision pays on `device`: a GPU with bfloat16 support (not the CPU, where autocast
    to bfloat16 is slower for small models and changes the tiny run's numbers)."""
    import torch

    return torch.device(device).type == "cuda" and torch.cuda.is_bf16_supported()
