"""Renamed variants of RLPF training kernels: their local variables renamed (training data augmentation).

Why (config `rlpf.tasks.renamings` per training kernel, kind `pragma` only): most
training kernels call their accumulator `acc` or `best`, so a model trained on them learns the literal text
`reduction(+:acc)` instead of "name the variable the loop accumulates into". A variant renames the kernel's
local variables (every scalar or pointer declared in the body, loop indices and `n` included; never a
parameter, whose name is fixed by the harness's signature) with a seeded, collision-free choice from a fixed
pool of common C names, and applies the same renaming to the completions. Renaming locals consistently does
not change what the program computes, so the variant is the same kernel; its programs are still built and
measured as what they are (the cache key is the program text), and rule rlpf_candidates measures some of the
renamed candidates to check that they score as their originals. A variant is a training task of its kernel:
held-out kernels get none.

Input: a kernel's body and signature (text), a seeded random.Random. Output: the renaming {old: new} and
the renamed text. No command of its own: rlpf/tasks.py builds the variants (`renamed_variant`), rlpf/candidates.py
and the summary rename completions with it.

    from workflow_scripts.rlpf.renaming import choose_renaming, rename_identifiers
    renamed = rename_identifiers(body, choose_renaming(body, signature, random.Random(seed)))
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING

from workflow_scripts.common.c_scanner import (
    declarator_name,
    for_loop_indices,
    scalar_declarations,
    split_declarators,
)

if TYPE_CHECKING:  # tasks.py imports this module
    from workflow_scripts.rlpf.tasks import Task

# New names are drawn from this fixed list of common C/C++ local names. It is generic, not tuned to the split: some
# of its names occur in suite kernels, held-out ones included (`count`, `best`, `running`), as they would in any code.
RENAME_POOL = ("acc", "sum", "total", "count", "result", "res", "best", "value", "val", "out", "agg", "cur", "tmp",
               "s", "t", "r", "v", "m", "c", "a", "b", "z", "w", "h", "k", "j", "p", "q", "u", "idx", "pos", "len",
               "size_n", "num", "cnt", "partial", "running", "local", "score", "top", "prod", "mask", "bits",
               "hits", "tally", "accum", "ans", "ret", "lim", "end", "stop", "bound", "row_ptr", "ptr", "it",
               "ii", "jj", "kk", "elem", "item", "x0", "y0", "lo", "hi", "mx", "mn", "extreme", "peak", "base_v")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def local_names(body: str, signature: str) -> list[str]:
    """Names the body declares (scalars, pointers, loop indices), in order of first declaration; no parameter."""
    params = set(_IDENT.findall(signature))
    names = []
    for decl in scalar_declarations(body):
        names += filter(None, map(declarator_name, split_declarators(decl)))
    names += for_loop_indices(body)
    return [n for n in dict.fromkeys(names) if n not in params]


def rename_identifiers(text: str, renaming: dict[str, str]) -> str:
    """`text` with every identifier in `renaming` replaced at once (swaps are safe); a member or qualified name
    (`x.size`, `p->n`, `std::max`) is not a local and is left alone."""
    if not renaming:
        return text
    pattern = re.compile(r"(?<![\w.])(?<!->)(?<!::)(" + "|".join(map(re.escape, renaming)) + r")\b")
    return pattern.sub(lambda m: renaming[m.group(1)], text)


def choose_renaming(body: str, signature: str, rng: random.Random) -> dict[str, str]:
    """A collision-free renaming of the body's locals: each gets a pool name that no identifier of the
    signature or body uses (so no local is captured by another, and no parameter, type or call is shadowed)."""
    taken = set(_IDENT.findall(signature)) | set(_IDENT.findall(body))
    free = [n for n in RENAME_POOL if n not in taken]
    names = local_names(body, signature)
    if len(free) < len(names):
        return {}
    return dict(zip(names, rng.sample(free, len(names)), strict=True))


def rename_completion(task: Task, completion: str) -> str:
    """An original task's completion written for its renamed variant `task` (the clauses name the new locals)."""
    return rename_identifiers(completion, dict(task.renaming))


