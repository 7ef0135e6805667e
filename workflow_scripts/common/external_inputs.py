"""Inputs a config names that no rule makes and that are not there yet: model folders, data files, clones, keys.

config/paper.yaml names checkpoints (`models/CodeLlama-7b-hf`), data sets and local clones that a cluster user
fetches once. A job that reads one stops with the missing path when it starts, which on a cluster can be hours
after submission; the Snakefile calls `missing_external_inputs` while planning, so `snakemake -n --configfile
config/paper.yaml` already prints each missing one with its config key (a warning: the studies that do not need
it still run).

    .venv/bin/python -m workflow_scripts.common.external_inputs config/config.yaml config/paper.yaml
"""

import os
import sys
from pathlib import Path
from typing import Any

from workflow_scripts.common.model_source import parse_source


def _missing(key: str, path: str | None, what: str, root: Path, results: Path) -> list[str]:
    """`key: path (what)` when `path` is set, is not made by the workflow (in its results folder `results`) and
    does not exist."""
    if not path or Path(path).is_relative_to(results) or (root / path).exists():
        return []
    return [f"{key}: {path} does not exist ({what})"]


def _missing_model(key: str, spec: str | dict | None, what: str, root: Path, results: Path) -> list[str]:
    """`_missing` for a model source (common/model_source.py): a PyPI-shipped file is fetched by the workflow."""
    if not spec:
        return []
    source = parse_source(spec, key=key)
    return [] if source.pypi else _missing(key, str(source.local_path()), what, root, results)


def missing_external_inputs(config: dict[str, Any], root: str | Path = ".") -> list[str]:
    """One line per input of a filled-in config that is missing, relative paths read from `root` (the workdir);
    a path in the config's results folder is the workflow's to make."""
    root, results = Path(root), Path(config["results"])
    problems = []
    for name, entry in config["generate"]["models"].items():
        key = f"generate.models.{name}"
        if entry.get("backend") == "hf":
            problems += _missing(f"{key}.path", entry.get("path"), "a local save_pretrained model folder", root, results)
            problems += _missing_model(f"{key}.source", entry.get("source"), "a model file", root, results)
        problems += _missing(f"{key}.serve_local", entry.get("serve_local"), "the model folder to serve", root, results)
        if entry.get("api_key_env") and not os.environ.get(entry["api_key_env"]):
            problems.append(f"{key}.api_key_env: the environment variable {entry['api_key_env']} is not set "
                            "(the endpoint's API key)")  # fmt: skip
    problems += _missing_model("hpccoder.model.init_from", config["hpccoder"]["model"].get("init_from"),
                               "the base model HPC-Coder is fine-tuned from", root, results)  # fmt: skip
    problems += _missing_model("rlpf.base_model", config["rlpf"].get("base_model"), "RLPF's base model", root, results)
    for name, task in config["jorge"]["tasks"].items():
        problems += _missing(f"jorge.tasks.{name}.npz_path", task.get("npz_path"), "the task's data set", root, results)
    for index, source in enumerate(config["corpus"]["sources"]):
        url = source.get("url")
        if source.get("kind") == "git" and url and "://" not in url and not url.startswith("git@"):
            problems += _missing(f"corpus.sources[{index}].url", url, f"a local clone of {source['name']}", root, results)
    monitoring = config["monitoring"]
    real = monitoring["real"]
    if monitoring["source"] == "ldms":
        for index, path in enumerate(real["ldms_csv"]):
            problems += _missing(f"monitoring.real.ldms_csv[{index}]", path, "an LDMS counter file", root, results)
        problems += _missing("monitoring.real.job_table", real["job_table"], "the job table", root, results)
        problems += _missing("monitoring.real.topology", real["topology"], "the network topology", root, results)
    if monitoring["source"] in ("ldms", "runtimes"):
        problems += _missing("monitoring.real.run_table", real["run_table"], "the run-time table", root, results)
    return problems


def warning_text(problems: list[str]) -> str:
    """The planning-time warning for `missing_external_inputs`' lines ('' when there are none)."""
    if not problems:
        return ""
    return (
        f"this config names {len(problems)} input(s) that do not exist yet; the jobs that read them will stop "
        "when they start. Fetch each one (or change the key in your config file) before running:\n  "
        + "\n  ".join(problems)
    )


if __name__ == "__main__":
    from workflow_scripts.common.config import load_config

    text = warning_text(missing_external_inputs(load_config(*sys.argv[1:])))
    print(text or "every input the config names is there")
    sys.exit(1 if text else 0)
