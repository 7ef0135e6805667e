"""Declarations and loop headers read from C/C++ text: scalar declarations and for-loop indices (RLPF's
renamings and reduction candidates), the first loop's bound (PCGBench's off-by-one mutant), struct
definitions and a declaration's canonical spelling (ParEval-format prompts against the suite's interface).

Each is a pattern match, not a parse, and each runs in time linear in the text's length: a pattern whose tail
could run to the text's end (`[^;]+;`, `.*?\\}`) is tried only where its head matched, on a stretch that
ends where the tail must end, and a failure there that later starts would repeat stops the search.
"""

from __future__ import annotations

import re

from workflow_scripts.common.c_scanner.syntax import blank_comments

_BASIC_TYPE = r"(?:double|float|int|long long|long|unsigned|size_t|std::size_t)"
# A declaration of scalars or pointers of a basic type, at the start of a line; group 1 holds its declarators.
_SCALAR_DECLARATION = re.compile(r"^\s*(?:const\s+)?" + _BASIC_TYPE + r"\s+([^;]+);", re.M)
# Its head, found once per line: `[^\S\n]*` (not `\s*`) starts it at the line that holds the type, which is
# where every match starting at an earlier blank line would find the same declarators.
_SCALAR_DECLARATION_HEAD = re.compile(r"^[^\S\n]*(?:const\s+)?" + _BASIC_TYPE + r"\s+", re.M)
_FOR_INDEX = re.compile(r"\bfor\s*\(\s*(?:const\s+)?" + _BASIC_TYPE + r"\s+([A-Za-z_]\w*)\s*=")
_DECLARATOR_NAME = re.compile(r"\s*\*?\s*([A-Za-z_]\w*)")
# An assignment operator (=, +=, <<=, ...), not a comparison (==, !=, <=, >=).
_ASSIGNMENT = re.compile(r"(?<![=!<>+\-*/%&|^])(?:<<|>>|[-+*/%&|^])?=(?!=)")


def scalar_declarations(text: str) -> list[str]:
    """The declarator lists (`a = 0, *p`) of the lines that declare scalars or pointers of a basic type
    (`double a = 0, *p;`), in order."""
    found, pos = [], 0
    while head := _SCALAR_DECLARATION_HEAD.search(text, pos):
        semicolon = text.find(";", head.end())
        if semicolon < 0:  # every later declaration needs a ";" too
            break
        match = _SCALAR_DECLARATION.match(text, head.start(), semicolon + 1)
        if match:
            found.append(match.group(1))
            pos = match.end()
        else:
            pos = head.start() + 1
    return found


