"""The `generate` stage: sample N completions per prompt from one model, extract the bodies, write ParEval JSON.

Inputs: a prompt set in ParEval's JSON format (a list of records with name, problem_type,
parallelism_model, language, prompt, outputs; a translation record, ParEval's second task family, adds
translation_prompt and its source and target models: the model is given its translation_prompt, as ParEval's
translate.py does, workflow_scripts/pcgbench/translation.py), one model's entry of `generate.models` (its backend
and settings), the sampling settings (`generate.sampling`) and the workflow seed.
Outputs, for <results>/generate/{prompt_set}/{model} (<results>: the config's results folder):
- `.json`: the prompt records with `outputs` = N extracted function bodies each, and a `sampling`
  record (temperature, top_p, n, max_new_tokens, seed);
- `.samples.jsonl`: every sample's raw text, finish reason and token count (for auditing extraction);
- `.stats.json`: samples, tokens, generation time and tokens/s of this run, retries.

Resume: each finished sample is appended to `<output>.journal.jsonl` at once (journal.py). A killed run
rerun with the same settings generates only the missing samples; batches and per-sample seeds are fixed
by the task list, not by what was already done, so a resumed run writes the same samples as an
uninterrupted one. The journal is removed once the outputs are written.

Backends (`backend:` of a model entry): `hf` (hf_backend.py, a local checkpoint) and `openai`
(openai_backend.py, any OpenAI-compatible endpoint, or `serve_local:` to serve a local checkpoint on
127.0.0.1 with server.py for the run). The self-test generators (reference, serial, mutants) belong to
the PCGBench harness (workflow_scripts/pcgbench/generators.py).

Run: `snakemake results/generate/pcgbench/hpccoder.json`, or from Python:
    main("results/pcgbench/prompts.json", "out.json", model_name="m", model_config={"backend": "hf", "path": DIR},
         sampling={"n": 2}, seed=1234)
"""

# No `from __future__ import annotations`: Snakemake's script: directive puts its preamble first.
import argparse
import concurrent.futures
import hashlib
import json
import logging
import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from workflow_scripts.common import (
    Progress,
    Provenance,
    configure_logging,
    snakemake_step,
    write_json,
    write_text,
)
from workflow_scripts.common.c_scanner import matching_brace_end
from workflow_scripts.common.config import schema_default, schema_defaults
from workflow_scripts.common.model_source import FETCH_ROOT, fetch_root_in, input_paths
from workflow_scripts.generate.backend_result import Completion
from workflow_scripts.generate.extract import extract_body
from workflow_scripts.generate.journal import SampleJournal
from workflow_scripts.pcgbench import (
    SELF_TEST_GENERATORS,
    is_translation,
    load_generations,
    model_prompt,
    validate_records,
)

logger = logging.getLogger(__name__)

BACKENDS = ("hf", "openai")
GENERATION_KEYS = ("sampling", "execution_models")  # keys of a model entry that are not its backend's
RECORD_FIELDS = ("name", "problem_type", "parallelism_model", "language", "prompt")


@dataclass(kw_only=True)
class SamplingConfig:
    """How samples are drawn; the same for every model so that results compare (the paper: 20, 0.2, 0.95)."""

    n: int = schema_default("generate.sampling.n")  # samples per prompt (N of pass@k; k <= N)
    # 0 means greedy decoding (then n > 1 repeats the same text)
    temperature: float = schema_default("generate.sampling.temperature")
    top_p: float = schema_default("generate.sampling.top_p")  # nucleus sampling mass
    max_new_tokens: int = schema_default("generate.sampling.max_new_tokens")  # per sample

    def __post_init__(self):
        if self.n < 1:
            raise ValueError(f"generate.sampling.n={self.n}: must be >= 1")
        if self.temperature < 0:
            raise ValueError(f"generate.sampling.temperature={self.temperature}: must be >= 0 (0 = greedy)")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"generate.sampling.top_p={self.top_p}: must be in (0, 1]")
        if self.max_new_tokens < 1:
            raise ValueError(f"generate.sampling.max_new_tokens={self.max_new_tokens}: must be >= 1")


