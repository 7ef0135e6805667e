"""HPC-Coder task 2: OpenMP pragma prediction for loops taken from the corpus.

The dataset (HPC-Coder, section "OpenMP pragma prediction"): every `for` loop in the corpus that
carries a `#pragma omp parallel for`, written with the pragma moved after the loop,

    for (i = 0; i < N; i++)
      zd[i] = c*xd[i];
    #pragma omp parallel for default(none) private(i) shared(N,c,xd,zd) schedule(static)

so that a causal LM reads the loop and predicts the pragma. Loops from the corpus's training
repositories fine-tune the model (`finetune_steps`, loss on the pragma tokens only); loops from its
validation repositories are the held-out test set (the LM never trained on those files).
Scores on the test set: exact match (after whitespace normalisation) and clause-level match
(directive, reduction, schedule, private, shared/default, collapse), next to two baselines: the most
frequent training pragma and the bare `#pragma omp parallel for`.

Inputs: corpus train/validation parquet, the trained model folder.
Outputs: the dataset (parquet, with split), the predictions (parquet) and a metrics JSON.

Run: `snakemake results/hpccoder/pragma/metrics.json` (rules/hpccoder.smk), or call `main(...)`.
"""

import dataclasses
import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from workflow_scripts.common import Progress, Provenance, atomic_path, seed_everything, write_json
from workflow_scripts.common.c_scanner import (
    is_parallel_for_directive,
    omp_clauses,
    pragmas,
    preprocessor_line_end,
    skip_space_and_comments,
    statement_end,
)
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import DEVICE_PATTERN, describe_device, resolve_device
from workflow_scripts.common.model_source import context_tokens, load_causal_lm, load_tokenizer, resolve

logger = logging.getLogger(__name__)

BARE_PRAGMA = "#pragma omp parallel for"
CLAUSE_CATEGORIES = ("directive", "reduction", "schedule", "private", "shared", "collapse")


@dataclasses.dataclass(kw_only=True)
class PragmaConfig:
    """Pragma task settings (config `hpccoder.pragma`)."""

    # longer loops are left out (a long body says little more about the pragma)
    max_loop_chars: int = schema_default("hpccoder.pragma.max_loop_chars")
    # optimizer steps on the training loops before evaluation; 0: none
    finetune_steps: int = schema_default("hpccoder.pragma.finetune_steps")
    finetune_learning_rate: float = schema_default("hpccoder.pragma.finetune_learning_rate")
    finetune_batch_size: int = schema_default("hpccoder.pragma.finetune_batch_size")
    max_new_tokens: int = schema_default("hpccoder.pragma.max_new_tokens")  # a pragma line is rarely longer
    # cap on evaluated loops (greedy decoding cost)
    max_test_loops: int = schema_default("hpccoder.pragma.max_test_loops")
    # "auto": the first GPU when there is one, else the CPU
    device: str = schema_default("hpccoder.pragma.device")

    def __post_init__(self) -> None:
        for name in ("max_loop_chars", "max_new_tokens", "finetune_batch_size", "max_test_loops"):
            if getattr(self, name) < 1:
                raise ValueError(f"hpccoder.pragma.{name}: {getattr(self, name)} (allowed: >= 1)")
        if not DEVICE_PATTERN.match(self.device):
            raise ValueError(f"hpccoder.pragma.device: {self.device!r} (allowed: auto, cpu, cuda, cuda:N)")
        if self.finetune_steps < 0:
            raise ValueError(f"hpccoder.pragma.finetune_steps: {self.finetune_steps} (allowed: >= 0)")


# ---------------------------------------------------------------------------------------------------
# dataset


def normalize_pragma(pragma: str) -> str:
    """One line, single spaces, no line continuations, no space before '(' or after ','."""
    text = re.sub(r"\\\s*\n", " ", pragma)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"^#\s*pragma", "#pragma", text)
    text = re.sub(r"\s*\(\s*", "(", text)
    text = re.sub(r"\s*\)", ")", text)
    text = re.sub(r"\s*,\s*", ",", text)
    text = re.sub(r"\s*:\s*", ":", text)
    return text


