"""Summary of the `generate` target: per (prompt set, model), samples, tokens/s and how outputs ended.

Inputs: the `.stats.json` and `.json` (ParEval) files of every configured (prompt set, model).
Outputs: results/generate/summary.json with one row per pair: samples, new tokens, generation time
and tokens/s, finish reasons, retries, and the share of extracted bodies whose braces close (a body
that does not close cannot build: a quick signal of whether max_new_tokens and the stop strings suit
a model); and a figure with tokens/s and how samples ended, per (prompt set, model).

Run: `snakemake generate`, or main([stats...], [generations...], "summary.json", "generation.png").
"""

# No `from __future__ import annotations`: Snakemake's script: directive puts its preamble first.
import logging
import os
from pathlib import Path

from workflow_scripts.common import Provenance, read_json, snakemake_step, write_json
from workflow_scripts.common.c_scanner import matching_brace_end

logger = logging.getLogger(__name__)


def body_closes(body: str) -> bool:
    """True when the body's braces close the function (it ends with the function's own "}")."""
    end = matching_brace_end(body)
    return end is not None and not body[end:].strip()


# Names the figure shows for the prompt sets (generate.prompt_sets); a model is named by common.figures'
# GENERATOR_NAMES, and a name missing from either map shows with its underscores as spaces.
PROMPT_SET_NAMES = {"pcgbench": "PCGBench prompts", "rlpf": "RLPF tasks"}


def plot(rows: list[dict], figure_path: str | os.PathLike) -> None:
    """Tokens/s and how samples ended, one row per (prompt set, model); a value not measured (a resumed run's
    throughput, no body to check) has no bar and says "n/m", so it never reads as 0."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from workflow_scripts.common.figures import (
        GENERATOR_NAMES,
        NOT_MEASURED,
        legend_below,
        mark_missing,
        readable,
        save_figure,
    )

    labels = [f"{readable(r['model'], GENERATOR_NAMES)}\n{readable(r['prompt_set'], PROMPT_SET_NAMES)}" for r in rows]
    y = list(range(len(rows)))
    fig, (speed, ends) = plt.subplots(1, 2, figsize=(10, 0.7 * len(rows) + 2), sharey=True)
    speeds = [r["tokens_per_s"] for r in rows]
    speed.barh(y, [float("nan") if v is None else v for v in speeds], color="tab:blue")
    mark_missing(speed, [i for i, v in zip(y, speeds, strict=True) if v is None],
                 f"{NOT_MEASURED} (resumed run: not timed)", horizontal=True)  # fmt: skip
    speed.set_yticks(y, labels)
    speed.set_xlabel("new tokens per second (generation only)")
    speed.set_title("throughput")
    stopped = [r["finish_reasons"].get("stop", 0) / r["samples"] for r in rows]
    closed = [r["bodies_closed_fraction"] for r in rows]  # None: no body to check
    ends.barh([i + 0.2 for i in y], stopped, height=0.4, label="ended at a stop (not the token limit)")
    ends.barh([i - 0.2 for i in y], [float("nan") if v is None else v for v in closed], height=0.4,
              label="extracted body closes its braces")  # fmt: skip
    mark_missing(ends, [i - 0.2 for i, v in zip(y, closed, strict=True) if v is None], horizontal=True)
    ends.set_xlim(0, 1)
    ends.set_xlabel("share of samples")
    ends.set_title("how samples ended")
    legend_below(fig, ends, ncol=2)
    fig.tight_layout()
    save_figure(fig, figure_path)


def main(stats_paths: list[str | os.PathLike], generation_paths: list[str | os.PathLike],
         out_path: str | os.PathLike, figure_path: str | os.PathLike | None = None,
         caption: str | os.PathLike | None = None) -> dict:  # fmt: skip
    provenance = Provenance.start(step="generate.summary")
    rows = []
    for stats_path, generations_path in zip(stats_paths, generation_paths, strict=True):
        stats = read_json(stats_path)
        bodies = [body for record in read_json(generations_path) for body in record["outputs"]]
        closed = sum(body_closes(b) for b in bodies)
        rows.append({
            "prompt_set": Path(generations_path).parent.name, **stats,
            "bodies_closed": closed, "bodies_closed_fraction": closed / len(bodies) if bodies else None,
        })  # fmt: skip
        logger.info("%s/%s: %d samples, %s tokens/s, %d/%d bodies close", rows[-1]["prompt_set"], stats["model"],
                    stats["samples"], stats["tokens_per_s"], closed, len(bodies))  # fmt: skip
    summary = {"runs": sorted(rows, key=lambda r: (r["prompt_set"], r["model"]))}
    write_json(out_path, summary)
    if figure_path:
        plot(summary["runs"], figure_path)
        if caption:  # the report's caption file: its first sentence drawn under the figure
            from workflow_scripts.common.figures import add_caption, caption_text

            add_caption(figure_path, caption_text(caption))
    provenance.finish([out_path, *([figure_path] if figure_path else [])])
    return summary


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(list(smk.input.stats), list(smk.input.generations), smk.output.summary, smk.output.figure,
         smk.input.caption)  # fmt: skip
