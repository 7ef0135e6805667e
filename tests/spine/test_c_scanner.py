"""The C/C++ scanner (common/c_scanner/) on hard inputs, and the two checks that read code through it and
used to get these wrong: RLPF's loop finder (braces in strings and comments) and the OpenMP use check
(`_Pragma("omp ...")`)."""

import time

import pytest

from workflow_scripts.common.c_scanner import (
    ForLoop,
    assignment_offsets,
    canonical_declaration,
    counted_loop,
    first_loop_bound,
    for_loop_indices,
    for_loops,
    function_body,
    has_cpp_constructs,
    is_parallel_for_directive,
    matching_brace_end,
    matching_close,
    omp_clauses,
    parallel_models,
    pragmas,
    reduction_operators,
    scalar_declarations,
    skip_comment_or_literal,
    statement_end,
    strip_comments_and_strings,
    strip_line_comments,
    struct_definitions,
    top_level_loops,
    uses_exec_model,
    with_one_thread,
    with_schedule,
    without_first_reduction,
    without_for_of_first_reduction,
)


def _after(text: str, i: int = 0) -> str:
    """What follows the comment or literal at i (the text that is code again)."""
    return text[skip_comment_or_literal(text, i) :]


# (text, what follows the comment or literal that starts at 0)
SKIPS = [
    ('"a}b" x', " x"),  # a brace in a string
    ("'}' x", " x"),  # a brace in a character literal
    ("'\\'' x", " x"),  # an escaped quote in a character literal
    ('"a\\"b" x', " x"),  # an escaped quote in a string
    ('"a\\\\" x', " x"),  # an escaped backslash just before the closing quote
    ('"http://x" y', " y"),  # `//` in a string is not a comment
    ('R"(a)" b")" x', ' b")" x'),  # a raw string ends at its first )"
    ('R"x(a)"b)x" y', " y"),  # ... or at )delim" when it has a delimiter
    ('R"(no \\" escape)" y', " y"),  # no escapes in a raw string
    ('u8R"(})" y', " y"),  # an encoding prefix
    ('LR"(")" y', " y"),
    ("/* a\n } */x", "x"),  # a block comment across lines
    ("// c }\nx", "\nx"),  # a line comment ends at its newline (kept: it ends preprocessor lines)
    ("// c \\\n still comment\nx", "\nx"),  # ... unless a backslash continues it
    ('"unterminated\nx', "\nx"),  # a stray quote stops at the end of its line
    ("'\nx", "\nx"),
    ("/* unterminated", ""),
    ("x = 1;", "x = 1;"),  # not a comment or literal: nothing skipped
    ("Rx", "Rx"),  # an identifier starting with R
]


@pytest.mark.parametrize(("text", "rest"), SKIPS)
def test_skip_comment_or_literal(text, rest):
    assert _after(text) == rest


@pytest.mark.parametrize(("text", "i"), [("1'000'000", 1), ("x = 1'0;", 5)])
def test_digit_separator_is_not_a_character_literal(text, i):
    assert skip_comment_or_literal(text, i) == i


# (text after an opening "{", the text up to and including its closing "}"; None when it never closes)
BODIES = [
    (' return "}"; }\nint main() {}', ' return "}"; }'),
    (" c = '}'; /* } */ // }\n }tail", " c = '}'; /* } */ // }\n }"),
    (' s = R"(})"; }x', ' s = R"(})"; }'),
    (' s = R"d()")d"; }x', ' s = R"d()")d"; }'),
    (" if (a) { b(); } }x", " if (a) { b(); } }"),
    (" f(a, { b", None),  # cut short by the token limit
    (" g(1'000); }x", " g(1'000); }"),
]


@pytest.mark.parametrize(("text", "body"), BODIES)
def test_function_body(text, body):
    assert function_body(text) == body
    assert matching_brace_end(text) == (None if body is None else len(body))


def test_matching_brace_end_from_depth_zero():
    assert matching_brace_end("int f() { return 1; } rest", depth=0) == len("int f() { return 1; }")


