"""PCGBench: the parallel code generation benchmark, a study like the others: the configured problems and prompts,
the self-test generators, the evaluation of generations files and its shards, metrics, figures and summary, the
translation prompts, ParEval's files and released outputs, the reference check and the paper-scale projection.

How a program is built, run, checked and timed is the measurement engine's (`workflow_scripts.measure`), which
this study uses like every other. Other packages import from here only (`from workflow_scripts.pcgbench import
compute_metrics`), never a module inside it: tests/measure/test_api.py holds them to `__all__`. What they
get:

- the evaluation's estimators, compute_metrics (metrics.py); the evaluation itself, `evaluation` (a generations
  file, one shard of it and the shards' merge, a list of samples, one sample's runs), its settings, EvaluateConfig,
  made from a config's sections measure and pcgbench.evaluate by evaluation_settings (paths.py), and a sample,
  Sample (samples.py);
- generations files: load_generations, validate_records, and a problem's prompt record and ParEval names,
  prompt_record, problem_name, numbered_names (pareval_format.py); translation prompts: is_translation,
  model_prompt, and the pairs, parse_pair, pareval_pairs (translation.py); ParEval's results files, its outputs
  with its own verdicts (`pareval_results`: load_results, the released ones in data/pareval_released/), and
  `agreement` (agreement.main scores one here and holds each verdict against ParEval's, with a cause);
- the configured selection of the problems, select_problems (selection.py); the self-test generators,
  `generators`, their names, SELF_TEST_GENERATORS, and the suite's files for a rule, suite_files and
  prompt_set_file (paths.py);
- the study's own planning and acceptance check, which its benchmarks run: `shards` (an evaluation split into
  cluster jobs), `projection` (those jobs' runtimes at the paper's scale, from measured costs) and
  `reference_check` (every reference built, validated and timed).

The package's own modules import each other directly (`from workflow_scripts.pcgbench.samples import ...`),
never this file, which imports the library modules. The steps the rules run over them (prompts.py,
self_test_generations.py, build.py, evaluate.py, merge.py, reference_speedups.py) are thin entries that no
library module imports.
"""

from workflow_scripts.pcgbench import (
    agreement,
    evaluation,
    generators,
    pareval_results,
    projection,
    reference_check,
    shards,
    validation_strength,
)
from workflow_scripts.pcgbench.evaluation import EvaluateConfig
from workflow_scripts.pcgbench.metrics import compute_metrics
from workflow_scripts.pcgbench.pareval_format import (
    load_generations,
    numbered_names,
    problem_name,
    prompt_record,
    validate_records,
)
from workflow_scripts.pcgbench.paths import (
    SELF_TEST_GENERATORS,
    evaluation_settings,
    prompt_set_file,
    suite_files,
)
from workflow_scripts.pcgbench.samples import Sample
from workflow_scripts.pcgbench.selection import select_problems
from workflow_scripts.pcgbench.translation import is_translation, model_prompt, pareval_pairs, parse_pair

__all__ = [
    # the evaluation's estimators, the evaluation itself and its samples
    "compute_metrics", "evaluation", "Sample", "EvaluateConfig", "evaluation_settings",
    # generations files, ParEval's names and translation prompts
    "load_generations", "validate_records", "prompt_record", "problem_name", "numbered_names", "is_translation",
    "model_prompt", "parse_pair", "pareval_pairs",
    # ParEval's results files (its released outputs with its verdicts) and per-sample agreement with them
    "pareval_results", "agreement",
    # the configured problems, the self-test generators and the files rules name
    "select_problems", "generators", "SELF_TEST_GENERATORS", "suite_files", "prompt_set_file",
    # the study's shards, their projected runtimes, the reference check and the validation-strength check (its
    # benchmarks run them)
    "shards", "projection", "reference_check", "validation_strength",
]  # fmt: skip
