"""Saving a drawn matplotlib figure: one place for every study's figures.

Kept out of `workflow_scripts.common`'s package namespace so that scripts that draw nothing do not import
matplotlib at start-up.
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common.io import atomic_path  # noqa: E402


def save_figure(fig, path: str | os.PathLike) -> None:
    """Write `fig` as a PNG atomically (a killed job leaves no half-written figure) and close it."""
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)