def extract_pragma_loops(text: str, max_loop_chars: int = 1500) -> list[dict[str, Any]]:
    """Every `#pragma omp parallel for` directly followed by a `for` loop (preprocessor lines and
    comments in between are skipped): [{"line", "pragma", "loop"}] with the pragma normalised.
    Pragmas and loops are found by the C/C++ scanner, so one in a comment or a string does not count."""
    found = []
    for directive in pragmas(text):
        # Its first line must read `#pragma omp parallel for`: one split before `for` by a continuation is left out.
        if not is_parallel_for_directive(text, directive.start):
            continue
        pragma = normalize_pragma(text[directive.start : directive.end])
        pos = directive.end
        while True:  # skip blank lines, comments and preprocessor lines such as `#endif`
            pos = skip_space_and_comments(text, pos)
            if text.startswith("#", pos):
                pos = preprocessor_line_end(text, pos)
                continue
            break
        if not re.match(r"for\s*\(", text[pos : pos + 10]):
            continue
        try:
            loop_end = statement_end(text, pos)
        except ValueError:  # unbalanced brackets or no ";": not a loop we can cut out
            continue
        if loop_end - pos > max_loop_chars:
            continue
        line_start = text.rfind("\n", 0, pos) + 1
        indent = text[line_start:pos] if not text[line_start:pos].strip() else ""
        found.append({"line": directive.line, "pragma": pragma,
                      "loop": _dedent(indent + text[pos:loop_end])})  # fmt: skip
    return found


def _dedent(code: str) -> str:
    lines = code.replace("\t", "    ").splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(line[cut:] for line in lines)


def sample_text(loop: str, pragma: str) -> tuple[str, str]:
    """The causal-LM sample: (prompt, target); prompt + target is the training text."""
    return loop + "\n", pragma + "\n"


def build_dataset(train_path: str | Path, validation_path: str | Path, max_loop_chars: int) -> pd.DataFrame:
    rows = []
    for split, path in (("train", train_path), ("test", validation_path)):
        files = pd.read_parquet(path, columns=["repo", "path", "text"])
        for record in files.itertuples():
            for loop in extract_pragma_loops(record.text, max_loop_chars):
                rows.append({"split": split, "repo": record.repo, "path": record.path, **loop})
    frame = pd.DataFrame(rows, columns=["split", "repo", "path", "line", "pragma", "loop"])
    # The same loop and pragma in two files (copies across vector back-ends) would count twice.
    return frame.drop_duplicates(subset=["split", "loop", "pragma"]).reset_index(drop=True)


# ---------------------------------------------------------------------------------------------------
# clause-level comparison


def parse_pragma(pragma: str) -> dict[str, Any]:
    """Clauses of a normalised `#pragma omp parallel for ...` as comparable values per category."""
    text = normalize_pragma(pragma)
    body = re.sub(r"^#pragma\s+omp\s+", "", text)
    words, clauses = [], {}
    for name, argument in omp_clauses(body):
        if argument is None and name in ("parallel", "for", "simd") and not clauses:
            words.append(name)
            continue
        clauses.setdefault(name, []).append((argument or "").replace(" ", ""))
    def var_set(*names):
        return frozenset(v for n in names for arg in clauses.get(n, []) for v in arg.split(",") if v)
    reductions = frozenset(f"{op}:{v}" for arg in clauses.get("reduction", []) if ":" in arg
                           for op, vars_ in [arg.split(":", 1)] for v in vars_.split(","))  # fmt: skip
    return {
        "directive": " ".join(words),
        "reduction": reductions,
        "schedule": ",".join(clauses.get("schedule", [])),
        "private": var_set("private", "firstprivate", "lastprivate"),
        "shared": (var_set("shared"), ",".join(clauses.get("default", []))),
        "collapse": ",".join(clauses.get("collapse", [])),
        "_valid": text.startswith("#pragma omp parallel for"),
    }


