"""The config schema: validation messages a person can act on, and the one home of every default.

The Snakefile validates the config with `snakemake.utils.validate` (JSON Schema, defaults filled in).
When that fails, `explain_config_errors` lists every problem as `key.path: what is wrong (allowed: ...)`
so the user sees the field and the fix, not a dump of the schema.

A default is written once, in config/schema/*.schema.yaml. Python reads it from there:
- `fill_defaults(config)` sets every missing key that has a schema default, at every depth; the Snakefile
  calls it right after validating, so a rule sees every key of its section;
- `schema_default("section.key")` is a dataclass field whose default is the schema's (for code called
  outside the workflow, e.g. from a test or the command line);
- `schema_defaults("section")` maps a section's keys to their defaults (for argparse);
- `place_results(config)` reads every config path that starts with `results/` in the config's results folder
  (the top-level `results`); the Snakefile calls it after `fill_defaults`;
- `load_config(*files)` merges config files the way Snakemake does (later files update earlier ones),
  validates them, fills the defaults and places the results paths as the Snakefile does: what a rule sees, for
  tests and command lines.

Snakemake's own `validate(..., set_default=True)` fills in only the defaults of config.schema.yaml's own keys
(the study sections): a study's schema file declares its own `$schema`, and jsonschema validates a `$ref`
into it with the plain validator, which sets no defaults. Hence `fill_defaults`, which follows the `$ref`s
itself. The config files then set only what differs from the defaults.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import os
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from workflow_scripts.common.project_files import PROJECT_ROOT

SCHEMA_PATH = PROJECT_ROOT / "config" / "schema" / "config.schema.yaml"


def _load_schema(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _registry(schema_path: Path) -> Registry:
    """Resolve relative `$ref`s (the per-study schema files) against the main schema's folder."""
    folder = schema_path.parent

    def retrieve(uri: str) -> Resource:
        return Resource.from_contents(_load_schema(folder / Path(uri).name))

    return Registry(retrieve=retrieve)


