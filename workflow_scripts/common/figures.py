"""Drawing one figure and saving it: one place for every study's figures.

Each study's `<study>/figures.py` holds its drawing functions and a FIGURES registry (figure name -> the inputs it
is drawn from, in order, and the function that draws it from those inputs' contents and an output path), and its
`main` calls `draw_figure`. One Snakemake rule per figure runs the study's module, so deleting one figure redraws
only it, never the step that made its data.

Every figure carries its one-line caption in a band drawn under the plot: Snakemake's HTML report shows a figure's
caption (rules/captions/*.rst, attached by `report(..., caption=...)`) only behind an "i" icon, and a copied PNG has
none. The figure rule gives its caption file as the input `caption`; `caption_text` takes the file's first sentence
(the text lives in the caption file only) and `add_caption` draws it under the saved image and into the PNG's
Description field.

Kept out of `workflow_scripts.common`'s package namespace so that scripts that draw nothing do not import
matplotlib at start-up.
"""

import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402

from workflow_scripts.common.io import atomic_path, read_json  # noqa: E402
from workflow_scripts.common.provenance import Provenance  # noqa: E402

logger = logging.getLogger(__name__)

Registry = dict[str, tuple[tuple[str, ...], Callable[..., None]]]
# An input is one file, a list of files (read to a list) or a dict of files (read to a dict with the same keys).
Input = str | os.PathLike | list | tuple | dict | None

DPI = 120  # pixels per inch of every saved figure; the caption band is drawn at the same resolution
CAPTION_MAX_CHARS = 180  # a caption's first sentence: about two lines under a figure of common width
CAPTION_FONT_PT = 9
CAPTION_PAD_PX = 8  # white space around the caption inside its band

