"""Step pcgbench_build: every sample of a generations file (of one shard's models and problems) built into the
build cache (measure.BuildCache), beside other jobs, and a manifest of what was built."""

import logging
import time
from pathlib import Path

from workflow_scripts.common import Provenance, write_json
from workflow_scripts.measure import PROBLEMS_ROOT, BuildCache, BuildConfig, BuildRequest
from workflow_scripts.pcgbench.samples import load_samples, toolchain_report
from workflow_scripts.pcgbench.shards import Shard

logger = logging.getLogger(__name__)


def main(generations: Path, manifest: Path, cache_dir: Path, *, jobs: int, compile_timeout_s: float, generator: str,
         seed: int, shard: Shard | None = None) -> list[dict]:  # fmt: skip
    """Build every sample of a generations file (of one shard's models and problems, shards.py) into the cache (no
    timing: runs beside other jobs) and write a manifest: per sample its key, whether it built, the compile time
    spent and the trimmed log."""
    prov = Provenance.start(step="pcgbench.build", config={"jobs": jobs, "compile_timeout_s": compile_timeout_s},
                            seed=seed)  # fmt: skip
    samples, _ = load_samples(generations, generator, PROBLEMS_ROOT)
    if shard is not None:
        samples = [s for s in samples if shard.holds(s.exec_model, s.problem.name)]
    # Models that cannot be built here are skipped (and reported) as the evaluation will skip them.
    skipped = toolchain_report({s.exec_model for s in samples})
    samples = [s for s in samples if s.exec_model not in skipped]
    cache = BuildCache(BuildConfig(cache_dir=cache_dir, jobs=jobs, compile_timeout_s=compile_timeout_s))
    started = time.perf_counter()
    results = cache.build_all([BuildRequest(problem=s.problem, exec_model=s.exec_model, body=s.body) for s in samples])
    entries = [{"problem": s.problem.name, "model": s.exec_model, "sample_index": s.sample_index, "key": r.key,
                "ok": r.ok, "cached": r.cached, "compile_s": r.compile_s, "log": r.log}
               for s, r in zip(samples, results, strict=True)]  # fmt: skip
    write_json(manifest, {"generator": generator, "wall_s": time.perf_counter() - started, "skipped_models": skipped,
                          "samples": entries})  # fmt: skip
    logger.info("%s: %d samples, %d built, %d compiled in this run", generator, len(entries),
                sum(e["ok"] for e in entries), sum(not e["cached"] for e in entries))
    prov.finish([manifest])
    return entries


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(Path(smk.input.generations), Path(smk.output.manifest), Path(smk.params.evaluate["cache_dir"]),
         jobs=smk.threads, compile_timeout_s=smk.params.evaluate["compile_timeout_s"],
         generator=smk.wildcards.generator, seed=smk.params.seed, shard=Shard(**smk.params.shard))
