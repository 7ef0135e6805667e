"""Extract the function body from what a model wrote after a ParEval-style prompt.

A PCGBench prompt is C++ text ending in a function signature's opening "{". The harness compiles
`prompt + body`, so the body must be the code *after* that "{" up to and including the function's
closing "}" -- nothing more. Models write more, or other things:

- a plain continuation that runs past the function (a second function, `int main`, prose);
- a chat answer: prose, then a ```cpp fenced block holding the whole function (signature repeated);
- a repeat of the prompt's signature (or the whole prompt) before the body;
- a body cut short by the token limit (left unbalanced: it then fails to build, which is the honest
  verdict; nothing is invented to close it).

`extract_body(prompt, completion)` handles all of these. Braces are matched by the project's C/C++ scanner
(common/c_scanner/), which skips string and character literals and comments (a "}" inside a string must not
end the body).

    from workflow_scripts.generate.extract import extract_body
    body = extract_body(prompt, completion)
"""

from __future__ import annotations

import logging
import re

from workflow_scripts.common.c_scanner import function_body, matching_brace_end, matching_close

logger = logging.getLogger(__name__)

# ```cpp, ```c++, ```C++, ```cuda, ``` ... : an opening fence with an optional language tag.
_FENCE_OPEN = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_+#.-]*)[ \t]*$", re.MULTILINE)
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*$", re.MULTILINE)


def _signature(prompt: str) -> str:
    """The prompt's last declaration before its final "{": the function signature, whitespace-normalised."""
    head = prompt.rstrip()
    if head.endswith("{"):
        head = head[:-1]
    # The signature starts after the last statement/comment boundary before it.
    start = max(head.rfind(marker) + len(marker) if marker in head else 0 for marker in (";", "}", "*/", "\n\n"))
    lines = [line for line in head[start:].splitlines() if line.strip() and not line.strip().startswith("//")]
    return " ".join(" ".join(lines).split())


def _function_name(signature: str) -> str | None:
    match = re.search(r"([A-Za-z_][A-Za-z0-9_:]*)\s*\(", signature)
    return match.group(1).split("::")[-1] if match else None


def _fenced_blocks(text: str) -> list[str]:
    """Contents of ``` fenced blocks, in order; an unclosed last fence runs to the end of the text."""
    blocks, pos = [], 0
    while True:
        opening = _FENCE_OPEN.search(text, pos)
        if not opening:
            return blocks
        start = opening.end() + 1
        closing = _FENCE_CLOSE.search(text, start)
        blocks.append(text[start : closing.start()] if closing else text[start:])
        if not closing:
            return blocks
        pos = closing.end()


def _after_repeated_signature(code: str, signature: str, *, strict: bool) -> str | None:
    """If `code` restates the function (its name, a parameter list, then "{"), the text after that "{".

    A restatement is a definition, not a call: nothing but a type may precede the name on its line
    (`return f(x)` and `y = f(x)` are recursive calls in a body). With `strict` (unfenced text), no
    statement may come before it either, so that a body which later defines a helper is not cut.
    """
    name = _function_name(signature)
    if not name:
        return None
    for match in re.finditer(rf"\b{re.escape(name)}\s*\(", code):
        line_start = code.rfind("\n", 0, match.start()) + 1
        line_prefix = code[line_start : match.start()]
        if re.search(r"\breturn\b|[=(,;{}]", line_prefix):
            continue
        if strict and re.search(r"[;{}]", code[: match.start()]):
            return None
        # The definition's "{" is the first one after the parameter list closes.
        try:
            i = matching_close(code, match.end() - 1) - 1
        except ValueError:  # the parameter list never closes: not a definition
            continue
        brace = code.find("{", i)
        between = code[i + 1 : brace] if brace >= 0 else ";"
        # Only qualifiers may sit between ")" and "{" in a definition (const, noexcept, override, ...).
        if re.fullmatch(r"[\sA-Za-z_]*", between):
            return code[brace + 1 :]
    return None


def _cut_body(text: str) -> str:
    """The body from `text` (which starts right after the function's "{"): up to its closing "}"."""
    body = function_body(text)
    if body is None:
        return text.rstrip() + "\n"
    return body + "\n"  # the suite's bodies end in "}\n" too


def extract_body(prompt: str, completion: str) -> str:
    """The function body (ending in its closing "}") from a completion of `prompt`.

    Order of attempts, most specific first:
    1. the completion repeats the whole prompt: drop that prefix;
    2. a fenced code block: use the first block that restates the function, else the first block;
    3. the completion restates the signature (unfenced): take what follows its "{";
    4. otherwise the completion is a plain continuation of the prompt.
    The result runs up to the brace that closes the function; trailing code and prose are dropped.
    """
    signature = _signature(prompt)
    text = completion
    if prompt.strip() and text.lstrip().startswith(prompt.strip()):
        text = text.lstrip()[len(prompt.strip()) :]
    blocks = _fenced_blocks(text)
    if blocks:
        for block in blocks:
            body = _after_repeated_signature(block, signature, strict=False)
            if body is not None:
                return _cut_body(body)
        # A fence with no signature holds the body alone. When its own braces balance, the model left the
        # function's closing "}" implicit (it is outside the fence): add it back.
        block = blocks[0]
        if matching_brace_end(block) is None and matching_brace_end(block + "\n}") == len(block) + 2:
            return block.rstrip() + "\n}\n"
        return _cut_body(block)
    body = _after_repeated_signature(text, signature, strict=True)
    return _cut_body(body if body is not None else text)

