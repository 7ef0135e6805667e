"""A tiny GPT-2 with a tiny byte-level BPE tokenizer, built from a config in seconds, for tests and benchmarks.

The weights are random (seeded): the model writes C++-flavoured noise, which is what the generation
machinery needs to be exercised end to end (batching, stop strings, the HTTP server, resume) without a
hub download or a trained checkpoint. The project's trained tiny HPC-Coder model is made by the `lm`
rules at results/hpccoder/model; the benchmark uses it when present.

    python -m workflow_scripts.generate.tiny_model OUT_DIR     # writes config.json, weights, tokenizer
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

logger = logging.getLogger(__name__)

EOS = "<|endoftext|>"
# A ChatML-style template so the chat code paths (template, /v1/chat/completions) can be exercised.
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
# Enough C++ for the BPE merges to look like code tokens.
_CORPUS = [
    "#include <omp.h>\n#include <vector>\n#include <cmath>\n",
    "double average(std::vector<double> const& x) {\n  double sum = 0.0;\n"
    "  #pragma omp parallel for reduction(+:sum)\n  for (size_t i = 0; i < x.size(); ++i) {\n"
    "    sum += x[i];\n  }\n  return sum / x.size();\n}\n",
    "void relu(std::vector<double> &x) {\n  for (auto &v : x) { v = v > 0 ? v : 0; }\n}\n",
    "int main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n  int rank;\n"
    "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n  MPI_Finalize();\n  return 0;\n}\n",
    "Kokkos::parallel_for(x.extent(0), KOKKOS_LAMBDA(const int i) { x(i) = -x(i); });\n",
    "__global__ void axpy(double a, const double *x, double *y, size_t n) {\n"
    "  size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] += a * x[i];\n}\n",
]


def build_tiny_model(out_dir: str | Path, *, seed: int = 0, n_layer: int = 2, n_embd: int = 64,
                     n_head: int = 2, n_positions: int = 1024, vocab_size: int = 512) -> Path:  # fmt: skip
    """Write a random tiny GPT-2 and a trained-on-snippets BPE tokenizer to `out_dir`. Returns the path."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())  # fmt: skip
    bpe.train_from_iterator(_CORPUS * 4, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token=EOS, bos_token=EOS, pad_token=EOS)
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out_dir)

    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=n_positions, n_embd=n_embd, n_layer=n_layer,
                        n_head=n_head, bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)  # fmt: skip
    GPT2LMHeadModel(config).save_pretrained(out_dir)
    logger.info("tiny model written to %s (vocab %d, %d layers, width %d)", out_dir, len(tokenizer), n_layer, n_embd)
    return out_dir


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level="INFO")
    build_tiny_model(args.out_dir, seed=args.seed)
