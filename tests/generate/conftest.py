"""Shared fixtures: a tiny random GPT-2 + BPE tokenizer built from a config (seconds), and a prompt set."""

import json
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from workflow_scripts.generate.tiny_model import build_tiny_model  # noqa: E402

# One thread, as the generate rule runs: two threads on cores shared with other jobs spin and crawl.
torch.set_num_threads(1)

PROMPTS = [
    {"name": "reduce_average", "problem_type": "reduce", "parallelism_model": "omp", "language": "cpp",
     "prompt": "#include <omp.h>\n\n/* Return the average of the vector x.\n   Use OpenMP to compute in parallel. */\n"
               "double average(std::vector<double> const& x) {", "outputs": []},
    {"name": "transform_relu", "problem_type": "transform", "parallelism_model": "serial", "language": "cpp",
     "prompt": "/* Replace every negative value of x with zero. */\nvoid relu(std::vector<double> &x) {", "outputs": []},
]  # fmt: skip


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny_model"), seed=0)


@pytest.fixture
def prompts_file(tmp_path):
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps(PROMPTS))
    return path
