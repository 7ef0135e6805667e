"""Performance-relevant source edits of C++ kernel bodies, for the performance-change dataset (perfchange.py).

Each edit is a pure function `(body, signature) -> body` that returns the body unchanged when it does not
apply, or when it cannot show that the edit keeps the kernel's result (the harness validates every edited
version anyway; a version that fails is dropped and counted). The edits:

  loop order
    - loop_interchange: swap the headers of a perfectly nested, rectangular loop pair whose body writes
      only its own element `a[i * W + j]` (j < W) and locals: every iteration touches a different element,
      so the order does not change the result; row-major code becomes column-major (or the reverse).
  data layout
    - transposed_layout: a read-only row-major matrix argument `x` (every use is `x[r * W + c]`) is copied
      into a column-major `x_t` first and read as `x_t[c * rows + r]`: the same values, strided accesses
      and one extra pass over the data.
  algorithmic
    - selection_to_sort: `std::nth_element` / `std::partial_sort` (O(n) / O(n log k)) replaced by a full
      `std::sort` (O(n log n)): the element at the selected position is the same.
    - early_exit_removed: `for (...) if (cond) return value;` keeps scanning to the end and returns the
      first hit afterwards: best case O(1) becomes always O(n).

Loops, statements and brackets come from the project's C/C++ scanner (common/c_scanner/), which skips
comments and literals; it is not a C++ front end, and the edits are written for these kernels.
"""

import re

from workflow_scripts.common.c_scanner import (
    assignment_offsets,
    counted_loop,
    for_loops,
    matching_close,
    skip_space_and_comments,
    statement_end,
)

LOOP_EDITS = ("loop_interchange",)
LAYOUT_EDITS = ("transposed_layout",)
ALGORITHMIC_EDITS = ("selection_to_sort", "early_exit_removed")
SOURCE_EDITS = LOOP_EDITS + LAYOUT_EDITS + ALGORITHMIC_EDITS

# Calls a loop body may make without writing memory (anything else might, so it blocks the interchange).
_PURE_CALLS = {"std::min", "std::max", "std::abs", "std::fabs", "std::sqrt", "std::exp", "std::log", "std::sin",
               "std::cos", "std::pow", "min", "max", "abs", "fabs", "sqrt", "exp", "log", "sin", "cos", "pow"}
_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "static_cast", "const_cast", "reinterpret_cast"}


def _unbrace(statement: str) -> str:
    """A block's single inner statement (the text itself when it is not a block of exactly one statement)."""
    stripped = statement.strip()
    if stripped.startswith("{") and matching_close(stripped, 0) == len(stripped):
        inner = stripped[1:-1].strip()
        if inner and statement_end(inner, 0) == len(inner):
            return inner
    return stripped


def _identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", text))


def _subscripts(text: str, name: str) -> list[tuple[int, int, str]] | None:
    """(start, end, index text) of every `name[index]` in text; None when name is used any other way."""
    found = []
    for match in re.finditer(rf"(?<![\w.]){re.escape(name)}\b", text):
        j = skip_space_and_comments(text, match.end())
        if not text.startswith("[", j):
            return None
        end = matching_close(text, j)
        found.append((match.start(), end, text[j + 1 : end - 1]))
    return found


def _row_major(index: str) -> tuple[str, str, str] | None:
    """(row, width, column) when index reads `row * width + column` with one top-level `*` and `+`."""
    depth, plus = 0, []
    for k, ch in enumerate(index):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in "+-" and k and index[k - 1] not in "+-":
            plus.append((k, ch))
    if len(plus) != 1 or plus[0][1] != "+":
        return None
    left, column = index[: plus[0][0]].strip(), index[plus[0][0] + 1 :].strip()
    times = re.fullmatch(r"(\(.*\)|\w+)\s*\*\s*(\w+)", left)
    if not times or not re.fullmatch(r"\(.*\)|\w+", column):
        return None
    return times.group(1), times.group(2), column


# ---------------------------------------------------------------------------------------------------------
# loop order


def _interchange_is_legal(outer: dict[str, str], inner: dict[str, str], body: str) -> bool:
    i, j = outer["var"], inner["var"]
    if {i, j} & (_identifiers(inner["lo"]) | _identifiers(inner["hi"]) | _identifiers(outer["lo"]) | _identifiers(outer["hi"])):
        return False  # not rectangular
    if re.search(r"\b(for|while|do|return|break|continue|goto)\b|\+\+|--", body):
        return False
    for call in re.finditer(r"([\w:]+)\s*\(", body):
        if call.group(1) not in _PURE_CALLS and call.group(1) not in _KEYWORDS:
            return False
    written = set()
    for assign in assignment_offsets(body):
        before = body[:assign].rstrip()
        if before.endswith("]"):
            name = re.search(r"(\w+)\s*\[[^\[\]]*\]$", before)
            if not name:
                return False
            written.add(name.group(1))
        else:
            name = re.search(r"(\w+)$", before)
            # A scalar may be written only where it is declared in the body (a local of one iteration).
            if not name or not re.search(rf"[\w:>]\s+{name.group(1)}\s*$", before):
                return False
    bounds = {i: outer["hi"].strip(), j: inner["hi"].strip()}
    for name in written:
        uses = _subscripts(body, name)
        if not uses or len({index.replace(" ", "") for _, _, index in uses}) != 1:
            return False  # read elsewhere than its own element
        parts = _row_major(uses[0][2])
        # row * width + column with column < width (its loop's bound): one element per iteration.
        if not parts or {parts[0], parts[2]} != {i, j} or bounds[parts[2]] != parts[1]:
            return False
    return bool(written)


