"""Every figure carries its one-line caption under the plot (workflow_scripts/common/figures.py): the first sentence
of its reStructuredText caption file, drawn in a band under the saved image and written into the PNG's Description
field; and every figure rule names the caption file it draws, the same one its report() entry shows."""

import json
import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

from workflow_scripts.common.figures import (
    CAPTION_MAX_CHARS,
    NOT_MEASURED,
    add_caption,
    caption_text,
    code_names_shown,
    draw_figure,
    figure_texts,
    mark_missing,
    readable,
    save_figure,
)
from workflow_scripts.common.io import read_json

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("rst", "expected"),
    [
        # the first sentence only, its lines joined
        ("Loss per step of each\nstrategy. Matching curves show equal efficiency.\n", "Loss per step of each strategy."),
        # inline markup gives its text: literals, emphasis, strong, interpreted text, roles, links
        ("Bytes of ``ZeRO-3`` and *FSDP2* against **DDP**, see `summary` and :math:`x^2` (`paper <https://x.org>`_).",
         "Bytes of ZeRO-3 and FSDP2 against DDP, see summary and x^2 (paper)."),
        # Jinja templating, which Snakemake renders before reStructuredText, is removed
        ("{# a comment #}{% if x %}The {{ snakemake.params.study }} numbers.{% endif %} More.", "The numbers."),
        # no sentence ends at an abbreviation, a decimal point or before a lower-case word
        ("Speedup 1.5x over e.g. the serial run. vs. the rest. Second sentence.",
         "Speedup 1.5x over e.g. the serial run. vs. the rest."),
        # only the first paragraph counts; a paragraph without a full stop is the caption whole
        ("\n\npass@1 per generator\n\nA second paragraph.", "pass@1 per generator"),
        # a sentence may end before markup that starts the next one
        ("Shares of each verdict. *partly* means the direction holds.", "Shares of each verdict."),
    ],
)  # fmt: skip
def test_caption_is_the_first_sentence_without_markup(tmp_path, rst, expected):
    path = tmp_path / "caption.rst"
    path.write_text(rst)
    assert caption_text(path) == expected


def test_a_caption_without_a_short_first_sentence_is_refused_with_the_fix(tmp_path):
    long_caption = tmp_path / "long.rst"
    long_caption.write_text("Throughput " + "and memory " * 30 + "per strategy.\n")
    with pytest.raises(ValueError, match=rf"long.rst: its first sentence has \d+ characters, more than the "
                                         rf"{CAPTION_MAX_CHARS}.*start the file with a shorter sentence"):  # fmt: skip
        caption_text(long_caption)
    empty = tmp_path / "empty.rst"
    empty.write_text("{# only a template comment #}\n\n")
    with pytest.raises(ValueError, match="empty.rst has no text"):
        caption_text(empty)


def _draw_bars(data: dict, path) -> None:
    """A deterministic figure: the same data draws the same pixels."""
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(list(data), list(data.values()))
    ax.set_ylabel("bytes per rank")
    save_figure(fig, path)


FIGURES = {"bars": (("data",), _draw_bars)}
CAPTION = "Bytes per rank of each strategy, measured at the call site against the analytic model's count."


def test_draw_figure_draws_its_caption_under_the_unchanged_plot(tmp_path):
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"ddp": 3, "fsdp": 1, "tp": 2}))
    caption_file = tmp_path / "bars.rst"
    caption_file.write_text(f"{CAPTION[:-1].replace('analytic', '``analytic``')}. The rest of the caption,\n"
                            "which only the report shows.\n")  # fmt: skip
    plain, captioned = tmp_path / "plain" / "bars.png", tmp_path / "captioned" / "bars.png"
    draw_figure("test", FIGURES, "bars", plain, {"data": data})
    draw_figure("test", FIGURES, "bars", captioned, {"data": data}, caption=caption_file)

    # the caption travels with the file, in the PNG's Description field
    with Image.open(captioned) as image:
        assert image.text["Description"] == CAPTION
    # the plot's pixels are copied 1:1 above a band as wide as the plot
    plot, figure = plt.imread(plain), plt.imread(captioned)
    assert figure.shape[1] == plot.shape[1] and figure.shape[0] > plot.shape[0]
    np.testing.assert_array_equal(figure[: plot.shape[0], :, :3], plot[..., :3])
    band = figure[plot.shape[0]:, :, :3]  # fmt: skip
    assert (band < 0.5).any(), "no dark text was drawn in the caption band"
    assert (band[:3] == 1.0).all() and (band[-3:] == 1.0).all(), "the text touches the band's edge"
    # written whole under its name, with its provenance naming the caption file; no temporary file is left
    assert sorted(p.name for p in captioned.parent.iterdir()) == ["bars.png", "bars.png.prov.json"]
    assert read_json(f"{captioned}.prov.json")["config"]["caption"] == str(caption_file)


