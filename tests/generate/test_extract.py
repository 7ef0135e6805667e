"""Body extraction on realistic messy model outputs, and putting a removed stop string back."""

import pytest

from workflow_scripts.common.c_scanner import matching_brace_end
from workflow_scripts.generate.backend_result import Completion
from workflow_scripts.generate.extract import extract_body
from workflow_scripts.generate.generate import completed_text

PROMPT = (
    "#include <omp.h>\n\n/* Return the average of the vector x.\n   Example: input: [1, 8, 4, 5, 1] output: 3.8 */\n"
    "double average(std::vector<double> const& x) {"
)
BODY = (
    "\n    double sum = 0.0;\n    #pragma omp parallel for reduction(+:sum)\n"
    "    for (size_t i = 0; i < x.size(); ++i) {\n        sum += x[i];\n    }\n    return sum / x.size();\n}"
)

CASES = {
    "plain continuation, then another function and main": BODY + "\n\nint main() {\n  return 0;\n}\n",
    "plain continuation, then prose": BODY + "\nThis uses a reduction so that threads do not race on sum.\n",
    "chat answer: prose, fenced full function, explanation": (
        "Here is a parallel implementation:\n\n```cpp\n#include <omp.h>\n\ndouble average(std::vector<double> const& x) {"
        + BODY + "\n```\n\nThe `reduction` clause combines the partial sums {safely}."
    ),
    "fence tagged c++ after an includes-only fence": (
        "```c++\n#include <vector>\n#include <omp.h>\n```\nThen:\n```c++\ndouble average(std::vector<double> const &x)\n{"
        + BODY + "\n```"
    ),
    "repeated signature, unfenced": "double average(std::vector<double> const& x) {" + BODY + "\n// end\n",
    "whole prompt repeated": PROMPT + BODY + "\n\nint main() {}\n",
    "unclosed fence at the end of the answer": "Sure.\n```cpp\ndouble average(std::vector<double> const& x) {" + BODY,
}


@pytest.mark.parametrize("completion", CASES.values(), ids=CASES.keys())
def test_extracts_the_same_body_from_messy_outputs(completion):
    assert extract_body(PROMPT, completion).strip() == BODY.strip()


def test_braces_in_strings_comments_and_char_literals_do_not_count():
    body = (
        '\n  // a stray } in a comment\n  /* and { here */\n  printf("}}} %d\\n", 1);\n  char c = \'}\';\n'
        '  const char *s = R"x(})x";\n  long n = 1\'000\'000;\n  return n + c;\n}'
    )
    assert extract_body("long f() {", body + "\nint g() { return 1; }\n") == body + "\n"


def test_recursive_call_at_the_start_is_a_body_not_a_restatement():
    prompt = "/* n-th Fibonacci number */\nint fib(int n) {"
    body = "\n  return n < 2 ? n : fib(n - 1) + fib(n - 2);\n}"
    assert extract_body(prompt, body + "\nint main() { return fib(3); }") == body + "\n"


def test_truncated_body_is_left_unbalanced_not_completed():
    truncated = "\n  double sum = 0;\n  for (size_t i = 0; i < x.size(); ++i) {\n    sum += x[i];"
    out = extract_body(PROMPT, truncated)
    assert out.rstrip() == truncated.rstrip()
    assert matching_brace_end(out) is None  # it will fail to build: the honest verdict for a cut-off sample


def test_fenced_body_without_signature_gets_its_implicit_closing_brace():
    answer = "The body is:\n```cpp\n  double s = 0;\n  for (double v : x) { s += v; }\n  return s / x.size();\n```\n"
    assert extract_body(PROMPT, answer) == "  double s = 0;\n  for (double v : x) { s += v; }\n  return s / x.size();\n}\n"


def test_matching_brace_end_counts_from_the_opening_depth():
    assert matching_brace_end("a { b } c } d") == len("a { b } c }")
    assert matching_brace_end("{ }") is None


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        (Completion(text="  return 1;", finish_reason="stop", stop_reason="\n}", new_tokens=3), "  return 1;\n}"),
        # A hosted API that does not say which stop string matched: the one that closes the function.
        (Completion(text="  return 1;", finish_reason="stop", stop_reason=None, new_tokens=3), "  return 1;\n}"),
        # Cut by the token limit: nothing is added.
        (Completion(text="  return 1;", finish_reason="length", stop_reason=None, new_tokens=3), "  return 1;"),
    ],
)
def test_completed_text_restores_the_stop_string(completion, expected):
    assert completed_text(completion, ["\n}"]) == expected


def _suite_cases():
    from workflow_scripts.measure.suite import EXECUTION_MODELS, load_suite

    return [(problem, model) for problem in load_suite() for model in EXECUTION_MODELS]


@pytest.mark.parametrize(("problem", "model"), _suite_cases(), ids=lambda x: getattr(x, "name", x))
def test_suite_reference_bodies_survive_continuation_and_chat_wrapping(problem, model):
    """Every PCGBench reference body, written as a model would, comes back out exactly."""
    from workflow_scripts.generate.extract import _signature
    from workflow_scripts.measure.suite import prompt, reference_body

    text, body = prompt(problem, model), reference_body(problem, model)
    continuation = body + "\n\n// Driver code\nint main(int argc, char **argv) {\n  return 0;\n}\n"
    assert extract_body(text, continuation) == body
    chat = f"Here is the code:\n\n```cpp\n{_signature(text)} {{{body}\n```\n\nIt is parallel {{and}} correct."
    assert extract_body(text, chat).strip() == body.strip()


def test_a_body_closed_with_a_digraph_ends_there():
    """`%>` is `}` to the compiler (and `<%` `{`, `<:` `[`, `:>` `]`): a body that closes the function with it ends
    there, and what follows (a constructor of its own) is not taken into the body."""
    prompt = "double average(std::vector<double> const& x) {"
    completion = " double s = 0; for (size_t i = 0; i < x.size(); ++i) <% s += x<:i:>; %> return s / x.size(); %>\n" \
                 "__attribute__((constructor)) static void pcg_forge() {}\n"
    assert extract_body(prompt, completion) == \
        " double s = 0; for (size_t i = 0; i < x.size(); ++i) <% s += x<:i:>; %> return s / x.size(); %>\n"
    # `<::` before a name is `<` then `::`, not a bracket.
    assert extract_body(prompt, " std::vector<::size_t> v; return 0; }\nint pcg_other;") == \
        " std::vector<::size_t> v; return 0; }\n"
