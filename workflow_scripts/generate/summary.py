"""Summary of the `generate` target: per (prompt set, model), samples, tokens/s and how outputs ended.

Inputs: the `.stats.json` and `.json` (ParEval) files of every configured (prompt set, model).
Output: results/generate/summary.json with one row per pair:
samples, new tokens, generation time and tokens/s, finish reasons, retries, and the share of
extracted bodies whose braces close (a body that does not close cannot build: a quick signal of
whether max_new_tokens and the stop strings suit a model).

Run: `snakemake generate`, or main([stats...], [generations...], "summary.json").
"""

# No `from __future__ import annotations`: Snakemake's script: directive puts its preamble first.
import logging
import os
from pathlib import Path

from workflow_scripts.common import Provenance, configure_logging, read_json, write_json
from workflow_scripts.generate.extract import matching_brace_end

logger = logging.getLogger(__name__)


def body_closes(body: str) -> bool:
    """True when the body's braces close the function (it ends with the function's own "}")."""
    end = matching_brace_end(body)
    return end is not None and not body[end:].strip()


def main(stats_paths: list[str | os.PathLike], generation_paths: list[str | os.PathLike],
         out_path: str | os.PathLike) -> dict:  # fmt: skip
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
    provenance.finish([out_path])
    return summary


if __name__ == "__main__":
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(list(smk.input.stats), list(smk.input.generations), smk.output.summary)