def test_a_bad_caption_file_stops_before_any_figure_is_written(tmp_path):
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"ddp": 3}))
    with pytest.raises(FileNotFoundError):
        draw_figure("test", FIGURES, "bars", tmp_path / "out" / "bars.png", {"data": data},
                    caption=tmp_path / "missing.rst")  # fmt: skip
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_the_caption_wraps_to_the_width_of_the_figure(tmp_path):
    path = tmp_path / "narrow.png"
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    save_figure(fig, path)
    width_px = plt.imread(path).shape[1]
    lines = add_caption(path, CAPTION)
    assert len(lines) > 1 and " ".join(lines) == CAPTION
    assert plt.imread(path).shape[1] == width_px


@pytest.mark.parametrize(("label", "code_name"), [
    ("hybrid_fsdp_tp", True), ("dtd_only", True), ("r8c8d2x2/8", True), ("feature baseline", False),
    ("FSDP2 x tensor parallel", False), ("speedup_n@1", False), ("8 x 8 x 2 grid, 2 replicas", False),
])  # fmt: skip
def test_a_code_name_in_any_text_of_a_figure_is_found(label, code_name):
    fig, ax = plt.subplots()
    ax.bar(["DDP", "FSDP2"], [1.0, 2.0])
    ax.set_title(label)
    fig.canvas.draw()
    assert code_names_shown(fig) == ([label] if code_name else [])
    assert {"DDP", "FSDP2", label} <= set(figure_texts(fig))
    plt.close(fig)


def test_a_missing_value_is_written_not_drawn_as_zero():
    fig, ax = plt.subplots()
    values = [0.5, None, 0.0]
    ax.bar(range(3), [float("nan") if v is None else v for v in values])
    mark_missing(ax, [x for x, v in enumerate(values) if v is None])
    # one note where the value is missing; the measured 0 gets none (it is a bar of height 0)
    assert figure_texts(fig).count(NOT_MEASURED) == 1
    assert readable("omp", {"omp": "OpenMP"}) == "OpenMP" and readable("new_strategy", {}) == "new strategy"
    plt.close(fig)


# Loads the workflow (as `snakemake -n` would, with the small config, whose figures are a superset of the tiny
# config's) and lists every rule that makes a PNG: its report() caption and its `caption` input.
_LIST_FIGURE_RULES = """
import json
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
    workflow = api.workflow(resource_settings=ResourceSettings(cores=1), snakefile=Path("Snakefile"), workdir=Path("."),
                            config_settings=ConfigSettings(configfiles=[Path("config/small.yaml")]))._workflow
    rows = []
    for rule in workflow.rules:
        for output in rule.output:
            if output.endswith(".png"):
                report = output.flags.get("report")
                rows.append({"rule": rule.name, "figure": str(output),
                             "report_caption": report and report.caption and report.caption.get_path_or_uri(True),
                             "caption_input": rule.input.get("caption")})
print(json.dumps(rows))
"""


def test_every_figure_rule_draws_the_caption_its_report_entry_shows():
    listed = subprocess.run([sys.executable, "-c", _LIST_FIGURE_RULES], cwd=REPO, capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert listed.returncode == 0, listed.stderr[-3000:]
    rows = json.loads(listed.stdout.strip().splitlines()[-1])
    assert len(rows) >= 30 and "hpccoder_figure_from_scratch_vs_pretrained" in {row["rule"] for row in rows}
    for row in rows:
        assert row["report_caption"] and Path(row["report_caption"]).is_file(), f"{row['rule']}: no caption file"
        assert row["caption_input"], f"{row['rule']} does not give its figure its caption file"
        assert (REPO / row["caption_input"]).resolve() == Path(row["report_caption"]).resolve(), row
        assert caption_text(REPO / row["caption_input"])  # short enough to draw (raises otherwise)