# (text, index of the opening bracket, the text up to and including its match)
BRACKETS = [
    ('(a, ")", \')\' + (b))x', 0, '(a, ")", \')\' + (b))'),
    ("f(a[i], /* ) */ b)x", 1, "f(a[i], /* ) */ b)"),
    ("{ x[\"]\"]; }x", 0, '{ x["]"]; }'),
]


@pytest.mark.parametrize(("text", "i", "matched"), BRACKETS)
def test_matching_close(text, i, matched):
    assert text[: matching_close(text, i)] == matched


@pytest.mark.parametrize("text", ["(a]", "(a", "{ ( }"])
def test_matching_close_refuses_unbalanced_brackets(text):
    with pytest.raises(ValueError):
        matching_close(text, 0)


# (text, the first statement in it)
STATEMENTS = [
    ("x = f(a, b); y;", "x = f(a, b);"),
    ('s = "a;b"; t;', 's = "a;b";'),
    ("for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n    a[i][j] = 0;\nnext;",
     "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n    a[i][j] = 0;"),  # unbraced nested loops
    ("for (;;) if (a) x; else y;\nz;", "for (;;) if (a) x; else y;"),  # an unbraced if/else body
    ("for (;;) if (v == 1) { s++; }\nz;", "for (;;) if (v == 1) { s++; }"),
    ("if (a) x = 1; else if (b) y; else { z; }  w;", "if (a) x = 1; else if (b) y; else { z; }"),
    ("while (i < n) { i += \"}\"[0]; } x;", 'while (i < n) { i += "}"[0]; }'),
    ("{ a; { b; } } c;", "{ a; { b; } }"),
    ("#pragma omp parallel for \\\n  private(i)\nfor (;;);", "#pragma omp parallel for \\\n  private(i)\n"),
    ("/* lead */ x; y;", "/* lead */ x;"),
    ("do { a; } while (b); c;", "do { a; } while (b);"),
]


@pytest.mark.parametrize(("text", "statement"), STATEMENTS)
def test_statement_end(text, statement):
    assert text[: statement_end(text, 0)] == statement


def test_statement_without_semicolon_is_an_error():
    with pytest.raises(ValueError):
        statement_end("x = 1", 0)


# (text, the text of each `for` loop, in order of their start)
LOOPS = [
    ('for (i = 0; i < n; i++) { s += "for (;;)"; } // for (x)\n', ['for (i = 0; i < n; i++) { s += "for (;;)"; }']),
    ("for (i = 0; i < 2; i++) for (j = 0; j < 2; j++) a;", ["for (i = 0; i < 2; i++) for (j = 0; j < 2; j++) a;",
                                                            "for (j = 0; j < 2; j++) a;"]),  # fmt: skip
    ("before(); x_for(1); fork(); /* for (;;) */", []),
    ("for(auto v : x) { if (v) break; }", ["for(auto v : x) { if (v) break; }"]),
]


@pytest.mark.parametrize(("text", "loops"), LOOPS)
def test_for_loops(text, loops):
    found = for_loops(text)
    assert [text[loop.start : loop.end] for loop in found] == loops
    for loop in found:
        assert text[loop.header_start - 1] == "(" and text[loop.header_end] == ")"


def test_for_loop_fields():
    assert for_loops("for (;;) x;") == [ForLoop(start=0, header_start=5, header_end=7, end=11)]


# (a function body after its "{", the text of each top-level loop that starts its own line)
TOP_LEVEL = [
    ("  int s = 0;\n  for (int v : x)\n    if (v == 1) { s++; }\n  for (int v : y)\n    s--;\n"
     "  if (s) for (;;) break;\n  return s;\n}\n",
     ["  for (int v : x)\n    if (v == 1) { s++; }", "  for (int v : y)\n    s--;"]),
    ("  for (i = 0; i < n; i++) {\n    for (j = 0; j < n; j++) a;\n  }\n}\n",
     ["  for (i = 0; i < n; i++) {\n    for (j = 0; j < n; j++) a;\n  }"]),  # the nested loop is not top level
    ('  const char* s = "{";\n  for (i = 0; i < n; i++)\n    a[i] = 0;\n}\n',
     ["  for (i = 0; i < n; i++)\n    a[i] = 0;"]),  # a brace in a string does not change the depth
    ("  /* { */\n  for (;;) break;\n}\n", ["  for (;;) break;"]),  # nor does one in a comment
    ('  puts("for (;;) x;");\n  x = 1; for (;;) y;\n}\n', []),  # in a string; preceded by code on its line
]