def _allowed(error) -> str:
    schema = error.schema
    if error.validator == "additionalProperties":
        return "known keys: " + ", ".join(sorted(schema.get("properties", {})))
    if "enum" in schema:
        return "allowed: " + ", ".join(map(str, schema["enum"]))
    bounds = [f"{word} {schema[key]}" for key, word in
              (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<"))
              if key in schema]  # fmt: skip
    if "type" in schema:
        bounds.insert(0, f"type {schema['type']}")
    return "allowed: " + ", ".join(bounds) if bounds else ""


def _moved_into(validator, error, unknown: list[str]) -> str:
    """Where a section's unknown keys belong when a closed sub-section of it takes them (rlpf.reward.reps is
    rlpf.reward.measure.reps since the reward reads the engine's settings): a hint for an older config."""
    where = ".".join(map(str, error.absolute_path))
    for name, sub in error.schema.get("properties", {}).items():
        if not isinstance(sub, dict) or sub.get("type") != "object":
            continue
        checker = validator.evolve(schema=sub)
        try:
            closed = not checker.is_valid({"\0": None})
            if closed and checker.is_valid({key: error.instance[key] for key in unknown}):
                return f"they are settings of '{where}.{name}': move them there"
        except Unresolvable:  # a reference relative to the sub-section's own file, not this one's: no hint
            continue
    return ""


# Sections whose keys moved, for a hint to a config written before: the measurement engine's settings were keys of
# pcgbench.evaluate and are the section `measure`; the studies' overrides of them were called `harness`; RLPF's
# evaluation on the held-out tasks was `rlpf.evaluate` (PCGBench's evaluation is pcgbench.evaluate), and its count of
# held-out kernels `rlpf.tasks.held_out` (rlpf.held_out is the held-out evaluation's section).
MOVED_KEYS = {"pcgbench.evaluate": "measure"}
RENAMED_KEYS = {"rlpf.reward.harness": "rlpf.reward.measure",
                "pcgbench.pareval_released.harness": "pcgbench.pareval_released.measure",
                "rlpf.evaluate": "rlpf.held_out",
                "rlpf.tasks.held_out": "rlpf.tasks.held_out_kernels"}


def _moved_out(unknown: list[str], where: str) -> str:
    """Where keys of an older config went (MOVED_KEYS, RENAMED_KEYS), or ""."""
    renamed = [RENAMED_KEYS[f"{where}.{name}"] for name in unknown if f"{where}.{name}" in RENAMED_KEYS]
    if renamed:
        return f"renamed '{renamed[0]}'"
    if where in MOVED_KEYS:
        section = MOVED_KEYS[where]
        known = schema_section(section).get("properties", {})
        if all(name in known for name in unknown):
            return f"they are settings of the section '{section}' (the measurement engine's): move them there"
    return ""


def _did_you_mean(unknown: list[str], schema: dict[str, Any], where: str) -> str:
    """'did you mean ...?' naming the known key closest to each misspelt one (difflib's default cutoff), if any."""
    known = list(schema.get("properties", {}))
    close = [f"'{where}{match[0]}' for '{where}{name}'" if len(unknown) > 1 else f"'{where}{match[0]}'"
             for name in unknown if (match := difflib.get_close_matches(name, known, n=1))]  # fmt: skip
    return f"did you mean {', '.join(close)}?" if close else ""


def explain_config_errors(config: dict[str, Any], schema_path: str | Path) -> list[str]:
    """Every schema violation of `config`, one line each, naming the dotted key and what is allowed."""
    schema_path = Path(schema_path)
    schema = _load_schema(schema_path)
    validator = Draft202012Validator(schema, registry=_registry(schema_path))
    lines = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        key = ".".join(map(str, error.absolute_path)) or "<top level>"
        if error.validator == "additionalProperties":
            unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
            where = f"{key}." if error.absolute_path else ""
            message = "unknown key " + ", ".join(f"'{where}{name}'" for name in unknown)
            hint = (_moved_out(unknown, key) or _moved_into(validator, error, unknown)
                    or _did_you_mean(unknown, error.schema, where))
            lines.append(f"config: {message} ({_allowed(error)})" + (f"; {hint}" if hint else ""))
            continue
        hint = _allowed(error)
        lines.append(f"config key '{key}': {error.message}" + (f" ({hint})" if hint else ""))
    return lines


@functools.cache
def _schema_file(name: str) -> dict[str, Any]:
    return _load_schema(SCHEMA_PATH.parent / name)


def _resolve(schema: dict[str, Any], file: str) -> tuple[dict[str, Any], str]:
    """Follow `$ref`s (another schema file, or `#/$defs/...` of the current one)."""
    while "$ref" in schema:
        target, _, pointer = schema["$ref"].partition("#")
        file = Path(target).name if target else file
        schema = _schema_file(file)
        for part in filter(None, pointer.split("/")):
            schema = schema[part]
    return schema, file


def schema_section(section: str) -> dict[str, Any]:
    """The schema of a dotted config section ("" is the whole config; "generate.models.*" is any map entry)."""
    schema, file = _resolve(_schema_file(SCHEMA_PATH.name), SCHEMA_PATH.name)
    for key in filter(None, section.split(".")):
        properties = schema.get("properties", {})
        child = properties[key] if key in properties else schema.get("additionalProperties")
        if not isinstance(child, dict):
            raise KeyError(f"config schema has no section '{section}' (at '{key}')")
        schema, file = _resolve(child, file)
    return schema


def section_errors(section: str, value: Any, *, key: str) -> list[str]:
    """Every way `value` breaks the schema of the dotted config `section` (types, bounds, unknown keys), one line
    each, prefixed with `key` (where the value sits in the config). Nothing is filled in: a mapping that overrides
    some of a section's keys is checked as given (hpccoder.from_scratch's sections)."""
    validator = Draft202012Validator(schema_section(section), registry=_registry(SCHEMA_PATH))
    return [f"{'.'.join([key, *map(str, e.absolute_path)])}: {e.message}" for e in validator.iter_errors(value)]


def _typed(value: Any, schema: dict[str, Any]) -> Any:
    # YAML writes 60 for a `number`; Python code that expects a float gets one.
    if schema.get("type") == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def schema_defaults(section: str) -> dict[str, Any]:
    """{key: default} of the section's properties that have a default in the schema."""
    schema = schema_section(section)
    return {key: _typed(copy.deepcopy(sub["default"]), sub)
            for key, sub in schema.get("properties", {}).items() if "default" in sub}  # fmt: skip


def schema_default(key: str) -> Any:
    """A dataclass field whose default is the schema's default of the dotted config key.

    Lists and maps get a fresh copy per instance (default_factory); numbers are floats.
    """
    section, _, name = key.rpartition(".")
    defaults = schema_defaults(section)
    if name not in defaults:
        raise KeyError(f"config schema has no default for '{key}'")
    value = defaults[name]
    if isinstance(value, (list, dict)):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(value))
    return dataclasses.field(default=value)