def split_declarators(declarators: str) -> list[str]:
    """The comma-separated declarators of a declaration, split only outside brackets (`a = f(x, y), b`)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(declarators):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(declarators[start:i])
            start = i + 1
    return parts + [declarators[start:]]


def declarator_name(declarator: str) -> str | None:
    """The name a declarator declares (`*p = q` -> `p`), or None."""
    match = _DECLARATOR_NAME.match(declarator)
    return match.group(1) if match else None


def for_loop_indices(text: str) -> list[str]:
    """The index variables that for-loop headers declare with a basic type (`for (int i = 0; ...)` -> `i`)."""
    return _FOR_INDEX.findall(text)


def assignment_offsets(text: str) -> list[int]:
    """Where each assignment operator (`=`, `+=`, `<<=`, ...; not `==`, `!=`, `<=`, `>=`) starts."""
    return [found.start() for found in _ASSIGNMENT.finditer(text)]


# ---------------------------------------------------------------------------------------------------------
# Loop headers and bounds

_FOR_OPEN = re.compile(r"for\s*\(")
_CONDITION_TO_BOUND = re.compile(r"\s*\w+\s*<(?![<=])")  # `i <` (not `i <<`, not `i <=`)
_SPACE = re.compile(r"\s*")


def first_loop_bound(text: str) -> tuple[int, int] | None:
    """(start, end) of the bound `n` in the first `for (...; i < n ...;` (the condition right after the first
    ";" of a `for (` compares with `<`), trailing whitespace excluded; None when no loop has one.

    The span is what `for\\s*\\([^;]*;\\s*\\w+\\s*<(?![<=])\\s*([^;]+?)\\s*;` finds as its group, without that
    pattern's rescans: every `for (` before the header's first ";" reaches the same ";", so one check there
    answers for all of them.
    """
    pos = 0
    while head := _FOR_OPEN.search(text, pos):
        semicolon = text.find(";", head.end())
        if semicolon < 0:
            return None
        condition = _CONDITION_TO_BOUND.match(text, semicolon + 1)
        if condition:
            start = _SPACE.match(text, condition.end()).end()
            end = text.find(";", start)
            if end < 0:
                return None
            if end > start:  # the bound, up to its last non-space character
                return start, start + len(text[start:end].rstrip())
            if start > condition.end():  # only spaces before the ";": the pattern's bound is the last of them
                return start - 1, start
        pos = semicolon + 1
    return None


_TYPE_WORD = re.compile(r"[\w:]+")
_WORD = re.compile(r"\w+")


def _between_spaces(text: str) -> str:
    r"""What `\s*([^;]+?)\s*` reads from text: text without its surrounding whitespace; its last character when
    it is all whitespace (the first `\s*` gives one back); "" (no match) when it is empty."""
    return text.strip() or text[-1:]


def counted_loop(header: str) -> dict[str, str] | None:
    r"""{"var", "lo", "hi"} of a canonical counted loop header `T v = lo; v < hi; ++v` (or `v++`; T one or more
    words such as `const std::size_t`), or None.

    What `^\s*(?:const\s+)?[\w:]+(?:\s+[\w:]+)*\s+(?P<var>\w+)\s*=\s*(?P<lo>[^;]+);\s*(?P=var)\s*<\s*(?P<hi>[^;]+?)\s*;`
    then `\s*(?:\+\+\s*(?P=var)|(?P=var)\s*\+\+)\s*$` matches, read part by part: that pattern's lazy bound
    rescanned the spaces after it from each of them (a bound followed by 2 MB of spaces: an hour).
    """
    parts = header.split(";")
    if len(parts) != 3 or "=" not in parts[0]:
        return None
    declaration, lo = parts[0].split("=", 1)
    words = declaration.split()
    if len(words) < 2 or not all(_TYPE_WORD.fullmatch(w) for w in words) or not _WORD.fullmatch(words[-1]):
        return None
    var = words[-1]
    lo = lo.lstrip() or lo[-1:]  # the pattern's lo runs to the ";", trailing spaces included
    condition = parts[1].lstrip()
    if not lo or not condition.startswith(var) or not condition[len(var) :].lstrip().startswith("<"):
        return None
    hi = _between_spaces(condition[len(var) :].lstrip()[1:])
    step = re.fullmatch(rf"\s*(?:\+\+\s*{re.escape(var)}|{re.escape(var)}\s*\+\+)\s*", parts[2])
    return {"var": var, "lo": lo, "hi": hi} if hi and step else None


# ---------------------------------------------------------------------------------------------------------
# Struct definitions and canonical declarations

_STRUCT_HEAD = re.compile(r"\b(?:struct|class)\s+(\w+)\s*\{")
_STRUCT_END = re.compile(r"\}\s*;")
_PUNCT_SPACE = re.compile(r"\s*([()<>,*&:;{}\[\]=])\s*")


def struct_definitions(code: str) -> list[tuple[str, str]]:
    """(name, body) of each `struct` or `class` definition outside comments, in order; a body ends at the
    first `};` (so a nested definition cuts it short, as in the pattern ParEval's prompts were read with)."""
    text, found, pos = blank_comments(code), [], 0
    while head := _STRUCT_HEAD.search(text, pos):
        end = _STRUCT_END.search(text, head.end())
        if end is None:  # every later definition needs a `};` too
            break
        found.append((head.group(1), text[head.end() : end.start()]))
        pos = end.end()
    return found


def canonical_declaration(declaration: str) -> str:
    """A declaration with comments dropped and whitespace normalised (none around punctuation)."""
    text = " ".join(blank_comments(declaration).split())
    return _PUNCT_SPACE.sub(r"\1", text).strip()
