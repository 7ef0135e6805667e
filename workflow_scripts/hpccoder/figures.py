"""One HPC-Coder figure from the one metrics file it is drawn from.

Inputs: `results/hpccoder/pretrain_metrics.json` (pretraining_loss), `results/hpccoder/pragma/metrics.json`
(pragma_prediction), `results/hpccoder/completion/metrics.json` (code_completion),
`results/hpccoder/perfchange/metrics.json` (performance_change), `results/hpccoder/summary.json`
(from_scratch_vs_pretrained, with `hpccoder.from_scratch`). Output: `results/hpccoder/figures/<name>.png`.
The drawing is in `workflow_scripts/hpccoder/summary.py` (`FIGURES`); this is the entry point of the
`hpccoder_figure_<name>` rules, one per figure, so deleting one figure redraws only it.

Run: `snakemake results/hpccoder/figures/pragma_prediction.png`, or
`main(figure="pragma_prediction", output=..., metrics_path=...)` from Python.
"""

from workflow_scripts.common import snakemake_step
from workflow_scripts.common.figures import draw_figure
from workflow_scripts.hpccoder.summary import FIGURES


def main(*, figure: str, output, metrics_path, caption=None) -> None:
    draw_figure("hpccoder", FIGURES, figure, output, {"metrics": metrics_path}, caption=caption)


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, metrics_path=smk.input.metrics, caption=smk.input.caption)