def backend_config(model_name: str, entry: dict[str, Any], fetch_root: str | os.PathLike = FETCH_ROOT):
    """The backend's config object for one `generate.models.<name>` entry (errors name the model); a PyPI-shipped
    model is looked for under `fetch_root` (model_source.fetch_root_in(<the config's results>))."""
    from workflow_scripts.generate.openai_backend import OpenAIBackendConfig

    entry = dict(entry)
    backend = entry.pop("backend", None)
    for key in GENERATION_KEYS:  # what is generated (main() reads them), not how the backend runs
        entry.pop(key, None)
    if model_name in SELF_TEST_GENERATORS:
        raise ValueError(f"generate.models.{model_name}: '{model_name}' is a PCGBench self-test generator, made by "
                         "the pcgbench rules (results/pcgbench/generations/); pick another model name")  # fmt: skip
    if backend not in BACKENDS:
        raise ValueError(f"generate.models.{model_name}.backend={backend!r}: allowed {', '.join(BACKENDS)}")
    try:
        if backend == "hf":
            from workflow_scripts.generate.hf_backend import HFBackendConfig

            cfg = HFBackendConfig(**entry)
            # Errors at load time (a missing or corrupt model file) name this model's key.
            cfg.model_source = replace(cfg.model_source, key=cfg.model_source.key.replace("<name>", model_name),
                                       fetch_root=Path(fetch_root))  # fmt: skip
            return cfg
        return OpenAIBackendConfig(**entry)
    except TypeError as err:  # an unknown or missing key
        raise ValueError(f"generate.models.{model_name} ({backend}): {err}") from None
    except ValueError as err:
        raise ValueError(str(err).replace("<name>", model_name)) from None


def model_input_paths(entry: dict[str, Any], results: str) -> list[str]:
    """Model files a model entry reads (Snakemake inputs, so the model is built or fetched first).

    An hf entry's `source` or `path`, or an openai entry's `serve_local`; which of them are inputs is
    model_source.input_paths's rule (a fetched or workflow-made model, in the results folder `results`,
    always; a cluster path not filled in yet is left out, so the paper config's DAG still builds).
    """
    spec = (entry.get("source") or entry.get("path")) if entry.get("backend") == "hf" else entry.get("serve_local")
    return input_paths(spec, results=results)


def derived_seed(seed: int, *parts: object) -> int:
    """A seed for one batch or sample, from the workflow seed and its position (not from run history)."""
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF  # fits every server's 32-bit seed field


def completed_text(completion: Completion, stops: list[str]) -> str:
    """The generated text with the stop string that ended it put back.

    The stop string for continuation models is the function's closing "\\n}": the API drops it, the
    harness needs it. vLLM and the local server report which one matched; a hosted API that does not
    is given back the first stop string that closes the function's braces.
    """
    if completion.stop_reason:
        return completion.text + completion.stop_reason
    if completion.finish_reason == "stop" and matching_brace_end(completion.text) is None:
        for stop in stops:
            if matching_brace_end(completion.text + stop) is not None:
                return completion.text + stop
    return completion.text


def _sample_record(prompt_index: int, sample_index: int, prompt: str, completion: Completion, stops: list[str]):
    text = completed_text(completion, stops)
    return {"prompt_index": prompt_index, "sample_index": sample_index, "raw": text, "body": extract_body(prompt, text),
            "finish_reason": completion.finish_reason, "new_tokens": completion.new_tokens}  # fmt: skip


def _run_hf(cfg, records, tasks, journal: SampleJournal, sampling: SamplingConfig, seed: int) -> dict[str, float]:
    from workflow_scripts.generate.hf_backend import HFEngine, placement

    engine = HFEngine.load(cfg)
    started = time.perf_counter()  # generation only: loading the model is not throughput
    # Batches are fixed slices of the full task list, each with its own seed, so a batch has the same
    # members and the same samples whether or not an earlier run already did part of the work.
    batches = [tasks[i : i + cfg.batch_size] for i in range(0, len(tasks), cfg.batch_size)]
    pending = {number for number, batch in enumerate(batches) if not all(task in journal.samples for task in batch)}
    progress = Progress("generated batches", total=len(pending), unit="batch", logger=logger)
    for number, batch in enumerate(batches):
        if number not in pending:
            continue
        start = time.perf_counter()
        completions = engine.generate([model_prompt(records[p]) for p, _ in batch], max_new_tokens=sampling.max_new_tokens,
                                      temperature=sampling.temperature, top_p=sampling.top_p, stop=cfg.stop,
                                      seed=derived_seed(seed, "batch", number))  # fmt: skip
        journal.append([_sample_record(p, s, model_prompt(records[p]), c, cfg.stop)
                        for (p, s), c in zip(batch, completions, strict=True)])  # fmt: skip
        tokens = sum(c.new_tokens for c in completions)
        logger.info("batch %d/%d: %d samples, %d new tokens in %.2f s; %d/%d samples done", number + 1, len(batches),
                    len(batch), tokens, time.perf_counter() - start, len(journal.samples), len(tasks))  # fmt: skip
        progress.advance()
    progress.finish()
    return {"retries": 0, "generation_time_s": time.perf_counter() - started, "device": placement(engine.model),
            "model_file": str(engine.local), "model_sha256": cfg.model_source.sha256}  # fmt: skip