def loop_interchange(body: str, signature: str = "") -> str:
    """Swap the headers of the first perfectly nested, rectangular loop pair where that is legal."""
    for _, h1_start, h1_end, end in for_loops(body):
        outer_body = body[h1_end + 1 : end]
        inner_text = _unbrace(outer_body)
        if not inner_text.startswith("for"):
            continue
        inner_offset = body.index(inner_text, h1_end + 1)
        _, h2_start, h2_end, inner_end = for_loops(inner_text)[0]
        outer, inner = counted_loop(body[h1_start:h1_end]), counted_loop(inner_text[h2_start:h2_end])
        if not outer or not inner or inner_end != len(inner_text):
            continue
        if not _interchange_is_legal(outer, inner, inner_text[h2_end + 1 :]):
            continue
        h2_start, h2_end = h2_start + inner_offset, h2_end + inner_offset
        return body[:h1_start] + body[h2_start:h2_end] + body[h1_end:h2_start] + body[h1_start:h1_end] + body[h2_end:]
    return body


# ---------------------------------------------------------------------------------------------------------
# data layout


def _vector_inputs(signature: str) -> list[tuple[str, str]]:
    """(element type, name) of the read-only `std::vector<T> const& name` (or `const std::vector<T>&`) arguments."""
    found = re.findall(r"(?:const\s+)?std::vector<\s*([\w:]+)\s*>\s*(const\s*)?&\s*(\w+)", signature)
    return [(element, name) for element, const_after, name in found
            if const_after or re.search(rf"const\s+std::vector<\s*{re.escape(element)}\s*>\s*&\s*{name}\b", signature)]


def transposed_layout(body: str, signature: str) -> str:
    """Store the first row-major read-only matrix argument column-major (a transposed copy) and read that."""
    for element_type, name in _vector_inputs(signature):
        uses = _subscripts(body, name)
        if not uses:
            continue
        parts = [_row_major(index) for _, _, index in uses]
        widths = {p[1] for p in parts if p}
        if None in parts or len(widths) != 1:
            continue
        width, copy, rows = widths.pop(), f"{name}_t", f"{name}_rows"
        edited = body
        for (begin, end, _), (row, _, column) in sorted(zip(uses, parts, strict=True), reverse=True):
            edited = edited[:begin] + f"{copy}[{column} * {rows} + {row}]" + edited[end:]
        parallel = "  #pragma omp parallel for\n" if "#pragma omp" in body else ""
        prologue = (f"  // {name} stored column-major: a transposed copy, read with stride {rows}.\n"
                    f"  const size_t {rows} = {name}.size() / {width};\n"
                    f"  std::vector<{element_type}> {copy}({name}.size());\n"
                    f"{parallel}"
                    f"  for (size_t r = 0; r < {rows}; ++r)\n"
                    f"    for (size_t c = 0; c < {width}; ++c) {copy}[c * {rows} + r] = {name}[r * {width} + c];\n")  # fmt: skip
        return prologue + edited
    return body


# ---------------------------------------------------------------------------------------------------------
# algorithmic


def selection_to_sort(body: str, signature: str = "") -> str:
    """std::nth_element(b, m, e[, less]) and std::partial_sort(b, m, e[, less]) become std::sort(b, e[, less])."""
    out, last = [], 0
    for match in re.finditer(r"std::(nth_element|partial_sort)\s*\(", body):
        end = matching_close(body, match.end() - 1)
        args = _split_arguments(body[match.end() : end - 1])
        if len(args) not in (3, 4):
            continue
        out.append(body[last : match.start()] + "std::sort(" + ", ".join([args[0], *args[2:]]) + ")")
        last = end
    return "".join(out) + body[last:]


def _split_arguments(text: str) -> list[str]:
    args, depth, current = [], 0, ""
    for ch in text:
        depth += 1 if ch in "([{<" else -1 if ch in ")]}>" else 0
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    return args + [current.strip()]


def _return_type(signature: str) -> str:
    return signature.split("(", 1)[0].rsplit(None, 1)[0].strip()


def early_exit_removed(body: str, signature: str) -> str:
    """`for (h) if (c) return v;` scans the whole range and returns the first hit after the loop."""
    for start, _, header_end, end in for_loops(body):
        statement = _unbrace(body[header_end + 1 : end])
        hit = re.fullmatch(r"if\s*(\(.*\))\s*return\s+([^;]+);", statement, flags=re.DOTALL)
        if not hit or matching_close(statement, statement.index("(")) != statement.index("(") + len(hit.group(1)):
            continue
        indent = body[body.rfind("\n", 0, start) + 1 : start]
        found, first = "first_found", "first_value"
        replacement = (f"bool {found} = false;\n{indent}{_return_type(signature)} {first}{{}};\n"
                       f"{indent}{body[start : header_end + 1]}\n"
                       f"{indent}  if (!{found} && {hit.group(1)}) {{ {found} = true; {first} = {hit.group(2)}; }}\n"
                       f"{indent}if ({found}) return {first};")  # fmt: skip
        return body[:start] + replacement + body[end:]
    return body


EDIT_FUNCTIONS = {
    "loop_interchange": loop_interchange,
    "transposed_layout": transposed_layout,
    "selection_to_sort": selection_to_sort,
    "early_exit_removed": early_exit_removed,
}
