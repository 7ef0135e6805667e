"""The machine's build cache: build products shared by every evaluation on this machine (the Kokkos
installation, driver objects, precompiled headers), outside any checkout.

The confined compiler reads them, and in root mode it runs as uid 65534: a checkout inside a 0700 home or a
`mktemp -d` folder is closed to it, so nothing it reads may live there.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def machine_cache_dir() -> Path:
    """$PCGBENCH_MACHINE_CACHE, else pcgbench-cache-<uid> in the system's temporary folder. Everything in it is
    keyed by what went into it. Nobody else may write to it (a planted precompiled header would go into every
    sample), so a folder owned by another user or writable by others is refused; and the confined compiler
    must be able to reach it, so a folder below one that others cannot enter is refused as root."""
    folder = Path(os.environ.get("PCGBENCH_MACHINE_CACHE") or Path(tempfile.gettempdir()) / f"pcgbench-cache-{os.getuid()}")
    folder = folder.resolve()
    folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise RuntimeError(f"{folder}: the machine build cache must be owned by uid {os.getuid()} and not writable "
                           "by others; remove it or set PCGBENCH_MACHINE_CACHE to a folder of your own")
    check_reachable(folder, "the machine build cache", "PCGBENCH_MACHINE_CACHE")
    if info.st_mode & 0o755 != 0o755:
        folder.chmod(0o755)
    return folder


def check_reachable(folder: Path, what: str, variable: str) -> None:
    """Refuse, in root mode, a folder below one the confined compiler (uid 65534) cannot enter: every sample
    reading from it would fail to build with a misleading missing-file error."""
    if os.geteuid() != 0:  # rootless mode: the confined compiler is the user, whose folders these are
        return
    closed = [str(p) for p in Path(folder).resolve().parents if not p.stat().st_mode & stat.S_IXOTH]
    if closed:
        raise RuntimeError(f"{folder}: {what} lies below {closed[0]}, which the confined compiler (uid 65534) "
                           f"cannot enter; set {variable} to a folder it can reach (the default is in the "
                           "system's temporary folder)")