def compare_pragmas(predicted: str, reference: str) -> dict[str, bool]:
    """exact (normalised text), per-category match, and all_clauses (every category equal)."""
    pred, ref = parse_pragma(predicted), parse_pragma(reference)
    scores = {"exact": normalize_pragma(predicted) == normalize_pragma(reference)}
    for category in CLAUSE_CATEGORIES:
        scores[category] = pred["_valid"] and pred[category] == ref[category]
    scores["all_clauses"] = all(scores[c] for c in CLAUSE_CATEGORIES)
    return scores


def score(predictions: list[str], references: list[str]) -> dict[str, float]:
    rows = [compare_pragmas(p, r) for p, r in zip(predictions, references, strict=True)]
    return {key: sum(row[key] for row in rows) / len(rows) for key in rows[0]} if rows else {}


# ---------------------------------------------------------------------------------------------------
# model


def finetune(model, tokenizer, samples: list[tuple[str, str]], cfg: PragmaConfig, context_tokens: int, seed: int) -> list[float]:
    """A few AdamW steps on (prompt, target) pairs with the loss on the target tokens only."""
    import torch

    if not samples or cfg.finetune_steps == 0:
        return []
    encoded = []
    for prompt, target in samples:
        p_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        t_ids = (tokenizer(target, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id])[: context_tokens // 2]
        p_ids = p_ids[len(p_ids) - (context_tokens - len(t_ids)) :] if len(p_ids) + len(t_ids) > context_tokens else p_ids
        # (the prompt keeps the loop's end, next to the pragma)
        encoded.append((p_ids + t_ids, [-100] * len(p_ids) + t_ids))
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.finetune_learning_rate, weight_decay=0.0)
    model.train()
    losses = []
    progress = Progress("pragma fine-tuning steps", total=cfg.finetune_steps, unit="step", logger=logger)
    for _ in range(cfg.finetune_steps):
        batch_index = torch.randint(len(encoded), (min(cfg.finetune_batch_size, len(encoded)),), generator=generator)
        batch = [encoded[i] for i in batch_index.tolist()]
        width = max(len(ids) for ids, _ in batch)
        ids = torch.full((len(batch), width), tokenizer.pad_token_id)
        labels = torch.full((len(batch), width), -100)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, (x, y) in enumerate(batch):
            ids[row, : len(x)], labels[row, : len(y)], mask[row, : len(x)] = torch.tensor(x), torch.tensor(y), 1
        device = model.device
        loss = model(input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels.to(device)).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
        progress.advance(note=f"loss {losses[-1]:.4g}")
    progress.finish(note=f"loss {losses[-1]:.4g}")
    model.eval()
    return losses


def predict(model, tokenizer, prompts: list[str], max_new_tokens: int, context_tokens: int, batch_size: int = 8) -> list[str]:
    """Greedy continuation of each prompt, cut at the first newline."""
    import torch

    outputs = []
    progress = Progress("pragma predictions", total=len(prompts), unit="loop", logger=logger)
    for start in range(0, len(prompts), batch_size):
        chunk = prompts[start : start + batch_size]
        ids = [tokenizer(p, add_special_tokens=False)["input_ids"][-(context_tokens - max_new_tokens) :] for p in chunk]
        width = max(len(x) for x in ids)
        # Left padding: every prompt ends at the same position, where generation starts.
        input_ids = torch.tensor([[tokenizer.pad_token_id] * (width - len(x)) + x for x in ids])
        mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in ids])
        with torch.no_grad():
            out = model.generate(input_ids=input_ids.to(model.device), attention_mask=mask.to(model.device), max_new_tokens=max_new_tokens, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)  # fmt: skip
        for row in out[:, width:].cpu():
            text = tokenizer.decode(row, skip_special_tokens=True)
            outputs.append(text.split("\n", 1)[0].strip())
        progress.advance(len(chunk))
    progress.finish()
    return outputs