def _run_openai(cfg, records, tasks, journal: SampleJournal, sampling: SamplingConfig, seed: int) -> dict[str, float]:
    from contextlib import ExitStack

    from workflow_scripts.generate.openai_backend import OpenAIClient

    with ExitStack() as stack:
        base_url = cfg.base_url
        if cfg.serve_local:
            from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine
            from workflow_scripts.generate.server import serve_in_thread

            engine = HFEngine.load(HFBackendConfig(path=cfg.serve_local, stop=cfg.stop or ["\n}"]))
            base_url = stack.enter_context(serve_in_thread(engine, model_name=cfg.model or cfg.serve_local))
        client = OpenAIClient(cfg, base_url=base_url, seed=seed)
        served = client.check_reachable()
        logger.info("%r answers; it serves %s", client, served)
        if not cfg.model and served:
            cfg.model = served[0]
        # Requests: consecutive sample indices of one prompt, `samples_per_request` at a time, each with a
        # seed fixed by (prompt, first sample): the same requests whether or not a run resumes.
        n = sampling.n
        per_request = min(cfg.samples_per_request, n)
        requests = [(p, list(range(first, min(first + per_request, n))))
                    for p in range(len(records)) for first in range(0, n, per_request)]  # fmt: skip
        pending = [(p, group) for p, group in requests if any((p, s) not in journal.samples for s in group)]
        started = time.perf_counter()
        pool = stack.enter_context(concurrent.futures.ThreadPoolExecutor(max_workers=cfg.max_concurrency))
        futures = {
            pool.submit(client.complete, model_prompt(records[p]), max_new_tokens=sampling.max_new_tokens,
                        temperature=sampling.temperature, top_p=sampling.top_p, n=len(group),
                        seed=derived_seed(seed, "sample", p, group[0])): (p, group)
            for p, group in pending
        }  # fmt: skip
        progress = Progress("requests", total=len(pending), unit="request", logger=logger)
        try:
            for future in concurrent.futures.as_completed(futures):
                p, group = futures[future]
                # Only this thread writes the journal; requests finish in any order.
                journal.append([_sample_record(p, s, model_prompt(records[p]), c, cfg.stop)
                                for s, c in zip(group, future.result(), strict=True)])  # fmt: skip
                progress.advance(note=f"{len(journal.samples)} samples in the journal")
            progress.finish(note=f"{len(journal.samples)} samples in the journal")
        except BaseException:
            for future in futures:
                future.cancel()  # do not start requests whose results nobody will record
            raise
    return {"retries": client.retries_done, "generation_time_s": time.perf_counter() - started}


