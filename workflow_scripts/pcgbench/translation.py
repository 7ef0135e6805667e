"""ParEval's second task family, translation: working code in one execution model is given, and the same function
is asked for in another. The answer is scored like any sample of the target model.

ParEval ships 143 translation tasks (prompts/translation-prompts.json, made by its
prompts/create-translation-prompts.py): serial -> OpenMP (54), serial -> MPI (54) and CUDA -> Kokkos (35). A
record is the target model's generation record (its `parallelism_model` and `prompt` are the target's) with five
fields more:

    {"name": "27_reduce_average", "problem_type": "reduce", "parallelism_model": "omp", "language": "cpp",
     "prompt": "<the OpenMP generation prompt>",
     "translation_prompt": "// Serial implementation of average\\n// <source prompt and body, commented>\\n\\n"
                           "// OpenMP implementation of average\\n<the OpenMP generation prompt>\\n",
     "translation_src_model": "serial", "translation_dst_model": "omp",
     "translation_src_example": "<source prompt>\\n<source body>", "translation_function_name": "average",
     "outputs": ["<generated body>", ...]}

A model is given `translation_prompt` (ParEval's generate/translate.py); its output is compiled after `prompt`, as
for generation (ParEval's drivers read only `prompt`, `parallelism_model` and `outputs`). ParEval made a task only
where one of its models had written a correct source implementation, so some problems lack some pairs
(PAREVAL_MISSING); this suite's source implementation is its own reference body (suite.reference_body).

- `export_translation_prompts` writes this suite's translation prompts in that format (every pair ParEval has, for
  the problems given; `numbering="pareval"` names them as ParEval does);
- `model_prompt` is the text a language model is given for a record (generate.py);
- `source_exec_model`, `check_translation_fields` and `mark_translation_mismatches` let the evaluation read a
  translation file (samples.py): a record is matched as for generation (no_driver, prompt_mismatch), and where
  its `translation_prompt` declares another target interface than the problem's it is prompt_mismatch too.
  Each output is scored as a sample of the target model; its results carry the task and the source model
  (metrics.py reports the metrics per pair, "serial->omp").

Run: python -m workflow_scripts.pcgbench export-prompts OUT.json --task translation [--pairs 'serial->omp']
     [--problems a,b] [--numbering pareval]
"""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path

from workflow_scripts.common.io import write_json
from workflow_scripts.measure import EXECUTION_MODELS, PROBLEMS_ROOT, PROMPT_MISMATCH, Problem, reference_body
from workflow_scripts.pcgbench.pareval_format import (
    NUMBERINGS,
    GenerationsError,
    Match,
    interface_mismatch,
    numbered_names,
    pareval_names,
    prompt_record,
)

logger = logging.getLogger(__name__)

GENERATION = "generation"
TRANSLATION = "translation"
# ParEval's translation tasks (source, target), in its order (create-translation-prompts.py TRANSLATION_TASKS).
PAIRS: tuple[tuple[str, str], ...] = (("serial", "omp"), ("serial", "mpi"), ("cuda", "kokkos"))
SEPARATOR = "->"
# The problems (ParEval's names without number) that ParEval's translation-prompts.json has no task of a pair for:
# no model's generation for the source model was correct there (read from ParEval 4c9877f's file; a test holds the
# export to it).
_SERIAL_MISSING = ("geometry_convex_hull", "geometry_convex_hull_perimeter", "scan_largest_contiguous_subarray_sum",
                   "scan_reverse_prefix_sum", "sparse_la_sparse_axpy", "sparse_la_sparse_solve")
PAREVAL_MISSING: dict[str, frozenset[str]] = {
    "serial->omp": frozenset(_SERIAL_MISSING),
    "serial->mpi": frozenset(_SERIAL_MISSING),
    "cuda->kokkos": frozenset((
        "dense_la_lu_decomp", "dense_la_solve", "fft_fft_conjugate", "fft_inverse_fft", "fft_split_fft",
        "geometry_closest_pair_2d", "geometry_convex_hull", "geometry_convex_hull_perimeter", "geometry_smallest_triangle",
        "graph_count_components", "graph_largest_component", "reduce_product_of_inverses", "reduce_sum_of_min_of_pairs",
        "reduce_xor", "scan_largest_contiguous_subarray_sum", "scan_reverse_prefix_sum", "scan_sum_of_prefix_sum_array",
        "search_find_the_closest_number_to_pi", "search_find_the_first_even_number", "sort_k-th_smallest_element",
        "sort_sort_an_array_of_complex_numbers_by_magnitude", "sort_sort_an_array_of_structs_by_key",
        "sort_sort_non-zero_elements", "sparse_la_sparse_lu_decomp", "sparse_la_sparse_solve")),
}  # fmt: skip
# ParEval's names of the execution models in a translation prompt (EXECUTION_MODEL_CLEAN_NAME_MAP).
EXEC_MODEL_NAMES = {"serial": "Serial", "omp": "OpenMP", "mpi": "MPI", "mpi+omp": "MPI+OpenMP", "kokkos": "Kokkos",
                    "cuda": "CUDA", "hip": "HIP"}  # fmt: skip
