"""Atomic artifact writes: write to a temporary name in the same folder, then rename.

A run killed mid-write leaves at most a `.tmp-*` file, never a half-written artifact under the real
name, so a later run (or Snakemake) cannot mistake it for a finished one. `os.replace` is atomic on
POSIX when source and target are on the same file system, which holds because the temporary file is
created beside the target.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside `target`; on success rename it to `target`, on error delete it.

    The suffix lets writers that infer the format from the name (pandas, matplotlib) see the right
    extension: `with atomic_path("fig.png", suffix=".png") as tmp: fig.savefig(tmp)`.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    suffix = suffix or "".join(target.suffixes[-1:])
    fd, tmp_name = tempfile.mkstemp(prefix=f".tmp-{target.name}-", suffix=suffix, dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        if not tmp.exists():
            raise FileNotFoundError(f"the writer for {target} did not create its temporary file {tmp}")
        if tmp.is_file():
            # mkstemp makes the file private (0600); artifacts get the usual permissions instead, so that
            # collaborators on a shared file system (and the sandbox's unprivileged user) can read them.
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            if tmp.is_dir():
                import shutil

                shutil.rmtree(tmp)
            else:
                tmp.unlink()
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _jsonable(value: Any) -> Any:
    """Turn numpy/torch scalars, paths and non-finite floats into plain JSON (NaN/inf become null)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 0) == 0:
        value = value.item()
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_json(target: str | os.PathLike, data: Any) -> Path:
    """Write `data` as indented, key-sorted JSON, atomically. Returns the target path."""
    text = json.dumps(_jsonable(data), indent=2, sort_keys=True, allow_nan=False) + "\n"
    return write_text(target, text)


def write_text(target: str | os.PathLike, text: str) -> Path:
    """Write text atomically (flushed and fsynced before the rename)."""
    with atomic_path(target) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    return Path(target)


def read_json(path: str | os.PathLike) -> Any:
    """Read a JSON file; a malformed one raises ValueError naming the file, line and column."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: malformed JSON at line {err.lineno}, column {err.colno}: {err.msg}") from err


def sha256_file(path: str | os.PathLike) -> str:
    """The file's sha256 as hex, read in 1 MiB blocks (model files are hundreds of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
