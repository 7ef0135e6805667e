"""Provenance records: what made an artifact (config values, code version, packages, seed, host, times).

    prov = Provenance.start(config=cfg_dict, seed=seed, step="jorge.train")
    ... write artifacts atomically ...
    prov.finish([out_json, out_png])   # writes out_json.prov.json and out_png.prov.json

A record sits beside each artifact as `<artifact>.prov.json` so that anyone holding the artifact can
trace it back to the config, code and seed that produced it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import importlib.metadata
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from workflow_scripts.common.io import write_json

REPO_ROOT = Path(__file__).resolve().parents[2]
# Packages whose versions change results; others are not worth the noise.
TRACKED_PACKAGES = (
    "numpy", "pandas", "pyarrow", "scipy", "scikit-learn", "torch", "transformers", "tokenizers",
    "datasets", "accelerate", "trl", "deepspeed", "snakemake", "matplotlib", "datasketch",
)  # fmt: skip
PROVENANCE_SUFFIX = ".prov.json"


@functools.cache
def code_version(repo: Path = REPO_ROOT) -> str:
    """`git describe --always --dirty` of the repository, or "unknown" outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True, text=True, timeout=10, check=True,
        )  # fmt: skip
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


@functools.cache
def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclasses.dataclass(kw_only=True)
class Provenance:
    """Everything needed to trace an artifact back to how it was made."""

    step: str  # the producing step, e.g. "jorge.train" or a rule name
    config: dict[str, Any]  # the config values this step used
    seed: int | None
    code_version: str
    packages: dict[str, str]
    host: str
    command: list[str]
    started: str
    finished: str | None = None

    @classmethod
    def start(cls, *, step: str, config: dict[str, Any] | None = None, seed: int | None = None) -> Provenance:
        return cls(
            step=step,
            config=dict(config or {}),
            seed=seed,
            code_version=code_version(),
            packages=package_versions(),
            host=socket.gethostname(),
            command=list(sys.argv),
            started=_now(),
        )

    def finish(self, artifacts: str | os.PathLike | list[str | os.PathLike], **extra: Any) -> list[Path]:
        """Stamp the end time and write one record beside each artifact. Returns the record paths."""
        self.finished = _now()
        if isinstance(artifacts, (str, os.PathLike)):
            artifacts = [artifacts]
        record = dataclasses.asdict(self) | extra
        written = []
        for artifact in artifacts:
            artifact = Path(artifact)
            if not artifact.exists():
                raise FileNotFoundError(f"provenance for {artifact}: the artifact was not written")
            written.append(write_json(provenance_path(artifact), record | {"artifact": artifact.name}))
        return written


def provenance_path(artifact: str | os.PathLike) -> Path:
    artifact = Path(artifact)
    return artifact.with_name(artifact.name + PROVENANCE_SUFFIX)
