"""What every backend returns for one sample, and the instruction given to chat models."""

from __future__ import annotations

from dataclasses import dataclass

# ParEval's instruction for chat models; the prompt (ending in the signature's "{") follows it in a code block.
DEFAULT_CHAT_INSTRUCTION = (
    "Complete the C++ function below. Write only the body of the function, up to and including its "
    "closing brace, in one ```cpp code block."
)


@dataclass(kw_only=True)
class Completion:
    text: str  # generated text, cut before the first stop string (OpenAI semantics)
    finish_reason: str  # "stop" (stop string or end-of-sequence token) or "length" (token limit)
    stop_reason: str | None  # the stop string that ended it, if one did (vLLM's field; None if unknown)
    new_tokens: int  # tokens generated (including the stop string's tokens)


def chat_message(instruction: str, prompt: str) -> str:
    """The user message for chat models: the instruction, then the prompt in a C++ code block."""
    return f"{instruction}\n\n```cpp\n{prompt}\n```"


def chat_answer_prefix(prompt: str) -> str:
    """The start of a chat model's answer with `chat_prefill`: the code block the instruction asks for, opened
    with the prompt's signature (the text after its last comment), so that the model's next tokens are the
    function body. Only the signature: the whole prompt again would double the tokens the model must read,
    which on a CPU costs more than the answer itself."""
    _, comment_end, signature = prompt.rpartition("*/")
    return "```cpp\n" + (signature.lstrip("\n") if comment_end else prompt)
