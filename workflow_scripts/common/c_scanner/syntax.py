"""Comments, literals, brackets, statements, loops and pragmas: the structure of C/C++ text, found without a
C++ front end.

What it knows: comments (`//`, `/* */`), string literals (escapes, prefixes, raw strings `R"d(...)d"`) and
character literals (not digit separators: `1'000`) hold no code, so a brace, quote, `for` or `#pragma` inside
them does not count. On top of that: matching brackets, the end of a statement (blocks, `for`/`while`/`if`
/`else`/`switch` with braced or unbraced bodies, preprocessor lines), every `for` loop, the top-level loops of a
function body, a function body up to its closing brace, and pragma directives (`#pragma` lines with their
backslash continuations and comments, and the `_Pragma("...")` operator).

    from workflow_scripts.common.c_scanner import for_loops, statement_end
    loops = for_loops(code)  # [ForLoop(start, header_start, header_end, end), ...]
"""

from __future__ import annotations

import re
from typing import NamedTuple

OPENING = {"(": ")", "[": "]", "{": "}"}
_FOR = re.compile(r"for\s*\(")
_STATEMENT_KEYWORD = re.compile(r"(for|while|if|switch)\s*\(")
_ELSE = re.compile(r"else\b")
# A raw string's opening: an optional encoding prefix, R, a quote, a delimiter of up to 16 characters, "(".
_RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^()\\\s"]{0,16})\(')
_CONTINUATION = re.compile(r"\\[ \t]*\n")
_PRAGMA_HASH = re.compile(r"#[ \t]*pragma\b")
_PRAGMA_OPERATOR = re.compile(r'_Pragma\s*\(\s*(?:u8|u|U|L)?"((?:\\.|[^"\\\n])*)"\s*\)')
# Where a comment or literal (skip_comment_or_literal), a directive or `_Pragma` can start: pragmas() steps
# from one to the next, not through every character, and finds the same (a 2 MB line of `#pragma` in a third
# of the time).
_PRAGMA_CANDIDATE = re.compile(r"""[/"'uULR#_]""")
_SPACES = re.compile(r"\s*")  # what str.strip() strips: \s and str.isspace() agree on every code point


def _is_identifier_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _starts_word(text: str, i: int) -> bool:
    """Whether text[i] begins a word (`for` in `before` or `x_for` is not a keyword)."""
    return i == 0 or not _is_identifier_char(text[i - 1])


class _Lines:
    """The line of an offset, its line's start, and whether only whitespace precedes it on its line, for
    offsets asked in increasing order, in time linear in the text's length.

    Counting the newlines from the text's start, or searching back for the last one, at each pragma or loop
    made a scan quadratic on hostile input (a 2 MB body of `#pragma` on one line took 27 s): this reads each
    stretch of text once, from the last offset asked.
    """

    def __init__(self, text: str) -> None:
        self.text, self.read, self.line, self.start = text, 0, 1, 0
        self._first_code: int | None = None  # offset of the first non-space at or after `start`, once found

    def advance(self, i: int) -> None:
        """Move to offset i (not before the last one): `line` and `start` become i's."""
        newlines = self.text.count("\n", self.read, i)
        if newlines:
            self.line += newlines
            self.start = self.text.rfind("\n", self.read, i) + 1
            self._first_code = None
        self.read = i

    def first_on_line(self, i: int) -> bool:
        """Whether text[i] (not whitespace) has only whitespace before it on its line (comments count as
        code: a directive after `/* */` is not first on its line)."""
        self.advance(i)
        if self._first_code is None:  # found once per line: it stops at the first non-space, at i at most
            self._first_code = _SPACES.match(self.text, self.start).end()
        return self._first_code >= i


# ---------------------------------------------------------------------------------------------------------
# Comments and literals: the text that holds no code


def _line_end(text: str, i: int) -> int:
    """Offset of the first newline at or after i that no backslash (then spaces or tabs) continues."""
    newline = text.find("\n", i)
    while newline >= 0 and text[i:newline].rstrip(" \t").endswith("\\"):
        i = newline + 1
        newline = text.find("\n", i)
    return len(text) if newline < 0 else newline


def skip_comment_or_literal(text: str, i: int) -> int:
    """Index just past the comment, string or character literal that starts at i; i itself when none does.

    A `//` comment ends at its newline (the newline is code: it ends a preprocessor line), unless a backslash
    continues the line (the compiler joins such lines before it looks for comments). A string or character
    literal that is not closed on its line ends at the newline, so one stray quote (in prose, in truncated
    model output) cannot swallow the rest of the file.
    """
    ch = text[i]
    if ch == "/" and text.startswith("//", i):
        return _line_end(text, i)
    if ch == "/" and text.startswith("/*", i):
        close = text.find("*/", i + 2)
        return len(text) if close < 0 else close + 2
    if ch in "uUL" or ch == "R":
        raw = _RAW_STRING.match(text, i) if _starts_word(text, i) else None
        if raw:  # no escapes inside: it ends at the first )delim"
            close = text.find(")" + raw.group(1) + '"', raw.end())
            return len(text) if close < 0 else close + len(raw.group(1)) + 2
        return i
    if ch in "\"'":
        # A quote between digits is a digit separator (C++14 `1'000'000`), not a character literal.
        if ch == "'" and i > 0 and text[i - 1].isdigit() and i + 1 < len(text) and text[i + 1].isdigit():
            return i
        j = i + 1
        while j < len(text) and text[j] != ch and text[j] != "\n":
            j += 2 if text[j] == "\\" else 1
        return j + 1 if j < len(text) and text[j] == ch else min(j, len(text))
    return i


