"""Drawing one figure and saving it: one place for every study's figures.

Each study's `<study>/figures.py` holds its drawing functions and a FIGURES registry (figure name -> the inputs it
is drawn from, in order, and the function that draws it from those inputs' contents and an output path), and its
`main` calls `draw_figure`. One Snakemake rule per figure runs the study's module, so deleting one figure redraws
only it, never the step that made its data.

Kept out of `workflow_scripts.common`'s package namespace so that scripts that draw nothing do not import
matplotlib at start-up.
"""

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common.io import atomic_path, read_json  # noqa: E402
from workflow_scripts.common.provenance import Provenance  # noqa: E402

logger = logging.getLogger(__name__)

Registry = dict[str, tuple[tuple[str, ...], Callable[..., None]]]
# An input is one file, a list of files (read to a list) or a dict of files (read to a dict with the same keys).
Input = str | os.PathLike | list | tuple | dict | None


def save_figure(fig, path: str | os.PathLike) -> None:
    """Write `fig` as a PNG atomically (a killed job leaves no half-written figure) and close it."""
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)


def _read(source: Input) -> Any:
    """The contents of one input: a Parquet file as a DataFrame, any other file as JSON; lists and dicts by item."""
    if isinstance(source, (list, tuple)):
        return [_read(item) for item in source]
    if isinstance(source, dict):
        return {key: _read(item) for key, item in source.items()}
    if Path(source).suffix == ".parquet":
        import pandas as pd  # only the studies whose figures read tables pay for pandas

        return pd.read_parquet(source)
    return read_json(source)


def _describe(source: Input) -> Any:
    """The input's file names as they go into the provenance record."""
    if isinstance(source, (list, tuple)):
        return [str(item) for item in source]
    if isinstance(source, dict):
        return {key: str(item) for key, item in source.items()}
    return str(source)


def draw_figure(study: str, figures: Registry, figure: str, output: str | os.PathLike,
                inputs: dict[str, Input]) -> None:  # fmt: skip
    """Draw `figure` of `study` (e.g. "pcgbench", "disttrain/survey") into `output` from the named inputs it
    needs (each read once), and write its provenance beside it (step `<study with dots>.figure.<figure>`)."""
    if figure not in figures:
        raise ValueError(f"{study} figure {figure!r}: unknown (known: {', '.join(figures)})")
    sources, draw = figures[figure]
    missing = [source for source in sources if inputs.get(source) is None or inputs[source] in ([], {})]
    if missing:
        raise ValueError(f"{study} figure {figure!r} is drawn from {', '.join(missing)}, which was not given")
    prov = Provenance.start(step=f"{study.replace('/', '.')}.figure.{figure}",
                            config={source: _describe(inputs[source]) for source in sources})  # fmt: skip
    draw(*(_read(inputs[source]) for source in sources), output)
    prov.finish([output])
    logger.info("%s: drew %s from %s", study, output, ", ".join(str(_describe(inputs[s])) for s in sources))
