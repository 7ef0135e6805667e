"""One HPC-Coder figure from the one metrics file it is drawn from.

Inputs: `results/hpccoder/pretrain_metrics.json` (pretraining_loss), `results/hpccoder/pragma/metrics.json`
(pragma_prediction), `results/hpccoder/completion/metrics.json` (code_completion),
`results/hpccoder/perfchange/metrics.json` (performance_change). Output: `results/hpccoder/figures/<name>.png`.
The drawing is in `workflow_scripts/lm/report.py` (`FIGURES`); this is the entry point of the
`hpccoder_figure_<name>` rules, one per figure, so deleting one figure redraws only it.

Run: `snakemake results/hpccoder/figures/pragma_prediction.png`, or
`main(figure="pragma_prediction", output=..., metrics_path=...)` from Python.
"""

from workflow_scripts.common import Provenance, configure_logging, read_json
from workflow_scripts.lm.report import FIGURES


def main(*, figure: str, output, metrics_path) -> None:
    if figure not in FIGURES:
        raise ValueError(f"hpccoder figure {figure!r}: unknown (known: {', '.join(FIGURES)})")
    prov = Provenance.start(step=f"hpccoder.figure.{figure}", config={"metrics": str(metrics_path)})
    FIGURES[figure](read_json(metrics_path), output)
    prov.finish([output])


if __name__ == "__main__":
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(figure=smk.params.figure, output=smk.output.figure, metrics_path=smk.input.metrics)