def main(train_path, validation_path, model_dir, dataset_path, predictions_path, metrics_path, section: dict[str, Any],
         seed: int, threads: int = 0) -> dict[str, Any]:  # fmt: skip
    import torch

    cfg = PragmaConfig(**section)
    prov = Provenance.start(step="hpccoder.pragma", config=dataclasses.asdict(cfg), seed=seed)
    seed_everything(seed)
    if threads:
        torch.set_num_threads(threads)
    dataset = build_dataset(train_path, validation_path, cfg.max_loop_chars)
    with atomic_path(dataset_path, suffix=".parquet") as tmp:
        dataset.to_parquet(tmp, index=False)
    train_rows, test_rows = dataset[dataset.split == "train"], dataset[dataset.split == "test"]
    test_rows = test_rows.sample(n=min(len(test_rows), cfg.max_test_loops), random_state=seed).sort_index()
    logger.info("pragma dataset: %d training loops, %d held-out loops (from the validation repositories)",
                len(train_rows), len(test_rows))  # fmt: skip
    if test_rows.empty:
        raise ValueError("no held-out loop carries `#pragma omp parallel for`: put a repository with OpenMP loops in "
                         "corpus.validation_sources")  # fmt: skip
    local = resolve(model_dir, key="hpccoder model")
    tokenizer = load_tokenizer(local)
    device = resolve_device(cfg.device, key="hpccoder.pragma.device")
    model = load_causal_lm(local, dtype=torch.float32).to(device)
    model_context = context_tokens(model.config)
    references = test_rows["pragma"].tolist()
    prompts = [sample_text(loop, "")[0] for loop in test_rows["loop"]]
    losses = finetune(model, tokenizer, [sample_text(r.loop, r.pragma) for r in train_rows.itertuples()], cfg, model_context, seed)
    predictions = predict(model, tokenizer, prompts, cfg.max_new_tokens, model_context)
    majority = Counter(train_rows["pragma"]).most_common(1)[0][0] if len(train_rows) else BARE_PRAGMA
    metrics = {
        "device": describe_device(device),
        "train_loops": int(len(train_rows)),
        "test_loops": int(len(test_rows)),
        "test_repositories": sorted(test_rows["repo"].unique()),
        "finetune_losses": losses,
        "model": score(predictions, references),
        "baseline_majority": score([majority] * len(references), references),
        "baseline_majority_pragma": majority,
        "baseline_bare": score([BARE_PRAGMA] * len(references), references),
        "categories": ["exact", *CLAUSE_CATEGORIES, "all_clauses"],
    }
    table = test_rows[["repo", "path", "line", "pragma"]].assign(predicted=predictions)
    table = table.assign(**{f"match_{k}": [compare_pragmas(p, r)[k] for p, r in zip(predictions, references, strict=True)]
                            for k in ("exact", "all_clauses")})  # fmt: skip
    with atomic_path(predictions_path, suffix=".parquet") as tmp:
        table.to_parquet(tmp, index=False)
    write_json(metrics_path, metrics)
    prov.finish([dataset_path, predictions_path, metrics_path], device=metrics["device"])
    logger.info("pragma prediction on %d loops: exact %.3f, all clauses %.3f (majority baseline %.3f / %.3f)",
                len(test_rows), metrics["model"]["exact"], metrics["model"]["all_clauses"],
                metrics["baseline_majority"]["exact"], metrics["baseline_majority"]["all_clauses"])  # fmt: skip
    return metrics


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.train, smk.input.validation, smk.input.model, smk.output.dataset, smk.output.predictions,
         smk.output.metrics, smk.params.pragma, smk.params.seed, threads=smk.threads)  # fmt: skip
