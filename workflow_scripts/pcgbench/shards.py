"""How one generator's PCGBench evaluation is split into jobs (shards), and what each job asks a cluster for.

At the paper's scale a generator has 420 prompts x 20 samples, each timed over a sweep of thread and rank
counts, and two of its seven execution models need a GPU: one job cannot hold it. `pcgbench.shards` splits the
samples by execution model (`by_model`: a shard's model decides its node: a GPU for CUDA and HIP, an exclusive
CPU node for the others, `pcgbench.cluster`) and, past `problems_per_shard`, by problem within a model:

    shards = plan(["serial", "omp", "cuda"], ["fft_dft", "reduce_average", "sort_ascending"], by_model=True,
                  problems_per_shard=2)
    [s.name for s in shards]   # ['serial.0', 'serial.1', 'omp.0', 'omp.1', 'cuda.0', 'cuda.1']

Each shard is built and evaluated on its own (rules pcgbench_build and pcgbench_evaluate, wildcard `shard`), into
a folder of its own: a retried or resumed shard redoes nothing of the others. The merge (evaluation.merge) writes
the generator's results.parquet, metrics.json and metrics.csv as one unsharded evaluation does. Where sharding
does not pay (the tiny config), `by_model: false` and `problems_per_shard: 0` give one shard, "all": its jobs then
write the generator's outputs themselves, with no merge job (Layout: where each job writes).

A shard's name is its model (or "all") and, when problems are split, the index of its problem group: the plan
depends only on the config's models and problems, so every generator (and the reference, whose run times set
the others' time limits shard by shard) has the same shards.
"""

from __future__ import annotations

import dataclasses
import functools

from workflow_scripts.measure import check_exec_model, load_suite
from workflow_scripts.pcgbench.selection import select_problems

ALL = "all"


@dataclasses.dataclass(frozen=True)
class Shard:
    name: str
    exec_models: tuple[str, ...]
    problems: tuple[str, ...]

    def __post_init__(self) -> None:  # lists from a rule's params become tuples
        object.__setattr__(self, "exec_models", tuple(self.exec_models))
        object.__setattr__(self, "problems", tuple(self.problems))

    def holds(self, exec_model: str, problem: str) -> bool:
        return exec_model in self.exec_models and problem in self.problems


def plan(exec_models: list[str], problems: list[str], *, by_model: bool, problems_per_shard: int) -> list[Shard]:
    """The shards of an evaluation of `exec_models` x `problems` (names; problems in the order given)."""
    if problems_per_shard < 0:
        raise ValueError(f"pcgbench.shards.problems_per_shard must be >= 0 (0: no split by problem), got "
                         f"{problems_per_shard}")  # fmt: skip
    for exec_model in exec_models:
        check_exec_model(exec_model)
    size = problems_per_shard or max(len(problems), 1)
    groups = [tuple(problems[i : i + size]) for i in range(0, len(problems), size)] or [()]
    split = len(groups) > 1
    by = [(exec_model, (exec_model,)) for exec_model in exec_models] if by_model else [(ALL, tuple(exec_models))]
    return [Shard(f"{name}.{i}" if split else name, shard_exec_models, group)
            for name, shard_exec_models in by for i, group in enumerate(groups)]  # fmt: skip


def find(shards: list[Shard], name: str) -> Shard:
    """The shard named `name` (a wildcard value), or a ValueError listing the plan's names."""
    for shard in shards:
        if shard.name == name:
            return shard
    raise ValueError(f"no PCGBench shard {name!r}: pcgbench.shards gives {[s.name for s in shards]}")


def node_kind(shard: Shard, gpu_exec_models: list[str]) -> str:
    """The kind of node a shard needs: gpu when any of its models runs on a GPU (pcgbench.cluster.gpu_models)."""
    return "gpu" if set(shard.exec_models) & set(gpu_exec_models) else "cpu"


@functools.cache
def _problem_names(selection: str | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p.name for p in select_problems(load_suite(), selection))


def plan_for(pcgbench_config: dict, task: str = "generation") -> list[Shard]:
    """The shards of every generator's evaluation under config section `pcgbench` (its models, problems and
    `shards`). The translation task's outputs are samples of its pairs' target models only (pcgbench.translation
    .pairs): its plan has their shards, named as the generation task's (the same shard holds the programs the
    generation evaluation ran, which its translations may share)."""
    selection = pcgbench_config["problems"]
    return _plan_for(selection if isinstance(selection, str) else tuple(selection), tuple(pcgbench_config["models"]),
                     tuple(pcgbench_config["translation"]["pairs"]), tuple(sorted(pcgbench_config["shards"].items())),
                     task)  # fmt: skip