# ParEval's TRANSLATION_PROMPT_FORMAT.
PROMPT_FORMAT = """// {src_model} implementation of {function_name}
{src_model_example}

// {dst_model} implementation of {function_name}
{dst_model_prompt}
"""
# The fields a translation record adds to a generation record, in ParEval's order.
FIELDS = ("translation_prompt", "translation_src_model", "translation_dst_model", "translation_src_example",
          "translation_function_name")  # fmt: skip
PAIR_NAMES = tuple(f"{source}{SEPARATOR}{target}" for source, target in PAIRS)


def pair_name(source: str, target: str) -> str:
    """"serial->omp": how results, metrics and the config name a translation pair."""
    return f"{source}{SEPARATOR}{target}"


def parse_pair(name: str) -> tuple[str, str]:
    """("serial", "omp") of "serial->omp"; ValueError naming ParEval's pairs for any other text."""
    source, sep, target = name.partition(SEPARATOR)
    if not sep or (source, target) not in PAIRS:
        raise ValueError(f"unknown translation pair {name!r}; ParEval's are {', '.join(PAIR_NAMES)}")
    return source, target


def function_name(signature: str) -> str:
    """The function a signature declares: the name before its parameter list ("__global__ void k(" -> "k")."""
    match = re.search(r"([A-Za-z_]\w*)\s*\(", signature)
    if match is None:
        raise ValueError(f"no function name in the signature {signature!r}")
    return match.group(1)


def _commented(text: str) -> str:
    # ParEval's prepend_to_every_line(s, "// ").
    return "\n".join("// " + line for line in text.splitlines())


def source_example(problem: Problem, source: str) -> str:
    """The working source implementation shown to the model: the source model's prompt, then the suite's reference
    body for it (ParEval: the prompt, then a correct generated body)."""
    return prompt_record(problem, source)["prompt"] + "\n" + reference_body(problem, source).rstrip("\n")


def translation_record(problem: Problem, source: str, target: str, name: str | None = None) -> dict:
    """The translation task (problem, source -> target) as ParEval writes it (its fields in its order), with empty
    `outputs`."""
    generation = prompt_record(problem, target, name)
    example = source_example(problem, source)
    function = function_name(problem.signature(target))
    record = {field: generation[field] for field in ("problem_type", "language", "name", "parallelism_model", "prompt")}
    record["translation_prompt"] = PROMPT_FORMAT.format(
        src_model=EXEC_MODEL_NAMES[source], src_model_example=_commented(example), dst_model=EXEC_MODEL_NAMES[target],
        function_name=function, dst_model_prompt=record["prompt"])  # fmt: skip
    record.update(translation_src_model=source, translation_dst_model=target, translation_src_example=example,
                  translation_function_name=function, outputs=[])  # fmt: skip
    return record


def pareval_pairs(problem: Problem, root: Path = PROBLEMS_ROOT) -> list[tuple[str, str]]:
    """The translation pairs ParEval has for this problem, in ParEval's order; none for a problem ParEval lacks
    (the suite's extras)."""
    entry = next((e for e in pareval_names(Path(root)).values() if e.problem == problem.name), None)
    if entry is None:
        return []
    return [pair for pair in PAIRS if entry.name not in PAREVAL_MISSING[pair_name(*pair)]]