@pytest.mark.parametrize(("body", "loops"), TOP_LEVEL)
def test_top_level_loops(body, loops):
    assert [body[start:end] for start, end in top_level_loops(body)] == loops


# (text, the text of each pragma found)
PRAGMAS = [
    ("#pragma omp parallel for\nfor (;;);", ["omp parallel for"]),
    ("  #  pragma   omp parallel for private(i)\n", ["omp parallel for private(i)"]),
    ("#pragma omp parallel for \\\n   private(i) \\\n   shared(a)\nx;", ["omp parallel for private(i) shared(a)"]),
    ("#pragma omp parallel for /* comment */ private(i) // trailing\n", ["omp parallel for private(i)"]),
    ("#pragma omp /* a comment\n across lines */ for\n", ["omp for"]),
    ('_Pragma("omp parallel for reduction(+:s)") for (;;);', ["omp parallel for reduction(+:s)"]),
    ('_Pragma ( "message(\\"hi\\")" )', ['message("hi")']),  # the string is unescaped
    ('#define PAR _Pragma("omp parallel for")\n', ["omp parallel for"]),  # in a macro: still a pragma
    ('puts("#pragma omp parallel for");\n', []),  # in a string
    ("// #pragma omp parallel for\n/* #pragma omp for */\n", []),  # in comments
    ("x = 1; #pragma omp for\n", []),  # not first on its line
    ("my_Pragma(\"omp for\");\n", []),  # another identifier
]


@pytest.mark.parametrize(("text", "found"), PRAGMAS)
def test_pragmas(text, found):
    assert [p.text for p in pragmas(text)] == found


def test_pragma_span_and_line():
    text = "int x;\n#pragma omp parallel for \\\n  private(i)\nfor (;;);\n"
    (pragma,) = pragmas(text)
    assert pragma.line == 2 and text[pragma.start : pragma.end] == "#pragma omp parallel for \\\n  private(i)"


# (code, code with comments blanked and literals emptied)
STRIPPED = [
    ('a = "x//y"; // c\nb = \'"\'; /* "q" */ c = R"(//)";', 'a = "";  \nb = \' \';   c = "";'),
    ('puts("#pragma omp parallel"); MPI_Send(', 'puts(""); MPI_Send('),
    ("n = 1'000; /* } */", "n = 1'000;  "),
]


@pytest.mark.parametrize(("code", "stripped"), STRIPPED)
def test_strip_comments_and_strings(code, stripped):
    assert strip_comments_and_strings(code) == stripped


@pytest.mark.parametrize(("code", "stripped"), [
    ('s = "http://x"; // note\n/* // */ y; // z', 's = "http://x"; \n/* // */ y; '),
    ("a; // one \\\n two\nb;", "a; \nb;"),
])  # fmt: skip
def test_strip_line_comments(code, stripped):
    assert strip_line_comments(code) == stripped


# ---------------------------------------------------------------------------------------------------------
# The checks that read code through the scanner


def test_openmp_written_as_pragma_operator_counts_as_openmp():
    body = '  _Pragma("omp parallel for")\n  for (int i = 0; i < n; ++i) x[i] = 0;\n}\n'
    assert uses_exec_model("omp", body) == (True, "")
    assert uses_exec_model("omp", '  puts("#pragma omp parallel for");\n}\n')[0] is False
    assert uses_exec_model("omp", "  // #pragma omp parallel for\n}\n")[0] is False


def test_rlpf_loops_ignore_braces_in_strings_and_comments():
    from workflow_scripts.rlpf.tasks import strip_comments

    # The old loop finder counted the "{" in the string, so the second loop looked nested and was missed.
    body = '  const char* open = "{";  /* { */\n  for (int i = 0; i < n; i++) a[i] = 0;\n  for (int i = 0; i < n; i++) b[i] = 1;\n}\n'
    assert len(top_level_loops(body)) == 2
    # A `//` inside a string is not a comment: the prompt keeps the whole string.
    assert strip_comments('  puts("http://x"); // note\n  // only a comment\n}\n') == '  puts("http://x");\n}\n'