def skip_space_and_comments(text: str, i: int) -> int:
    """Index of the first character at or after i that is neither whitespace nor inside a comment."""
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i) or text.startswith("/*", i):
            i = skip_comment_or_literal(text, i)
        else:
            return i
    return i


def _rewrite_skipped(code: str, replace) -> str:
    """`code` with each comment and literal span handed to `replace(span)`: its return value stands in the
    span's place (None keeps the span). The one walk behind the three views below."""
    out, last, i = [], 0, 0
    while i < len(code):
        end = skip_comment_or_literal(code, i)
        if end == i:
            i += 1
            continue
        replacement = replace(code[i:end])
        if replacement is not None:
            out.append(code[last:i] + replacement)
            last = end
        i = end
    out.append(code[last:])
    return "".join(out)


def strip_comments_and_strings(code: str) -> str:
    """`code` with each comment replaced by a space and each literal emptied (`""`, `' '`), so that a
    `#pragma omp` or an `MPI_Send(` in a string or comment is not mistaken for code."""
    return _rewrite_skipped(code, lambda span: " " if span[0] == "/" else "' '" if span[0] == "'" else '""')


def strip_line_comments(code: str) -> str:
    """`code` without its `//` comments (newlines kept); a `//` inside a string or a block comment stays."""
    return _rewrite_skipped(code, lambda span: "" if span.startswith("//") else None)


def blank_comments(code: str) -> str:
    """`code` with each comment replaced by a space, literals kept (a pragma's `message("...")` stays)."""
    return _rewrite_skipped(code, lambda span: " " if span[0] == "/" else None)


# ---------------------------------------------------------------------------------------------------------
# Brackets and statements


def _code_offsets(text: str, i: int = 0):
    """The offsets from i on that hold code (not a comment or literal), in increasing order."""
    while i < len(text):
        skipped = skip_comment_or_literal(text, i)
        if skipped != i:
            i = skipped
            continue
        yield i
        i += 1


# The alternative tokens for brackets, which the compiler reads as the brackets themselves (a body may close with
# `%>`). `<::` not followed by `:` or `>` is `<` then `::` (C++11 [lex.pptoken]: `vector<::T>`). Trigraphs (`??<`)
# are not read: C++17, which the harness compiles, removed them, so they are not brackets there either.
DIGRAPHS = {"<%": "{", "%>": "}", "<:": "[", ":>": "]"}


def _brackets(text: str, i: int = 0):
    """(offset, bracket, offset past it) of each bracket in code from i on, a digraph read as the bracket it spells."""
    past = i
    for j in _code_offsets(text, i):
        if j < past:
            continue  # the second character of a digraph
        pair = text[j : j + 2]
        if pair in DIGRAPHS and not (pair == "<:" and text[j + 2 : j + 3] == ":" and text[j + 3 : j + 4] not in ":>"):
            past = j + 2
            yield j, DIGRAPHS[pair], past
        elif text[j] in "()[]{}":
            past = j + 1
            yield j, text[j], past


def matching_close(text: str, i: int) -> int:
    """text[i] is "(", "[" or "{" (or a digraph of one): the index just past its matching closing bracket.

    Raises ValueError when the brackets are unbalanced or mismatched (`(]`): the caller's code is not what it
    expected, and guessing a loop's end would edit or cut the wrong text.
    """
    stack = []
    for j, ch, past in _brackets(text, i):
        if ch in OPENING:
            stack.append(OPENING[ch])
        else:
            if not stack or stack.pop() != ch:
                raise ValueError(f"unbalanced {ch!r} at offset {j}")
            if not stack:
                return past
    raise ValueError(f"unclosed {text[i]!r} at offset {i}")