@functools.cache  # a plan's resources and inputs ask for it once per job (thousands at the paper's scale)
def _plan_for(selection: str | tuple[str, ...], exec_models: tuple[str, ...], pairs: tuple[str, ...],
              sharding: tuple[tuple[str, object], ...], task: str) -> list[Shard]:  # fmt: skip
    if task == "translation":
        from workflow_scripts.pcgbench.translation import parse_pair

        targets = {parse_pair(pair)[1] for pair in pairs}
        exec_models = tuple(m for m in exec_models if m in targets)
    elif task != "generation":
        raise ValueError(f"no PCGBench task {task!r}: generation or translation")
    return plan(list(exec_models), list(_problem_names(selection)), **dict(sharding))


def named(pcgbench_config: dict, name: str, task: str = "generation") -> Shard:
    """The shard `name` (a wildcard value) of the config's plan for `task`: what a shard rule's inputs, parameters
    and resources read."""
    return find(plan_for(pcgbench_config, task), name)


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where the shard jobs of a task write, as the rules' patterns. With several shards each job writes in a
    folder of its own, <folder>/shards/{shard}/, and a merge job writes the generator's outputs in <folder>. With
    one (the tiny config, where sharding does not pay) its jobs write in <folder> and the evaluation writes the
    generator's outputs itself: no merge job runs, and the patterns have no `shard` wildcard."""

    names: tuple[str, ...]  # the plan's shards (plan_for)

    @property
    def one(self) -> bool:
        return len(self.names) == 1

    def folder(self, folder: str) -> str:
        """A shard job's folder, as a pattern: `folder` itself when the plan is one shard."""
        return folder if self.one else f"{folder}/shards/{{shard}}"

    def tag(self, name: str) -> str:
        """A shard job's log and benchmark name: `name`, with the shard where there are several."""
        return name if self.one else f"{name}_{{shard}}"

    def of(self, wildcards) -> str:
        """The shard of a shard job (its `shard` wildcard, where the patterns have one)."""
        return self.names[0] if self.one else wildcards.shard

    def outputs(self, *, shard: dict, whole: dict) -> dict:
        """A shard job's outputs: `shard` (its own files, merged later), or `whole` (the generator's) for one shard."""
        return whole if self.one else shard

    def path(self, folder: str, name: str) -> str:
        """A shard job's file `name`, as a pattern."""
        return f"{self.folder(folder)}/{name}"

    def file(self, folder: str, shard: str, name: str) -> str:
        """The file `name` of shard `shard`'s job in `folder`."""
        return self.path(folder, name).replace("{shard}", shard)


def layout(pcgbench_config: dict, task: str = "generation") -> Layout:
    """The Layout of `task`'s plan under config section `pcgbench`."""
    return Layout(tuple(shard.name for shard in plan_for(pcgbench_config, task)))


# Resources that grow with a retried job's attempt, as in profiles/slurm's default-resources.
_PER_ATTEMPT = ("mem_mb", "runtime")


def cluster_resources(pcgbench_config: dict, local: dict[str, int], task: str = "generation") -> dict:
    """A shard rule's resources: `local` (what it needs on one machine: mem_mb, timing_slot) and, for a cluster, the
    requests of its node kind in `pcgbench.cluster` (partition, GPUs, cores, run time...), each a function of the
    job's wildcards and attempt. Both kinds name the same requests, except `gpu` (0 where the CPU kind omits it)."""
    cluster = pcgbench_config["cluster"]
    kinds = {"cpu": {"gpu": 0, **cluster["cpu"]}, "gpu": cluster["gpu"]}
    for kind, other in (("cpu", "gpu"), ("gpu", "cpu")):
        lacking = sorted(set(kinds[other]) - set(kinds[kind]))
        if lacking:
            raise ValueError(f"pcgbench.cluster.{kind} lacks {lacking}, which pcgbench.cluster.{other} gives: a "
                             "shard's request must not depend on which kind was read first; give them in both")

    shard_of = layout(pcgbench_config, task).of

    def request(key: str):
        def value(wildcards, attempt: int):
            shard = named(pcgbench_config, shard_of(wildcards), task)
            kind = kinds[node_kind(shard, cluster["gpu_models"])]
            found = kind.get(key, local.get(key))
            return found * attempt if key in _PER_ATTEMPT else found

        return value

    return {key: request(key) for key in sorted(set(kinds["cpu"]) | set(local))}
