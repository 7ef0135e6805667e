"""What the five disttrain studies' figure modules share: check a figure's name and inputs, read them, draw, and
stamp provenance (figures are saved by workflow_scripts.common.figures.save_figure).

Each study's `<study>/figures.py` holds its drawing functions and a FIGURES registry (figure name -> the inputs it
is drawn from, in order, and the function that draws it from those inputs' JSON and an output path). One
Snakemake rule per figure (`disttrain_figure_<name>`, rules/disttrain.smk and rules/disttrain_layers.smk) runs the
study's module, so deleting one figure redraws only it, never the distributed run that made its data.
"""

import logging
from collections.abc import Callable

from workflow_scripts.common import Provenance, read_json

logger = logging.getLogger(__name__)

Registry = dict[str, tuple[tuple[str, ...], Callable[..., None]]]


def draw_figure(study: str, figures: Registry, figure: str, output: str, inputs: dict[str, str | None]) -> None:
    """Draw `figure` of `study` into `output` from the named input files it needs (JSON, read once each)."""
    if figure not in figures:
        raise ValueError(f"disttrain/{study} figure {figure!r}: unknown (known: {', '.join(figures)})")
    sources, draw = figures[figure]
    missing = [source for source in sources if inputs.get(source) is None]
    if missing:
        raise ValueError(f"disttrain/{study} figure {figure!r} is drawn from {', '.join(missing)}, which was not given")
    prov = Provenance.start(step=f"disttrain.{study}.figure.{figure}",
                            config={source: str(inputs[source]) for source in sources})  # fmt: skip
    draw(*(read_json(inputs[source]) for source in sources), output)
    prov.finish([output])
    logger.info("disttrain/%s: drew %s from %s", study, output, ", ".join(str(inputs[s]) for s in sources))
