"""The HPC-Coder "arms": the model the config describes, and optionally the same-corpus model trained from scratch.

The paper fine-tuned pretrained bases and compared them. With `hpccoder.model.init_from` set (fine-tuning) and
`hpccoder.from_scratch` a mapping, rules/hpccoder.smk generates its tokenizer, pretrain, pragma, perfchange and
completion rules once per arm:

  arm ""              <results>/hpccoder/...               rules hpccoder_<step>
  arm "from_scratch"  <results>/hpccoder/from_scratch/...  rules hpccoder_from_scratch_<step>

(<results>: the config's results folder, rules/common.smk RESULTS.)

`arm_config(config["hpccoder"], arm)` is the one place an arm's effective sections are made: the from-scratch
arm takes the main `tokenizer`, `model`, `training` and `pragma` sections updated key by key with its own, has
`model.init_from` always null, and scores code completion only when `from_scratch.generator` names the
generate.models entry that generates from its model.
"""

from __future__ import annotations

import copy
from typing import Any

from workflow_scripts.common.config import CONFIG_RESULTS, section_errors

MAIN = ""
FROM_SCRATCH = "from_scratch"
# The sections an arm may override (the evaluations' own settings, completion and perfchange, are shared).
ARM_SECTIONS = ("tokenizer", "model", "training", "pragma")


def arms(hpccoder: dict[str, Any]) -> list[str]:
    """The arms a config trains: always the main one, plus `from_scratch` when that key is a mapping."""
    return [MAIN, FROM_SCRATCH] if hpccoder.get("from_scratch") is not None else [MAIN]


def arm_dir(arm: str, results: str) -> str:
    """Where an arm's outputs go in the results folder `results`: <results>/hpccoder for the main arm,
    <results>/hpccoder/<arm> for another."""
    return f"{results}/hpccoder/{arm}" if arm else f"{results}/hpccoder"


def arm_step(arm: str, step: str) -> str:
    """An arm's name for a step (rule and log names): `<step>` for the main arm, `<arm>_<step>` otherwise."""
    return f"{arm}_{step}" if arm else step


def arm_metrics(arm: str, effective: dict[str, Any], results: str) -> dict[str, str]:
    """The metrics files of an arm's evaluations that run (`effective`: its `arm_config`) in the results folder
    `results`, keyed as the summary takes them: pretrain, pragma, completion, perfchange."""
    folder = arm_dir(arm, results)
    metrics = {"pretrain": f"{folder}/pretrain_metrics.json", "pragma": f"{folder}/pragma/metrics.json"}
    if effective["completion"]["enabled"]:
        metrics["completion"] = f"{folder}/completion/metrics.json"
    if effective["perfchange"]["enabled"]:
        metrics["perfchange"] = f"{folder}/perfchange/metrics.json"
    return metrics


def _check_override(section: str, override: Any) -> None:
    key = f"hpccoder.from_scratch.{section}"
    if not isinstance(override, dict):
        raise ValueError(f"{key}: a mapping of {f'hpccoder.{section}'} keys to override, got {override!r}")
    # The override alone is checked against the main section's schema: types, bounds and unknown keys, and
    # nothing is filled in (a key it leaves out comes from the main section).
    problems = section_errors(f"hpccoder.{section}", override, key=key)
    if problems:
        raise ValueError("invalid configuration:\n  " + "\n  ".join(problems))


def arm_config(hpccoder: dict[str, Any], arm: str) -> dict[str, Any]:
    """The `hpccoder` section as the arm's rules see it (every section but `from_scratch`).

    Raises ValueError, naming the keys, for `from_scratch` set while `model.init_from` is null (the main
    model is then already trained from scratch), for an override of `model.init_from`, and for override keys
    or values the main section's schema refuses.
    """
    main = {key: copy.deepcopy(value) for key, value in hpccoder.items() if key != FROM_SCRATCH}
    scratch = hpccoder.get(FROM_SCRATCH)
    if scratch is not None and not hpccoder["model"].get("init_from"):
        raise ValueError("hpccoder.from_scratch is set but hpccoder.model.init_from is null: the main model is already "
                         "trained from scratch; set hpccoder.model.init_from to a pretrained base to compare with, "
                         "or remove hpccoder.from_scratch")  # fmt: skip
    if arm == MAIN:
        return main
    if arm != FROM_SCRATCH:
        raise ValueError(f"HPC-Coder arm {arm!r} (known: {MAIN!r}, {FROM_SCRATCH!r})")
    if scratch is None:
        raise ValueError("the from_scratch arm needs hpccoder.from_scratch (a mapping, {} for the main settings)")
    unknown = sorted(set(scratch) - {*ARM_SECTIONS, "generator"})
    if unknown:
        raise ValueError(f"hpccoder.from_scratch: unknown key {', '.join(unknown)} "
                         f"(known keys: {', '.join([*ARM_SECTIONS, 'generator'])})")  # fmt: skip
    effective = main
    for section in ARM_SECTIONS:
        override = scratch.get(section) or {}
        _check_override(section, override)
        if section == "model" and override.get("init_from"):
            raise ValueError("hpccoder.from_scratch.model.init_from: the from-scratch arm never starts from a "
                             "pretrained model; remove the key (the base goes in hpccoder.model.init_from)")  # fmt: skip
        effective[section] = {**main[section], **copy.deepcopy(override)}
    effective["model"]["init_from"] = None
    generator = scratch.get("generator")
    if generator is not None and not isinstance(generator, str):
        raise ValueError(f"hpccoder.from_scratch.generator: a generate.models entry name, got {generator!r}")
    if generator and generator == main["completion"]["generator"]:
        raise ValueError(f"hpccoder.from_scratch.generator: {generator!r} is hpccoder.completion.generator, the main "
                         f"model's generations; name a generate.models entry whose path is "
                         f"{arm_dir(FROM_SCRATCH, CONFIG_RESULTS)}/model")  # fmt: skip
    effective["completion"] = {**main["completion"], "generator": generator,
                               "enabled": bool(main["completion"]["enabled"] and generator)}  # fmt: skip
    return effective


def check_generator(arm: str, effective: dict[str, Any], generate_models: dict[str, Any]) -> None:
    """Stop, naming the key, when an arm's code completion is scored from a generator the config does not define
    (Snakemake would only say that <results>/pcgbench/<name>/results.parquet has no rule). The messages name the
    model's folder as a config path names it (results/..., config.place_results)."""
    name = effective["completion"]["generator"]
    if not effective["completion"]["enabled"] or name in generate_models:
        return
    key = "hpccoder.completion.generator" if arm == MAIN else f"hpccoder.{FROM_SCRATCH}.generator"
    raise ValueError(f"{key}: {name!r} is not a generate.models entry (entries: {', '.join(sorted(generate_models))}); "
                     f"add one that generates from {arm_dir(arm, CONFIG_RESULTS)}/model, e.g. {{backend: hf, path: "
                     f"{arm_dir(arm, CONFIG_RESULTS)}/model}}, or turn hpccoder.completion.enabled off")  # fmt: skip
