"""The dense copy of a GGUF model (workflow_scripts/common/model_source.py): written on the first load, read by
every later one, rewritten when its stamp does not match, and skipped where the GGUF's folder is read-only.

The real SmolLM2 file is not in CI, so the tests write a tiny llama GGUF (one layer, a 260-token byte-level BPE
vocabulary, Q8_0 matrices) with the `gguf` package, and compare with transformers' direct load of that file.
"""

import errno
import logging
import os
from functools import cache
from pathlib import Path

import pytest
import torch
import transformers

from workflow_scripts.common import model_source
from workflow_scripts.common.io import read_json, sha256_file, write_json
from workflow_scripts.common.model_source import (
    DENSE_STAMP,
    LocalModel,
    dense_folder,
    load_causal_lm,
    load_sequence_scorer,
    load_tokenizer,
)

GGUF_NAME = "tiny.Q8_0.gguf"
TEXTS = ["the theta", "  the\tthe x\n", "ünï 日本 🤖"]


@cache
def tiny_gguf_bytes(seed: int) -> bytes:
    """A tiny llama GGUF transformers loads as it does SmolLM2: config, tokenizer and weights from the file."""
    import tempfile

    import gguf
    import numpy as np
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    rng = np.random.default_rng(seed)
    hidden, ffn, heads = 64, 64, 2  # Q8_0 packs rows in blocks of 32
    tokens = [*bytes_to_unicode().values(), "Ġt", "he", "Ġthe", "<|endoftext|>"]  # GPT-2's bytes, 3 merges
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / GGUF_NAME
        writer = gguf.GGUFWriter(str(path), "llama")
        writer.add_context_length(128)
        writer.add_embedding_length(hidden)
        writer.add_block_count(1)
        writer.add_feed_forward_length(ffn)
        writer.add_head_count(heads)
        writer.add_head_count_kv(heads)
        writer.add_rope_dimension_count(hidden // heads)
        writer.add_layer_norm_rms_eps(1e-5)
        writer.add_rope_freq_base(10000.0)
        writer.add_vocab_size(len(tokens))
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre("gpt-2")
        writer.add_token_list(tokens)
        writer.add_token_merges(["Ġ t", "h e", "Ġt he"])
        writer.add_bos_token_id(len(tokens) - 1)
        writer.add_eos_token_id(len(tokens) - 1)  # no pad token: load_tokenizer's fallback applies
        shapes = {"token_embd.weight": (len(tokens), hidden), "output_norm.weight": (hidden,),
                  "blk.0.attn_norm.weight": (hidden,), "blk.0.ffn_norm.weight": (hidden,),
                  "blk.0.ffn_gate.weight": (ffn, hidden), "blk.0.ffn_up.weight": (ffn, hidden),
                  "blk.0.ffn_down.weight": (hidden, ffn),
                  **{f"blk.0.{name}.weight": (hidden, hidden) for name in ("attn_q", "attn_k", "attn_v", "attn_output")}}  # fmt: skip
        for name, shape in shapes.items():
            data = rng.standard_normal(shape, dtype=np.float32)
            if len(shape) == 2:  # quantized, as in a real file: the load dequantises them
                data = gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q8_0)
                writer.add_tensor(name, data, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
            else:
                writer.add_tensor(name, data)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        return path.read_bytes()


@pytest.fixture
def local(tmp_path) -> LocalModel:
    (tmp_path / GGUF_NAME).write_bytes(tiny_gguf_bytes(0))
    return LocalModel(folder=tmp_path, gguf_file=GGUF_NAME)


def direct_model(local: LocalModel, **kwargs):
    """The model as loaded before the dense copy: transformers reading the GGUF itself."""
    return model_source._dense(transformers.AutoModelForCausalLM.from_pretrained(local.folder, local_files_only=True,
                                                                    **local.kwargs, **kwargs), local)  # fmt: skip


def assert_same_weights(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys()
    for name in sa:
        assert sa[name].dtype == sb[name].dtype and torch.equal(sa[name], sb[name]), name


def test_the_first_load_writes_the_dense_copy_and_it_loads_the_same_model(local):
    direct = direct_model(local)
    model = load_causal_lm(local)
    folder = dense_folder(local)
    assert folder == local.folder / f"{GGUF_NAME}.dense"
    assert read_json(folder / DENSE_STAMP) == {"gguf_sha256": sha256_file(local.folder / GGUF_NAME),
                                              "transformers": transformers.__version__}  # fmt: skip
    assert "quantization_config" not in read_json(folder / "config.json")  # _dense's clearing, saved
    assert [p.name for p in local.folder.iterdir() if p.name.startswith(".tmp-")] == []
    assert model.dtype == torch.float32 and not model.is_quantized
    assert_same_weights(direct, model)
    # A caller's dtype applies to the copy as it did to the GGUF.
    bf16 = load_causal_lm(local, dtype=torch.bfloat16)
    assert_same_weights(direct_model(local, dtype=torch.bfloat16), bf16)
    # A reward model: its body from the copy (its one-number head is new).
    assert_same_weights(direct.model, load_sequence_scorer(local).model)

    tokenizer = load_tokenizer(local)
    gguf_tokenizer = transformers.AutoTokenizer.from_pretrained(local.folder, **local.kwargs)
    assert gguf_tokenizer.pad_token is None and tokenizer.pad_token == tokenizer.eos_token == "<|endoftext|>"
    assert tokenizer(TEXTS)["input_ids"] == gguf_tokenizer(TEXTS)["input_ids"]
    assert tokenizer.name_or_path == str(folder)


def test_a_later_load_reads_the_copy_not_the_gguf(local):
    load_causal_lm(local)
    # Zero the copy's weights, keeping its stamp: a load that returns zeros read the copy, not the GGUF.
    folder = dense_folder(local)
    zeroed = load_causal_lm(local)
    with torch.no_grad():
        for param in zeroed.parameters():
            param.zero_()
    zeroed.save_pretrained(folder)
    assert all(not p.any() for p in load_causal_lm(local).parameters())


def _another_gguf(local: LocalModel):
    (local.folder / GGUF_NAME).write_bytes(tiny_gguf_bytes(1))  # another file at the same path


def _another_transformers(local: LocalModel):
    stamp = read_json(dense_folder(local) / DENSE_STAMP)
    write_json(dense_folder(local) / DENSE_STAMP, {**stamp, "transformers": "4.0.0"})


def _cut_short(local: LocalModel):
    (dense_folder(local) / DENSE_STAMP).unlink()  # a copy without its stamp is not known to be complete


@pytest.mark.parametrize("change", [_another_gguf, _another_transformers, _cut_short])
def test_a_copy_whose_stamp_does_not_match_is_rewritten(local, change):
    before = load_causal_lm(local)
    change(local)
    after = load_causal_lm(local)
    stamp = read_json(dense_folder(local) / DENSE_STAMP)
    assert stamp["gguf_sha256"] == sha256_file(local.folder / GGUF_NAME) and stamp["transformers"] != "4.0.0"
    assert_same_weights(direct_model(local), after)
    if change is _another_gguf:
        assert not torch.equal(before.lm_head.weight, after.lm_head.weight)


def test_a_process_that_loses_the_race_uses_the_copy_already_there(local):
    load_causal_lm(local)
    folder = dense_folder(local)
    written = (folder / "model.safetensors").stat().st_mtime_ns
    # A second process that began converting before the first one's copy was in place.
    assert model_source._write_dense_copy(local, folder, read_json(folder / DENSE_STAMP))
    assert (folder / "model.safetensors").stat().st_mtime_ns == written
    assert sorted(p.name for p in local.folder.iterdir()) == [GGUF_NAME, folder.name]  # its own build removed


def test_a_failed_conversion_leaves_no_copy(local, monkeypatch):
    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as if the job were stopped just before the stamp is written

    monkeypatch.setattr(model_source, "write_json", killed)
    with pytest.raises(KeyboardInterrupt):
        load_causal_lm(local)
    assert sorted(p.name for p in local.folder.iterdir()) == [GGUF_NAME]  # no copy, no temporary folder


def test_a_read_only_folder_loads_the_gguf_itself(local, monkeypatch, caplog):
    local.folder.chmod(0o555)
    if os.access(local.folder, os.W_OK):  # root ignores the mode bits: refuse writes there as the mode would
        real_mkdir = Path.mkdir

        def read_only_mkdir(path, *args, **kwargs):
            if path.parent == local.folder:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real_mkdir(path, *args, **kwargs)

        monkeypatch.setattr(Path, "mkdir", read_only_mkdir)
    try:
        with caplog.at_level(logging.INFO, logger=model_source.__name__):
            model = load_causal_lm(local)
            tokenizer = load_tokenizer(local)
    finally:
        local.folder.chmod(0o755)
    assert not dense_folder(local).exists()
    assert [r.message for r in caplog.records if "without a dense copy" in r.message][:1]
    assert_same_weights(direct_model(local), model)
    assert tokenizer.pad_token == tokenizer.eos_token