def main(prompts_path: str | os.PathLike, out_path: str | os.PathLike, *, model_name: str, model_config: dict[str, Any],
         sampling: dict[str, Any], seed: int, samples_path: str | os.PathLike | None = None,
         stats_path: str | os.PathLike | None = None, cpu_threads: int | None = None,
         fetch_root: str | os.PathLike = FETCH_ROOT) -> dict[str, Any]:  # fmt: skip
    """Generate `sampling.n` samples per prompt with one model; write the outputs; return the run's stats.

    `fetch_root`: where a PyPI-shipped model is (model_source.fetch_root_in(<the config's results folder>)).

    `cpu_threads` caps torch's CPU threads (the rule's `threads:`). It matters: measured here, a tiny model
    with 2 threads on 2 cores that other jobs also use ran about 10x slower than with 1 thread, because
    the threads spin waiting for each other.
    """
    if cpu_threads:
        import torch

        torch.set_num_threads(cpu_threads)
    out_path = Path(out_path)
    samples_path = Path(samples_path or out_path.with_suffix(".samples.jsonl"))
    stats_path = Path(stats_path or out_path.with_suffix(".stats.json"))
    model_config = dict(model_config)
    # Generation settings of this model (not its backend's): its changes to the sampling, and which prompts.
    sampling = {**sampling, **model_config.pop("sampling", {})}
    execution_models = model_config.pop("execution_models", None)
    cfg = backend_config(model_name, model_config, fetch_root)
    sampling_cfg = SamplingConfig(**sampling)
    records = load_generations(Path(prompts_path))  # ParEval format; a malformed file names record and field
    if execution_models:
        records = [r for r in records if r["parallelism_model"] in execution_models]
        if not records:
            raise ValueError(f"generate.models.{model_name}.execution_models={execution_models}: {prompts_path} has "
                             f"no prompt of these execution models (check pcgbench.models)")  # fmt: skip
    provenance = Provenance.start(step="generate", seed=seed, config={
        "model": model_name, "model_config": model_config, "sampling": asdict(sampling_cfg), "prompts": str(prompts_path),
        "execution_models": execution_models})  # fmt: skip

    # A translation record's text is its translation_prompt: a changed source example makes another prompt.
    texts = [[r[k] for k in RECORD_FIELDS] + ([r["translation_prompt"]] if is_translation(r) else []) for r in records]
    prompts_digest = hashlib.sha256(json.dumps(texts).encode()).hexdigest()
    header = {"model": model_name, "backend": model_config.get("backend"), "model_config": asdict(cfg),
              "sampling": asdict(sampling_cfg), "seed": seed, "prompts_sha256": prompts_digest}  # fmt: skip
    journal = SampleJournal.open(out_path.with_name(out_path.name + ".journal.jsonl"), header)
    tasks = [(p, s) for p in range(len(records)) for s in range(sampling_cfg.n)]
    resumed = sum(task in journal.samples for task in tasks)
    logger.info("%s on %s: %d prompts x %d samples = %d; %d already in the journal",
                model_name, prompts_path, len(records), sampling_cfg.n, len(tasks), resumed)  # fmt: skip

    run = _run_hf if model_config["backend"] == "hf" else _run_openai
    extra = run(cfg, records, tasks, journal, sampling_cfg, seed)
    generation_time_s = extra.pop("generation_time_s")

    missing = [task for task in tasks if task not in journal.samples]
    assert not missing, f"samples missing after generation: {missing[:5]}"  # the loops cover every task
    # Bodies are extracted again from the raw text, so a resumed run applies one extraction to every sample.
    all_samples = [journal.samples[(p, s)] | {"body": extract_body(model_prompt(records[p]), journal.samples[(p, s)]["raw"])}
                   for p, s in tasks]  # fmt: skip
    bodies = {(r["prompt_index"], r["sample_index"]): r["body"] for r in all_samples}
    generated_here = len(tasks) - resumed
    tokens_here = sum(journal.samples[t]["new_tokens"] for t in tasks) if resumed == 0 else None
    sampling_record = {"temperature": sampling_cfg.temperature, "top_p": sampling_cfg.top_p, "n": sampling_cfg.n,
                       "max_new_tokens": sampling_cfg.max_new_tokens, "seed": seed}  # fmt: skip
    generations = [
        {**record, "outputs": [bodies[(p, s)] for s in range(sampling_cfg.n)], "sampling": sampling_record}
        for p, record in enumerate(records)
    ]  # fmt: skip
    write_text(samples_path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in all_samples))
    stats = {
        "model": model_name, "backend": model_config["backend"], "prompts": len(records), "samples": len(tasks),
        "samples_generated_this_run": generated_here, "samples_resumed": resumed,
        "new_tokens": sum(r["new_tokens"] for r in all_samples), "generation_time_s": generation_time_s,
        # Throughput only for an uninterrupted run: a resumed run's time covers only part of the tokens.
        "tokens_per_s": tokens_here / generation_time_s if tokens_here is not None and generation_time_s > 0 else None,
        "finish_reasons": dict(Counter(r["finish_reason"] for r in all_samples)), **extra,
    }  # fmt: skip
    write_json(stats_path, stats)
    write_json(out_path, validate_records(generations, source=str(out_path)))
    provenance.finish([out_path, samples_path, stats_path], stats=stats)
    journal.path.unlink()  # everything it held is in the outputs now
    logger.info("wrote %s: %d records x %d samples (%d generated now, %d resumed), %s tokens/s", out_path,
                len(records), sampling_cfg.n, generated_here, resumed, stats["tokens_per_s"])  # fmt: skip
    return stats


if __name__ == "__main__" and "snakemake" in globals():
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.prompts, smk.output.generations, samples_path=smk.output.samples, stats_path=smk.output.stats,
         model_name=smk.wildcards.model, model_config=dict(smk.params.model_config), sampling=dict(smk.params.sampling),
         seed=int(smk.params.seed), cpu_threads=smk.threads, fetch_root=fetch_root_in(smk.config["results"]))  # fmt: skip
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Sample completions for a ParEval-format prompt set.")
    parser.add_argument("--prompts", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--model-name", required=True)
    parser.add_argument("--model-config", required=True, help="the model's config entry as JSON")
    parser.add_argument("--sampling", default="{}", help="generate.sampling as JSON")
    parser.add_argument("--seed", type=int, default=schema_defaults("")["seed"])
    parser.add_argument("--cpu-threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    configure_logging(args.log)
    main(args.prompts, args.out, model_name=args.model_name, model_config=json.loads(args.model_config),
         sampling=json.loads(args.sampling), seed=args.seed, cpu_threads=args.cpu_threads)  # fmt: skip