def matching_brace_end(text: str, depth: int = 1) -> int | None:
    """Index just past the "}" (or `%>`) that brings the brace depth from `depth` to 0, or None if it never does.

    Only braces count: a completion cut short may leave a parenthesis open, and its body still ends at a "}".
    """
    for _, ch, past in _brackets(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return past
    return None


def function_body(text: str) -> str | None:
    """The function body in `text`, which starts right after the function's "{": up to and including its
    closing "}", or None when the braces never close."""
    end = matching_brace_end(text)
    return None if end is None else text[:end]


def preprocessor_line_end(text: str, i: int) -> int:
    """text[i] is "#": the index just past the directive's newline (backslash-newline continues it, and so does
    a block comment that spans lines: comments become spaces before directives are read)."""
    j = i
    while j < len(text):
        continued = _CONTINUATION.match(text, j)
        if continued:
            j = continued.end()
            continue
        skipped = skip_comment_or_literal(text, j)
        if skipped != j:
            j = skipped
            continue
        if text[j] == "\n":
            return j + 1
        j += 1
    return len(text)


def statement_end(text: str, i: int) -> int:
    """Index just past the statement that starts at (or after whitespace and comments from) i.

    A block ends at its "}", a preprocessor line at its newline, `for`/`while`/`switch (...) S` after S,
    `if (...) S else T` after T, and any other statement at its ";" outside brackets.
    """
    i = skip_space_and_comments(text, i)
    if text.startswith("{", i):
        return matching_close(text, i)
    if text.startswith("#", i):
        return preprocessor_line_end(text, i)
    keyword = _STATEMENT_KEYWORD.match(text, i)
    if keyword:
        after = statement_end(text, matching_close(text, keyword.end() - 1))
        if keyword.group(1) == "if":
            rest = skip_space_and_comments(text, after)
            if _ELSE.match(text, rest):
                return statement_end(text, rest + 4)
        return after
    j = i
    while j < len(text):
        skipped = skip_comment_or_literal(text, j)
        if skipped != j:
            j = skipped
        elif text[j] in OPENING:
            j = matching_close(text, j)
        elif text[j] == ";":
            return j + 1
        else:
            j += 1
    raise ValueError(f"statement at offset {i} has no ';'")


# ---------------------------------------------------------------------------------------------------------
# Loops


class ForLoop(NamedTuple):
    start: int  # offset of `for`
    header_start: int  # just after the header's "("
    header_end: int  # offset of the header's ")"
    end: int  # just past the loop's body


def for_loops(text: str) -> list[ForLoop]:
    """Every `for` statement in `text`, nested ones included, in order of their start."""
    loops = []
    for i in _code_offsets(text):
        match = _FOR.match(text, i) if text[i] == "f" and _starts_word(text, i) else None
        if match:
            paren = match.end() - 1
            header_end = matching_close(text, paren) - 1
            loops.append(ForLoop(i, paren + 1, header_end, statement_end(text, header_end + 1)))
    return loops


def top_level_loops(body: str) -> list[tuple[int, int]]:
    """(line start, loop end) of each `for` at a function body's top level that begins its own line.

    `body` starts after the signature's "{" (depth 0 is the function body). Loops nested in another
    statement or preceded by code on their line (`if (...) for`) are not candidates for a pragma.
    """
    loops, depth, i, lines = [], 0, 0, _Lines(body)
    while i < len(body):
        skipped = skip_comment_or_literal(body, i)
        if skipped != i:
            i = skipped
            continue
        ch = body[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and ch == "f" and _starts_word(body, i) and (m := _FOR.match(body, i)):
            first_on_line = lines.first_on_line(i)
            end = statement_end(body, matching_close(body, m.end() - 1))
            if first_on_line:
                loops.append((lines.start, end))
            i = end
            continue
        i += 1
    return loops


# ---------------------------------------------------------------------------------------------------------
# Pragmas


class Pragma(NamedTuple):
    start: int  # offset of its "#" (a directive) or of `_Pragma` (the operator)
    end: int  # a directive: its newline's offset (or the text's end); the operator: just past its ")"
    line: int  # 1-based line of start
    text: str  # what follows `pragma`, on one line: continuations joined, comments dropped, spaces collapsed


def _pragma_text(directive: str) -> str:
    return " ".join(blank_comments(_CONTINUATION.sub(" ", directive)).split())


def pragmas(text: str) -> list[Pragma]:
    """Every pragma in `text`, in order: `#pragma ...` lines (the "#" first on its line) and `_Pragma("...")`
    operators (whose string, unescaped, is the directive; OpenMP code in macros is written this way)."""
    found, i, lines = [], 0, _Lines(text)
    while i < len(text):
        skipped = skip_comment_or_literal(text, i)
        if skipped != i:
            i = skipped
            continue
        hash_ = _PRAGMA_HASH.match(text, i) if text[i] == "#" else None
        if hash_ and lines.first_on_line(i):
            end = preprocessor_line_end(text, i)
            line_end = end - 1 if text[end - 1 : end] == "\n" else end
            found.append(Pragma(i, line_end, lines.line, _pragma_text(text[hash_.end() : line_end])))
            i = end
            continue
        if text[i] == "_" and _starts_word(text, i) and (operator := _PRAGMA_OPERATOR.match(text, i)):
            directive = re.sub(r"\\(.)", r"\1", operator.group(1))
            lines.advance(i)
            found.append(Pragma(i, operator.end(), lines.line, " ".join(directive.split())))
            i = operator.end()
            continue
        candidate = _PRAGMA_CANDIDATE.search(text, i + 1)
        i = candidate.start() if candidate else len(text)
    return found