# ---------------------------------------------------------------------------------------------------------
# Hostile sizes: a scan reads each character a bounded number of times


class _CountingText(str):
    """A text that counts the characters its own searches and slices read, what the scanner costs without a
    clock (no load on the machine changes it). Counting the newlines from the start at each pragma, or searching
    back for the line's start, read a 2 MB line of `#pragma` ~10^11 times over (27 s)."""

    read = 0

    def __getitem__(self, key):
        piece = str.__getitem__(self, key)
        self.read += max(len(piece), 1)
        return piece

    def count(self, sub, start=0, end=None):
        end = len(self) if end is None else end
        self.read += max(end - start, 0)
        return str.count(self, sub, start, end)

    def find(self, sub, start=0, end=None):
        found = str.find(self, sub, start, end)
        self.read += (found + len(sub) if found >= 0 else len(self) if end is None else end) - start
        return found

    def rfind(self, sub, start=0, end=None):
        found = str.rfind(self, sub, start, end)
        self.read += (len(self) if end is None else end) - (found if found >= 0 else start)
        return found


def _one_line_pragmas(n):  # the review's body: `#pragma` repeated on one line inside `#if 0`, then a real one
    return "#if 0\nx" + "#pragma" * n + "\n#endif\n#pragma omp parallel for\n"


def _lines_of_pragmas(n):
    return "#pragma omp parallel for\n" * n


def _operator_line(n):  # one line of `_Pragma("omp parallel")`
    return '_Pragma("omp parallel") ' * n


def _comments_and_strings(n):  # pragmas and loops in comments and literals, on one line, then code
    line = "/* #pragma omp for */ \"#pragma\" 'f' for_(x); /* for (;;) { */"
    return line * n + "\n#pragma omp for\nfor (;;) x;\n"


def _loops_on_one_line(n):  # loops preceded by code on their line: none is a top-level loop
    return "x;" + " for (;;) y;" * n + "\n"


def _loops_on_lines(n):
    return "  for (int i = 0; i < n; i++) a[i] = 0;\n" * n


# (shape, its pragmas for n: [(line, text), ...] and top_level_loops for n: how many)
HOSTILE = [
    (_one_line_pragmas, lambda n: [(4, "omp parallel for")], lambda n: 0),
    (_lines_of_pragmas, lambda n: [(line, "omp parallel for") for line in range(1, n + 1)], lambda n: 0),
    (_operator_line, lambda n: [(1, "omp parallel")] * n, lambda n: 0),
    (_comments_and_strings, lambda n: [(2, "omp for")], lambda n: 1),
    (_loops_on_one_line, lambda n: [], lambda n: 0),
    (_loops_on_lines, lambda n: [], lambda n: n),
]


@pytest.mark.parametrize(("shape", "want_pragmas", "want_loops"), HOSTILE, ids=[h[0].__name__ for h in HOSTILE])
def test_scans_read_each_character_a_bounded_number_of_times(shape, want_pragmas, want_loops):
    n = 2000
    for scan in (pragmas, top_level_loops):
        small, large = _CountingText(shape(n)), _CountingText(shape(4 * n))
        assert scan(small) == scan(str(small))  # the counting text changes nothing it finds
        scan(large)
        # Linear: a 4x larger text costs about 4x as much; the quadratic scan cost ~16x (and more as n grows).
        assert large.read <= 5 * small.read, (scan.__name__, small.read, large.read)
    text = shape(n)
    assert [(p.line, p.text) for p in pragmas(text)] == want_pragmas(n)
    assert len(top_level_loops(text)) == want_loops(n)


def test_a_2mb_line_of_pragmas_is_checked_in_seconds():
    """The review's body (2 MB, 320k `#pragma` on one line inside `#if 0`) took 27 s of harness CPU in the
    OpenMP use check (13 s on the machine that wrote this test); ~0.6 s now. 6 s of CPU time (not wall time:
    other processes' load hardly counts) is a bound no loaded machine misses, and half the quadratic scan's
    time at the least; test_scans_read_each_character_a_bounded_number_of_times is the exact guard."""
    text = _one_line_pragmas(320_000)
    assert len(text) > 2_000_000
    start = time.process_time()
    used = uses_exec_model("omp", text)
    elapsed = time.process_time() - start
    assert used == (True, "")  # the real pragma after the line
    assert elapsed < 6.0, elapsed


