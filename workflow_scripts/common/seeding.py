"""One seed drives every random choice: Python, NumPy and torch, offset by the process's rank."""

from __future__ import annotations

import logging
import random

logger = logging.getLogger(__name__)


def seed_everything(seed: int, rank: int = 0, deterministic: bool = False) -> int:
    """Seed Python, NumPy and torch (if installed) with `seed + rank`; returns the seed used.

    `deterministic=True` also asks torch for deterministic kernels, which can be slower.
    """
    effective = int(seed) + int(rank)
    random.seed(effective)
    try:
        import numpy as np

        np.random.seed(effective % 2**32)
    except ImportError:
        pass
    try:
        import torch
    except ImportError:
        return effective
    torch.manual_seed(effective)
    if deterministic:
        logger.info("deterministic torch algorithms requested: expect slower kernels")
        torch.use_deterministic_algorithms(True)
    return effective