def export_translation_prompts(problems: list[Problem], out: Path, *, pairs: list[str] | tuple[str, ...] = PAIR_NAMES,
                               numbering: str = "suite", root: Path = PROBLEMS_ROOT) -> list[dict]:  # fmt: skip
    """Write one translation record per (problem, pair) that ParEval has, for the `pairs` named ("serial->omp"),
    atomically to `out`: grouped by pair in ParEval's order, then by name (ParEval's numbered names with
    `numbering="pareval"`, else the suite's folders)."""
    wanted = [parse_pair(name) for name in pairs]
    if numbering not in NUMBERINGS:
        raise ValueError(f"unknown numbering {numbering!r}; expected one of {list(NUMBERINGS)}")
    names = {p.name: p.name for p in problems}
    if numbering == "pareval":
        names.update({folder: numbered for folder, numbered in numbered_names(root).items() if folder in names})
    order = sorted(problems, key=lambda p: names[p.name])  # only ParEval's problems have translation tasks
    records = [translation_record(problem, *pair, names[problem.name])
               for pair in PAIRS if pair in wanted for problem in order if pair in pareval_pairs(problem, root)]  # fmt: skip
    without = sorted(p.name for p in problems if not any(pair in wanted for pair in pareval_pairs(p, root)))
    if without:
        logger.info("no translation task of %s in ParEval for %d of the problems given: %s", ", ".join(pairs),
                    len(without), ", ".join(without))  # fmt: skip
    write_json(Path(out), records)
    counts = {pair_name(*pair): sum(r["translation_src_model"] == pair[0] and r["parallelism_model"] == pair[1]
                                    for r in records) for pair in PAIRS if pair in wanted}  # fmt: skip
    logger.info("wrote %d translation prompts (%s) for %d problems to %s", len(records),
                ", ".join(f"{pair} {count}" for pair, count in counts.items()), len(problems), out)  # fmt: skip
    return records


# ---------------------------------------------------------------------------------------------------------
# Reading translation records


def is_translation(record: dict) -> bool:
    return any(field in record for field in FIELDS)


def source_exec_model(record: dict) -> str | None:
    """The record's source model when it is a translation task, else None (a generation task)."""
    return record.get("translation_src_model") if is_translation(record) else None


def model_prompt(record: dict) -> str:
    """The text a language model is given for a record: a translation task's `translation_prompt` (ParEval's
    translate.py), a generation task's `prompt`."""
    return record["translation_prompt"] if is_translation(record) else record["prompt"]


def check_translation_fields(records: list[dict], source: str = "generations") -> None:
    """A record with any translation field must name its source and target models (among the execution models, the
    target its `parallelism_model`) and give its translation prompt as text; GenerationsError names the record and
    the field otherwise."""
    for index, record in enumerate(records):
        if not is_translation(record):
            continue
        where = f"{source}: record {index} ({record['name']!r})"
        for field in ("translation_src_model", "translation_dst_model", "translation_prompt"):
            if not isinstance(record.get(field), str):
                got = "missing" if field not in record else f"a {type(record[field]).__name__}"
                raise GenerationsError(f"{where}: field '{field}' is {got}; a translation record (one with any of "
                                       f"{', '.join(FIELDS)}) gives its source model, target model and prompt as text")
        src, dst = record["translation_src_model"], record["translation_dst_model"]
        for field, exec_model in (("translation_src_model", src), ("translation_dst_model", dst)):
            if exec_model not in EXECUTION_MODELS:
                raise GenerationsError(f"{where}: field '{field}' is {exec_model!r}; expected one of {list(EXECUTION_MODELS)}")
        if dst != record["parallelism_model"]:
            raise GenerationsError(f"{where}: field 'translation_dst_model' is {dst!r} but 'parallelism_model' is "
                                   f"{record['parallelism_model']!r}; a translation record's target is its execution "
                                   "model (ParEval writes both the same)")
        if src == dst:
            raise GenerationsError(f"{where}: fields 'translation_src_model' and 'translation_dst_model' are both "
                                   f"{src!r}; a translation goes from one execution model to another")


def mark_translation_mismatches(matches: list[Match]) -> list[Match]:
    """The matches, with a matched translation record whose `translation_prompt` (what the model was given)
    declares another interface than the problem's target model marked prompt_mismatch, as its `prompt` would be."""
    marked = []
    for match in matches:
        if match.status == "" and is_translation(match.record):
            why = interface_mismatch(match.record["translation_prompt"], match.problem, match.exec_model)
            if why:
                logger.warning("record %d (%s, %s): translation_prompt: %s; reported as %s", match.index,
                               match.record["name"], match.exec_model, why, PROMPT_MISMATCH)  # fmt: skip
                match = dataclasses.replace(match, status=PROMPT_MISMATCH, reason=f"translation_prompt: {why}")
        marked.append(match)
    return marked


__all__ = ["EXEC_MODEL_NAMES", "FIELDS", "GENERATION", "PAIRS", "PAIR_NAMES", "PAREVAL_MISSING", "PROMPT_FORMAT",
           "SEPARATOR", "TRANSLATION", "check_translation_fields", "export_translation_prompts",
           "function_name", "is_translation", "mark_translation_mismatches", "model_prompt", "pair_name",
           "pareval_pairs", "parse_pair", "source_example", "source_exec_model", "translation_record"]