def _merge(base: dict[str, Any], update: dict[str, Any]) -> None:
    """Update `base` in place, maps key by key (Snakemake's `update_config`)."""
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def _has_defaults(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object" and any("default" in p for p in schema.get("properties", {}).values())


def fill_defaults(config: dict[str, Any], schema: dict[str, Any] | None = None,
                  file: str = SCHEMA_PATH.name) -> dict[str, Any]:
    """Set, in place, every missing key of `config` that has a default in the schema, at every depth (a map's
    entries too: `additionalProperties`); return `config`. Only maps are entered, and present values are kept."""
    if schema is None:
        schema, file = _resolve(_schema_file(file), file)
    properties = schema.get("properties", {})
    for key, node in properties.items():
        sub_schema, sub_file = _resolve(node, file)
        # A section's default ({}) sits beside its `$ref`, which _resolve does not keep.
        default = node["default"] if "default" in node else sub_schema.get("default", dataclasses.MISSING)
        if key not in config and default is dataclasses.MISSING and _has_defaults(sub_schema):
            default = {}  # an absent section whose keys have defaults: it gets them all
        if key not in config and default is not dataclasses.MISSING:
            config[key] = copy.deepcopy(default)
        if isinstance(config.get(key), dict):
            fill_defaults(config[key], sub_schema, sub_file)
    entries = schema.get("additionalProperties")
    if isinstance(entries, dict):
        entry_schema, entry_file = _resolve(entries, file)
        for key, value in config.items():
            if key not in properties and isinstance(value, dict):
                fill_defaults(value, entry_schema, entry_file)
    return config


CONFIG_RESULTS = "results"  # how a config path names the workflow's results folder: results/<path>


def place_results(config: dict[str, Any]) -> dict[str, Any]:
    """Read, in place, every config path that starts with `results/` in the config's results folder; return `config`.

    The top-level `results` is where every output goes (config/paper.yaml: results-paper). A config path under
    `results/` names a file the workflow makes (the HPC-Coder model a generate.models entry loads, PCGBench's
    prompts, the build and measurement caches), so it follows the folder: with `results: results-paper`,
    `path: results/hpccoder/model` is results-paper/hpccoder/model, the model that config's rules train. The
    folder itself is normalised (`results-paper/` is results-paper). Under the default (`results`) nothing changes.
    A path written `./results/...` or absolute is taken as written.
    """
    folder = config["results"] = os.path.normpath(config["results"])

    def place(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(f"{CONFIG_RESULTS}/"):
            return f"{folder}/{value.removeprefix(f'{CONFIG_RESULTS}/')}"
        if isinstance(value, dict):
            return {key: place(item) for key, item in value.items()}
        if isinstance(value, list):
            return [place(item) for item in value]
        return value

    if folder != CONFIG_RESULTS:
        for key, value in config.items():
            if key != "results":
                config[key] = place(value)
    return config


def load_config(*files: str | Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The config a rule sees: the files merged in order (then `overrides`), validated, the defaults filled
    in as the Snakefile fills them (`fill_defaults`) and the results paths placed (`place_results`).

    `load_config("config/config.yaml", "config/paper.yaml")` is what
    `snakemake --configfile config/paper.yaml` resolves (the Snakefile's configfile comes first).
    """
    config: dict[str, Any] = {}
    for path in files:
        with open(path, encoding="utf-8") as handle:
            _merge(config, yaml.safe_load(handle) or {})
    _merge(config, copy.deepcopy(overrides or {}))
    problems = explain_config_errors(config, SCHEMA_PATH)
    if problems:
        raise ValueError("invalid configuration:\n  " + "\n  ".join(problems))
    return place_results(fill_defaults(config))


SLURM_PLACEHOLDER = "SET_YOUR_"  # how profiles/slurm and config/paper.yaml (pcgbench.cluster) mark a site's value


Placements = dict[tuple[str, str], dict[str, list[str]]]  # (setting, placeholder) -> where -> rules or keys


def _placeholder_lines(found: Placements) -> list[str]:
    """`setting = VALUE (where items; where items)`, one line per setting and placeholder, in a stable order."""
    return [f"{name} = {value} (" + "; ".join(f"{where} {', '.join(sorted(items))}".strip() for where, items in places.items())
            + ")" for (name, value), places in sorted(found.items())]  # fmt: skip


def _flat(config: Any, key: str = "") -> dict[str, Any]:
    if isinstance(config, dict):
        return {k: v for name, item in config.items() for k, v in _flat(item, f"{key}.{name}" if key else name).items()}
    return {key: config}


def _is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(SLURM_PLACEHOLDER)


def slurm_placeholders(resource_settings: Any, config: dict[str, Any]) -> list[str]:
    """The SLURM settings still holding a SET_YOUR_* placeholder, one line per setting and value with where it
    is set: the profile's (or command line's) default-resources and set-resources of each rule (Snakemake's
    `workflow.resource_settings`, whose values are `Resource`s: their `raw` is what the profile wrote), and the
    config's keys (pcgbench.cluster). Empty unless the resources name a `slurm_*` setting, i.e. unless the SLURM
    profile (or the user's own SLURM resources) is in use: the local runs leave the placeholders alone."""
    default_resources = {name: r.raw for name, r in (resource_settings.default_resources or {}).items()}
    set_resources = {rule: {name: r.raw for name, r in resources.items()}
                     for rule, resources in resource_settings.overwrite_resources.items()}  # fmt: skip
    if not any(name.startswith("slurm_") for resources in (default_resources, *set_resources.values())
               for name in resources):  # fmt: skip
        return []
    found: Placements = {}
    for name, value in default_resources.items():
        if _is_placeholder(value):
            found.setdefault((name, value), {}).setdefault("default-resources", [])
    for rule, resources in set_resources.items():
        for name, value in resources.items():
            if _is_placeholder(value):
                found.setdefault((name, value), {}).setdefault("set-resources of", []).append(rule)
    for key, value in _flat(config).items():
        if _is_placeholder(value):
            found.setdefault((key.rpartition(".")[2], value), {}).setdefault("config", []).append(key)
    return _placeholder_lines(found)


def slurm_placeholders_of_jobs(jobs: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """`slurm_placeholders` of the jobs about to be submitted, given as (rule name, evaluated resources): one line
    per resource and placeholder, naming the rules whose jobs ask for it."""
    found: Placements = {}
    for rule, resources in jobs:
        for name, value in resources.items():
            if _is_placeholder(value):
                rules = found.setdefault((name, value), {}).setdefault("jobs of", [])
                rules += [] if rule in rules else [rule]
    return _placeholder_lines(found)


# The SLURM plugin (2.8.0) submits with a slurm_account resource whenever one is set, --slurm-no-account or not.
SLURM_PLACEHOLDER_FIX = ("set each to your site's value in profiles/slurm/config.yaml (default-resources, "
                         "set-resources) and in the config's pcgbench.cluster; where the site has no accounts, delete "
                         "the slurm_account line (--slurm-no-account alone does not remove it)")


def check_slurm_placeholders(resource_settings: Any, config: dict[str, Any]) -> str:
    """What the Snakefile says while planning about the SLURM placeholders (`slurm_placeholders`): nothing without
    them; a ValueError naming every one when default-resources holds one, since every job would be submitted with it
    (a dry run stops too: the plan of jobs that cannot be submitted is no plan); otherwise a warning naming them,
    since they belong to rules (set-resources) or PCGBench's shards (pcgbench.cluster) that the plan may not hold.
    A submission then stops before its first job while one of its jobs asks for one (`slurm_placeholders_of_jobs`,
    in the Snakefile's onstart, where the jobs and the executor are known)."""
    placeholders = slurm_placeholders(resource_settings, config)
    if not placeholders:
        return ""
    every_job = any(_is_placeholder(r.raw) for r in (resource_settings.default_resources or {}).values())
    text = "SLURM settings still hold their placeholders:\n  " + "\n  ".join(placeholders) + f"\n{SLURM_PLACEHOLDER_FIX}"
    if every_job:
        raise ValueError(text + " (default-resources apply to every job, so none could be submitted)")
    return text + "; a submission stops while a job it would submit asks for one"
