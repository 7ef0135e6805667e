"""The one C/C++ scanner every study reads code with: it finds structure and facts without a C++ front end.

- syntax.py: comments and literals (which hold no code), brackets, statements, for loops, top-level loops of a
  function body, pragma directives;
- declarations.py: scalar declarations and for-loop indices, assignments, counted loop headers and a loop's
  bound, struct definitions, a declaration's canonical spelling;
- openmp.py: OpenMP directives' clauses and the edits made to them;
- models.py: which execution model a text uses (a corpus file's models; whether a generated body uses its own).

Every public scan is linear in its input's length (tests/spine/test_c_scanner.py checks each on 2 MB of
adversarial text). Users: generate/ (function bodies in completions), corpus/build.py (models, C++ headers),
hpccoder/ (the pragma data set, kernel edits), pcgbench/ (the model check, mutants, ParEval prompts), rlpf/
(loops, declarations and renamings of kernels). Import from the package:

    from workflow_scripts.common.c_scanner import for_loops, statement_end
    loops = for_loops(code)  # [ForLoop(start, header_start, header_end, end), ...]
"""

from workflow_scripts.common.c_scanner.declarations import (
    assignment_offsets,
    canonical_declaration,
    counted_loop,
    declarator_name,
    first_loop_bound,
    for_loop_indices,
    scalar_declarations,
    split_declarators,
    struct_definitions,
)
from workflow_scripts.common.c_scanner.models import (
    EXEC_MODEL_TITLES,
    PARALLEL_EXEC_MODELS,
    has_cpp_constructs,
    parallel_models,
    uses_exec_model,
)
from workflow_scripts.common.c_scanner.openmp import (
    is_parallel_for_directive,
    omp_clauses,
    reduction_operators,
    with_one_thread,
    with_schedule,
    without_first_reduction,
    without_for_of_first_reduction,
)
from workflow_scripts.common.c_scanner.syntax import (
    OPENING,
    ForLoop,
    Pragma,
    blank_comments,
    for_loops,
    function_body,
    matching_brace_end,
    matching_close,
    pragmas,
    preprocessor_line_end,
    skip_comment_or_literal,
    skip_space_and_comments,
    statement_end,
    strip_comments_and_strings,
    strip_line_comments,
    top_level_loops,
)

__all__ = [
    "EXEC_MODEL_TITLES", "OPENING", "PARALLEL_EXEC_MODELS", "ForLoop", "Pragma", "assignment_offsets", "blank_comments",
    "canonical_declaration", "counted_loop",
    "declarator_name", "first_loop_bound", "for_loop_indices", "for_loops", "function_body", "has_cpp_constructs",
    "is_parallel_for_directive", "matching_brace_end", "matching_close", "omp_clauses", "parallel_models", "pragmas",
    "preprocessor_line_end", "reduction_operators", "scalar_declarations", "skip_comment_or_literal",
    "skip_space_and_comments", "split_declarators", "statement_end", "strip_comments_and_strings",
    "strip_line_comments", "struct_definitions", "top_level_loops", "uses_exec_model", "with_one_thread", "with_schedule",
    "without_first_reduction", "without_for_of_first_reduction",
]  # fmt: skip
