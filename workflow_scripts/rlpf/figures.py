"""One RLPF figure from the files it is drawn from.

Inputs: expected_speedup, the evaluation metrics `results/rlpf/eval/<model>/metrics.json` of base, sft, rl and dpo;
training_curves, `results/rlpf/curves/{sft,dpo,rl}.json`. Output: `results/rlpf/figures/<name>.png`.
The drawing is in `workflow_scripts/rlpf/summary.py` (`FIGURES`); this is the entry point of the
`rlpf_figure_<name>` rules, one per figure, so deleting one figure redraws only it.

Run: `snakemake results/rlpf/figures/training_curves.png`, or
`main(figure="training_curves", output=..., curve_paths={...})` from Python.
"""

from workflow_scripts.common import snakemake_step
from workflow_scripts.common.figures import draw_figure
from workflow_scripts.rlpf.summary import FIGURES


def main(*, figure: str, output, metrics_paths: dict | None = None, curve_paths: dict | None = None,
         caption=None) -> None:  # fmt: skip
    """`metrics_paths` and `curve_paths` map a model name (base, sft, rl, dpo) to its file; `caption` is the
    figure's caption file."""
    draw_figure("rlpf", FIGURES, figure, output, {"metrics": metrics_paths, "curves": curve_paths}, caption=caption)


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    inputs = dict(smk.input.items())  # named inputs: metrics_<model> or curve_<model>
    main(figure=smk.params.figure, output=smk.output.figure,
         metrics_paths={k.removeprefix("metrics_"): v for k, v in inputs.items() if k.startswith("metrics_")} or None,
         curve_paths={k.removeprefix("curve_"): v for k, v in inputs.items() if k.startswith("curve_")} or None,
         caption=smk.input.caption)  # fmt: skip
