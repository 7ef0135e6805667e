"""Config validation messages a person can act on.

The Snakefile validates the config with `snakemake.utils.validate` (JSON Schema, defaults filled in).
When that fails, `explain_config_errors` lists every problem as `key.path: what is wrong (allowed: ...)`
so the user sees the field and the fix, not a dump of the schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource


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
            lines.append(f"config: {message} ({_allowed(error)})")
            continue
        hint = _allowed(error)
        lines.append(f"config key '{key}': {error.message}" + (f" ({hint})" if hint else ""))
    return lines