# ---------------------------------------------------------------------------------------------------------
# Every public scan on 2 MB of the text that made a pattern rescan it from each of its starts


def _mb(piece: str, tail: str = "") -> str:
    """`piece` repeated to 2 MB, then `tail`."""
    return piece * (2_000_000 // len(piece) + 1) + tail


# (name, call): each pattern these replaced took minutes to hours on its input (quadratic time).
LINEAR_SCANS = [
    ("parallel_models: blank lines", lambda: parallel_models(_mb("\n"))),
    ("parallel_models: kernel launches never closed", lambda: parallel_models(_mb("<<<"))),
    ("has_cpp_constructs: blank lines", lambda: has_cpp_constructs(_mb("\n"))),
    ("uses_exec_model: directives that create no work", lambda: uses_exec_model("mpi+omp", _mb("#pragma omp x\n"))),
    ("scalar_declarations: no ';'", lambda: scalar_declarations(_mb("int a\n"))),
    ("scalar_declarations: spaces", lambda: scalar_declarations("int" + _mb(" ", "x"))),
    ("for_loop_indices", lambda: for_loop_indices(_mb("for (int i"))),
    ("counted_loop: spaces after the bound", lambda: counted_loop("int i = 0; i < n" + _mb(" ", "x; ++i"))),
    ("assignment_offsets", lambda: assignment_offsets(_mb("a <<= b == c != d; "))),
    ("first_loop_bound: headers never closed", lambda: first_loop_bound(_mb("for (", ";;"))),
    ("first_loop_bound: spaces in the bound", lambda: first_loop_bound("for (;i < n" + _mb(" ", "m;"))),
    ("struct_definitions: never closed", lambda: struct_definitions(_mb("struct a {"))),
    ("canonical_declaration: comments never closed", lambda: canonical_declaration(_mb("a /* b"))),
    ("omp_clauses: arguments never closed", lambda: omp_clauses(_mb("a(b "))),
    ("omp_clauses: nested too deep", lambda: omp_clauses(_mb("a((b) "))),
    ("reduction_operators: no ':'", lambda: reduction_operators(_mb("reduction("))),
    ("without_first_reduction: one line", lambda: without_first_reduction(_mb("#pragma omp parallel for "))),
    ("without_first_reduction: spaces", lambda: without_first_reduction("#pragma omp parallel for" + _mb(" "))),
    ("without_first_reduction: no ')'", lambda: without_first_reduction(_mb("#pragma omp parallel for reduction(\n"))),
    ("without_for_of_first_reduction: one line",
     lambda: without_for_of_first_reduction(_mb("#pragma omp parallel for "))),
    ("with_schedule: spaces", lambda: with_schedule("#pragma omp parallel for" + _mb(" ", "x"), " schedule(static)")),
    ("with_schedule: clauses never closed", lambda: with_schedule(_mb("#pragma omp parallel for schedule("), "")),
    ("with_one_thread: clauses never closed", lambda: with_one_thread(_mb("#pragma omp parallel num_threads("))),
    ("is_parallel_for_directive", lambda: is_parallel_for_directive(_mb("#pragma omp parallel for"), 0)),
    ("strip_comments_and_strings: quotes never closed", lambda: strip_comments_and_strings(_mb("'\"x"))),
    ("for_loops: headers on one line", lambda: for_loops(_mb("for (;;) x; "))),
    ("matching_brace_end: never closed", lambda: matching_brace_end(_mb("{ \"}\" "))),
]


@pytest.mark.parametrize("call", [c for _, c in LINEAR_SCANS], ids=[name for name, _ in LINEAR_SCANS])
def test_each_scan_of_2mb_takes_seconds_at_most(call):
    """A generous bound (CPU time, so another process's load hardly counts): each takes 2 s at most on a
    2-core laptop, and the patterns they replaced did not finish in minutes."""
    start = time.process_time()
    call()
    assert time.process_time() - start < 10.0