# Jinja comments, statements and expressions, which Snakemake renders in a caption before reStructuredText.
_JINJA = re.compile(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", re.DOTALL)
# Inline reStructuredText, replaced by its text: :role:`text <target>`, `text <url>`_, ``literal``, `interpreted`,
# **strong**, *emphasis*.
_RST_INLINE = [
    (re.compile(r":[\w.:+-]+:`([^`]*?)(?:\s*<[^`>]*>)?`"), r"\1"),
    (re.compile(r"`([^`<]*?)\s*<[^`>]*>`__?"), r"\1"),
    (re.compile(r"``(.*?)``"), r"\1"),
    (re.compile(r"`([^`]*)`_{0,2}"), r"\1"),
    (re.compile(r"\*\*(.+?)\*\*"), r"\1"),
    (re.compile(r"\*(.+?)\*"), r"\1"),
]
# A sentence ends at . ! or ? followed by the end of the paragraph or by a space and what starts a sentence (a capital,
# a quote, a parenthesis or markup), so "e.g. a" and "1.5" do not end one.
_SENTENCE_END = re.compile(r"[.!?](?=$|\s+[A-Z\"'(*`])")


# Figures label what they show in words, never with a config key or a code name: each study maps its own names
# (strategies, variants, features) in its figures module; the names several studies share live here.
EXECUTION_MODEL_NAMES = {"serial": "serial", "omp": "OpenMP", "mpi": "MPI", "mpi+omp": "MPI+OpenMP",
                         "kokkos": "Kokkos", "cuda": "CUDA", "hip": "HIP"}  # fmt: skip
VERDICT_NAMES = {"ok": "correct", "build_error": "build error", "prompt_mismatch": "prompt mismatch",
                 "tampering": "tampering", "timeout": "timeout", "crash": "crash", "wrong_answer": "wrong answer",
                 "race_detected": "data race", "resource_overuse": "resource overuse",
                 "killed_resource_limit": "resource limit", "no_parallelism": "no parallelism",
                 "build_only": "built only (no GPU)", "unavailable": "no toolchain"}  # fmt: skip

# Passing samples green, failures that never ran grey (tampering black: refused before any run), wrong or failed
# runs in warm colours.
VERDICT_COLOURS = {"ok": "tab:green", "build_error": "tab:gray", "prompt_mismatch": "lightgray",
                   "tampering": "black", "no_parallelism": "tab:olive", "wrong_answer": "tab:orange",
                   "crash": "tab:red", "race_detected": "tab:pink", "resource_overuse": "tab:cyan",
                   "timeout": "tab:purple", "killed_resource_limit": "tab:brown"}  # fmt: skip
# Generators (generate.models and PCGBench's self-test generators) by the name they have in the config.
GENERATOR_NAMES = {"reference": "reference solutions", "serial": "serial solutions", "mutants": "mutants",
                   "hpccoder": "HPC-Coder", "hpccoder_http": "HPC-Coder over HTTP",
                   "hpccoder_from_scratch": "HPC-Coder from scratch",
                   "smollm2_135m": "SmolLM2-135M"}  # fmt: skip
NOT_MEASURED = "n/m"  # written where a value was not measured (or cannot be estimated): never drawn as a 0 bar


def readable(name: str, names: dict[str, str]) -> str:
    """The name a figure shows for the code name `name`: `names[name]`, else the code name with its underscores as
    spaces (so a name added to a config without a label here still reads as words)."""
    return names.get(name, name.replace("_", " "))


# A code name: lower-case words joined by underscores (dtd_only, hybrid_fsdp_tp) or Tensor3D's grid label (r8c8d2x2).
# The papers' metric names (speedup_n@1, build@k) are their notation, not code names.
_CODE_NAME = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b(?!@)|\br\d+c\d+d\d+x\d+\b")


def figure_texts(fig) -> list[str]:
    """Every text a reader sees in `fig`: titles, axis labels, tick labels, legends and annotations."""
    texts = [fig.get_suptitle(), *(t.get_text() for t in fig.texts),
             *(t.get_text() for legend in fig.legends for t in legend.get_texts())]  # fmt: skip
    for ax in fig.axes:
        texts += [ax.get_title(loc) for loc in ("left", "center", "right")] + [ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in (*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels())]
        if ax.get_legend() is not None:
            texts += [t.get_text() for t in ax.get_legend().get_texts()] + [ax.get_legend().get_title().get_text()]
    return [text for text in texts if text]


def code_names_shown(fig) -> list[str]:
    """The texts of `fig` that show a code name instead of words: what the figure tests check is empty."""
    return [text for text in figure_texts(fig) if _CODE_NAME.search(text)]


def legend_outside(ax, **kwargs):
    """A legend right of the axes, where it covers no data (`save_figure`'s tight bounding box keeps it in the
    image); `kwargs` go to `ax.legend` (fontsize, ncol, handles)."""
    return ax.legend(**{"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0, "fontsize": 8}
                     | kwargs)  # fmt: skip


def legend_below(fig, axes, **kwargs):
    """One legend for the whole figure, centred under its axes (for figures whose panels are side by side, where a
    legend to the right would make the figure too wide); `axes` gives the handles (the first axes' by default)."""
    handles, labels = axes.get_legend_handles_labels()
    return fig.legend(handles, labels, **{"loc": "upper center", "bbox_to_anchor": (0.5, 0.0), "fontsize": 8,
                                          "ncol": min(len(labels), 4), "frameon": False} | kwargs)  # fmt: skip


def mark_missing(ax, xs, text: str = NOT_MEASURED, *, horizontal: bool = False, **kwargs) -> None:
    """Write `text` at the base of each bar position in `xs` that has no value (a missing value is no bar with this
    note, never a bar of height 0); `horizontal` for `barh` plots, where `xs` are y positions."""
    style = {"fontsize": 7, "color": "0.35", "ha": "left" if horizontal else "center",
             "va": "center" if horizontal else "bottom"} | kwargs  # fmt: skip
    for x in xs:
        if horizontal:
            ax.annotate(text, (0, x), xycoords=("axes fraction", "data"), xytext=(3, 0), textcoords="offset points",
                        **style)  # fmt: skip
        else:
            ax.annotate(text, (x, 0), xycoords=("data", "axes fraction"), xytext=(0, 2), textcoords="offset points",
                        **style)  # fmt: skip


def save_figure(fig, path: str | os.PathLike) -> None:
    """Write `fig` as a PNG atomically (a killed job leaves no half-written figure) and close it."""
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


def caption_text(caption_file: str | os.PathLike) -> str:
    """The one-line caption of a figure: the first sentence of its reStructuredText caption file, with Jinja
    templating and inline markup removed and whitespace collapsed."""
    text = _JINJA.sub("", Path(caption_file).read_text(encoding="utf-8"))
    paragraph = next((p for p in re.split(r"\n\s*\n", text) if p.strip()), "")
    paragraph = " ".join(paragraph.split())
    end = _SENTENCE_END.search(paragraph)
    sentence = paragraph[: end.end()] if end else paragraph
    for pattern, replacement in _RST_INLINE:
        sentence = pattern.sub(replacement, sentence)
    sentence = " ".join(sentence.split())
    if not sentence:
        raise ValueError(f"caption file {caption_file} has no text: write a one-line sentence that says what the "
                         "figure shows at its top")  # fmt: skip
    if len(sentence) > CAPTION_MAX_CHARS:
        raise ValueError(f"caption file {caption_file}: its first sentence has {len(sentence)} characters, more than "
                         f"the {CAPTION_MAX_CHARS} drawn under the figure; start the file with a shorter sentence that "
                         f"says what the figure shows (it begins: {sentence[:80]!r})")  # fmt: skip
    return sentence


def _wrap(caption: str, width_px: float, renderer, font: FontProperties) -> list[str]:
    """Break `caption` at spaces into lines no wider than `width_px` as `renderer` draws them in `font` (a word wider
    than the line stands alone)."""
    lines, line = [], ""
    for word in caption.split():
        candidate = f"{line} {word}" if line else word
        if line and renderer.get_text_width_height_descent(candidate, font, ismath=False)[0] > width_px:
            lines.append(line)
            candidate = word
        line = candidate
    return [*lines, line]


def add_caption(path: str | os.PathLike, caption: str) -> list[str]:
    """Redraw the PNG at `path` with `caption` wrapped in a white band under it, and in its Description field.

    The figure's pixels are copied unchanged (placed 1:1, no resampling). Written atomically; returns the lines
    drawn."""
    image = plt.imread(path)  # (H, W, 3 or 4) floats in [0, 1]
    height_px, width_px = image.shape[:2]
    font = FontProperties(size=CAPTION_FONT_PT)
    fig = Figure(dpi=DPI)  # not pyplot's: nothing global to close
    lines = _wrap(caption, width_px - 2 * CAPTION_PAD_PX, FigureCanvasAgg(fig).get_renderer(), font)
    line_px = 1.3 * CAPTION_FONT_PT * DPI / 72  # matplotlib's default line spacing is 1.2 of the font size
    band_px = round(len(lines) * line_px + 2 * CAPTION_PAD_PX)
    # Half a pixel more than the exact size, so that the float division never rounds a pixel away.
    fig.set_size_inches((width_px + 0.5) / DPI, (height_px + band_px + 0.5) / DPI)
    fig.figimage(image, xo=0, yo=band_px, origin="upper")
    fig.text(CAPTION_PAD_PX / fig.bbox.width, (band_px - CAPTION_PAD_PX) / fig.bbox.height, "\n".join(lines),
             fontproperties=font, ha="left", va="top", linespacing=1.3, parse_math=False)  # fmt: skip
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=DPI, facecolor="white", metadata={"Description": caption})
    return lines


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
                inputs: dict[str, Input], caption: str | os.PathLike | None = None) -> None:  # fmt: skip
    """Draw `figure` of `study` (e.g. "pcgbench", "disttrain/survey") into `output` from the named inputs it
    needs (each read once), with the first sentence of the `caption` file (the figure rule's reStructuredText
    caption) under it, and write its provenance beside it (step `<study with dots>.figure.<figure>`)."""
    if figure not in figures:
        raise ValueError(f"{study} figure {figure!r}: unknown (known: {', '.join(figures)})")
    sources, draw = figures[figure]
    missing = [source for source in sources if inputs.get(source) is None or inputs[source] in ([], {})]
    if missing:
        raise ValueError(f"{study} figure {figure!r} is drawn from {', '.join(missing)}, which was not given")
    caption_line = caption_text(caption) if caption is not None else None  # a bad caption file stops before drawing
    config = {source: _describe(inputs[source]) for source in sources}
    if caption is not None:
        config["caption"] = str(caption)
    prov = Provenance.start(step=f"{study.replace('/', '.')}.figure.{figure}", config=config)
    # Drawn and captioned under a temporary name: the figure appears under `output` whole, caption included.
    with atomic_path(output, suffix=".png") as tmp:
        draw(*(_read(inputs[source]) for source in sources), tmp)
        if caption_line is not None:
            add_caption(tmp, caption_line)
    prov.finish([output])
    logger.info("%s: drew %s from %s", study, output, ", ".join(str(_describe(inputs[s])) for s in sources))
