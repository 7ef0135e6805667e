"""HPC-Coder fine-tuned from a pretrained base beside the same-corpus model trained from scratch
(`hpccoder.from_scratch`): the arm's effective config and its errors, the summary's comparison table, and the
plan of a config with both arms."""

import copy

import pandas as pd
import pytest

from tests.conftest import copy_workflow, run_snakemake
from workflow_scripts.common import read_json, write_json
from workflow_scripts.common.config import load_config
from workflow_scripts.hpccoder import summary as hpccoder_summary
from workflow_scripts.hpccoder.arms import arm_config, arm_metrics, arms, check_generator


def hpccoder(overrides):
    return load_config("config/config.yaml", overrides={"hpccoder": overrides})["hpccoder"]


@pytest.fixture
def base_folder(tmp_path):
    """A tiny GPT-2 saved with save_pretrained: a real local base model for `init_from`."""
    from transformers import GPT2Config, GPT2LMHeadModel

    folder = tmp_path / "base"
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=16, n_positions=64, vocab_size=300)).save_pretrained(folder)
    return folder


def test_default_config_has_only_the_main_arm(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    section = hpccoder({})
    assert section["from_scratch"] is None and arms(section) == [""]
    assert arm_config(section, "") == {k: v for k, v in section.items() if k != "from_scratch"}


def test_from_scratch_arm_merges_its_overrides_into_the_main_sections(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    section = hpccoder({
        "model": {"init_from": "models/PolyCoder-2.7B", "context_tokens": 512},
        "training": {"max_steps": 100, "learning_rate": 1.0e-5},
        "from_scratch": {"model": {"n_layer": 3, "n_embd": 64}, "training": {"learning_rate": 1.0e-3},
                         "tokenizer": {"vocab_size": 1000}},
    })  # fmt: skip
    before = copy.deepcopy(section)
    assert arms(section) == ["", "from_scratch"]
    main, scratch = arm_config(section, ""), arm_config(section, "from_scratch")
    assert main["model"]["init_from"] == "models/PolyCoder-2.7B" and main["training"]["learning_rate"] == 1.0e-5
    # overridden keys from the arm, the others from the main section, init_from always null
    assert scratch["model"] == {**section["model"], "init_from": None, "n_layer": 3, "n_embd": 64}
    assert scratch["model"]["context_tokens"] == 512
    assert scratch["training"] == {**section["training"], "learning_rate": 1.0e-3}
    assert scratch["tokenizer"]["vocab_size"] == 1000 and scratch["pragma"] == section["pragma"]
    assert scratch["perfchange"] == section["perfchange"]
    # no generator: completion is not scored for this arm
    assert scratch["completion"]["enabled"] is False and "completion" not in arm_metrics("from_scratch", scratch, "results")
    assert arm_metrics("from_scratch", scratch, "results")["pragma"] == "results/hpccoder/from_scratch/pragma/metrics.json"
    assert arm_metrics("from_scratch", scratch, "results-paper")["pragma"] == (
        "results-paper/hpccoder/from_scratch/pragma/metrics.json")
    assert section == before  # the config is not changed in place
    with_generator = hpccoder({"model": {"init_from": "models/base"}, "from_scratch": {"generator": "scratch_model"}})
    scratch = arm_config(with_generator, "from_scratch")
    assert scratch["completion"]["enabled"] is True and scratch["completion"]["generator"] == "scratch_model"
    assert arm_metrics("from_scratch", scratch, "results")["completion"] == (
        "results/hpccoder/from_scratch/completion/metrics.json")


@pytest.mark.parametrize(("overrides", "message"), [
    ({"from_scratch": {}}, r"hpccoder.from_scratch is set but hpccoder.model.init_from is null"),
    ({"model": {"init_from": "m"}, "from_scratch": {"model": {"n_layer": 0}}},
     r"hpccoder.from_scratch.model.n_layer: 0 is less than the minimum of 1"),
    ({"model": {"init_from": "m"}, "from_scratch": {"training": {"max_step": 5}}},
     r"hpccoder.from_scratch.training: Additional properties are not allowed \('max_step'"),
    ({"model": {"init_from": "m"}, "from_scratch": {"model": {"init_from": "other"}}},
     r"hpccoder.from_scratch.model.init_from: the from-scratch arm never starts from a pretrained model"),
    ({"model": {"init_from": "m"}, "from_scratch": {"generator": "hpccoder"}},
     r"hpccoder.from_scratch.generator: 'hpccoder' is hpccoder.completion.generator"),
])  # fmt: skip
def test_from_scratch_config_errors_name_the_keys(overrides, message, repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    with pytest.raises(ValueError, match=message):
        arm_config(hpccoder(overrides), "from_scratch")


def test_schema_refuses_an_unknown_from_scratch_section(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    with pytest.raises(ValueError, match="unknown key 'hpccoder.from_scratch.perfchange'"):
        hpccoder({"model": {"init_from": "m"}, "from_scratch": {"perfchange": {}}})


def arm_metrics_files(folder, *, loss, loss_per_char, exact, head_accuracy, serial_pass, with_omp):
    """The four metrics files of one model, in the shapes pretrain, pragma, perfchange and completion write."""
    folder.mkdir()
    write_json(folder / "pretrain.json", {
        "model": "m", "parameters": 1000, "steps": 3, "tokens_seen": 96, "train_time_s": 1.0, "tokens_per_s": 96.0,
        "final_train_loss": loss, "validation_loss": loss, "validation_perplexity": 2.718 ** loss,
        "validation_loss_per_char": loss_per_char,
    })  # fmt: skip
    categories = ["directive", "exact", "all_clauses"]
    write_json(folder / "pragma.json", {
        "test_loops": 10, "train_loops": 90, "categories": categories,
        "model": {"directive": 1.0, "exact": exact, "all_clauses": exact},
        "baseline_majority": {"directive": 1.0, "exact": 0.1, "all_clauses": 0.1},
    })  # fmt: skip
    write_json(folder / "perfchange.json", {"accuracy": {"hpccoder_head": head_accuracy, "feature_baseline": 0.9}})
    models = {"serial": {"pass@1": serial_pass, "build@1": 0.5}}
    if with_omp:
        models["omp"] = {"pass@1": 0.1, "build@1": 0.2}
    write_json(folder / "completion.json", {"ks": [1], "models": models})
    return {"pretrain": folder / "pretrain.json", "pragma": folder / "pragma.json",
            "perfchange": folder / "perfchange.json", "completion": folder / "completion.json"}  # fmt: skip


def test_summary_compares_the_two_models(tmp_path):
    pretrained = arm_metrics_files(tmp_path / "pretrained", loss=1.2, loss_per_char=0.4, exact=0.6, head_accuracy=0.8,
                                   serial_pass=0.25, with_omp=True)  # fmt: skip
    scratch = arm_metrics_files(tmp_path / "scratch", loss=0.9, loss_per_char=0.7, exact=0.3, head_accuracy=0.8,
                                serial_pass=0.5, with_omp=False)  # fmt: skip
    summary = hpccoder_summary.main(pretrained["pretrain"], pretrained["pragma"], tmp_path / "summary.json", seed=1,
                              completion_metrics_path=pretrained["completion"],
                              perfchange_metrics_path=pretrained["perfchange"], from_scratch=scratch)  # fmt: skip
    assert read_json(tmp_path / "summary.json") == summary
    assert summary["pragma_prediction"]["exact_match"] == 0.6 and summary["from_scratch"]["pragma_prediction"]["exact_match"] == 0.3
    table = summary["comparison"]
    # per-token loss is lower for the from-scratch model, but it does not compare: per character it is higher
    assert set(table["not_compared"]) == {"validation_loss", "validation_perplexity"}
    assert table["pretraining"]["validation_loss_per_char"] == {"pretrained": 0.4, "from_scratch": 0.7,
                                                                "higher": "from_scratch", "higher_is_better": False}
    assert table["pragma_prediction"]["exact_match"]["higher"] == "pretrained"
    assert table["performance_change"]["accuracy.hpccoder_head"] == {"pretrained": 0.8, "from_scratch": 0.8,
                                                                     "higher": "equal", "higher_is_better": True}
    # only the execution models both were scored on
    assert sorted(table["code_completion"]) == ["serial.build@1", "serial.pass@1"]
    assert table["code_completion"]["serial.pass@1"]["higher"] == "from_scratch"

    # Without the arm the summary is as before: no from_scratch block, no comparison.
    alone = hpccoder_summary.main(pretrained["pretrain"], pretrained["pragma"], tmp_path / "alone.json", seed=1)
    assert "from_scratch" not in alone and "comparison" not in alone
    # An evaluation run for one model only is left out of the comparison.
    no_perfchange = {k: v for k, v in scratch.items() if k != "perfchange"}
    partial = hpccoder_summary.main(pretrained["pretrain"], pretrained["pragma"], tmp_path / "partial.json", seed=1,
                              perfchange_metrics_path=pretrained["perfchange"], from_scratch=no_perfchange)  # fmt: skip
    assert "performance_change" not in partial["comparison"] and "code_completion" not in partial["comparison"]


@pytest.mark.integration
def test_plan_trains_and_evaluates_both_models(base_folder, tmp_path):
    """A config fine-tuning a local base with hpccoder.from_scratch plans both arms' jobs, and the summary and
    comparison figure wait for both; the default config plans none of the from-scratch jobs."""
    workdir = copy_workflow(tmp_path / "wf")
    (workdir / "both.yaml").write_text(
        f"hpccoder:\n  model: {{init_from: {base_folder}}}\n"
        "  from_scratch:\n    model: {n_layer: 1}\n    generator: hpccoder_scratch\n"
        "generate:\n  models:\n    hpccoder_scratch: {backend: hf, path: results/hpccoder/from_scratch/model}\n"
    )
    planned = run_snakemake(workdir, "-n", "results/hpccoder/summary.json",
                            "results/hpccoder/figures/from_scratch_vs_pretrained.png", "--configfile", "both.yaml",
                            "--quiet", "rules", cores=1, timeout=300)  # fmt: skip
    assert planned.returncode == 0, planned.stderr[-3000:]
    steps = ["tokenizer", "pretrain", "pragma", "perfchange", "completion"]
    for step in steps:
        assert f"hpccoder_{step} " in planned.stdout and f"hpccoder_from_scratch_{step} " in planned.stdout, step
    assert "hpccoder_summary" in planned.stdout and "hpccoder_figure_from_scratch_vs_pretrained" in planned.stdout
    # the from-scratch completion is scored from its own generations
    detailed = run_snakemake(workdir, "-n", "results/hpccoder/from_scratch/completion/metrics.json",
                             "--configfile", "both.yaml", "-p", cores=1, timeout=300)  # fmt: skip
    assert "results/pcgbench/hpccoder_scratch/results.parquet" in detailed.stdout, detailed.stdout[-3000:]

    # the from-scratch perfchange reuses the main model's timed versions: asking for it plans the main one's job
    reuse = run_snakemake(workdir, "-n", "results/hpccoder/from_scratch/perfchange/metrics.json",
                          "--configfile", "both.yaml", "--quiet", "rules", cores=1, timeout=300)  # fmt: skip
    assert "hpccoder_perfchange " in reuse.stdout and "hpccoder_from_scratch_perfchange " in reuse.stdout

    default = run_snakemake(workdir, "-n", "results/hpccoder/summary.json", "--quiet", "rules", cores=1, timeout=300)
    assert default.returncode == 0, default.stderr[-3000:]
    assert "hpccoder_pretrain" in default.stdout and "from_scratch" not in default.stdout

    (workdir / "bad.yaml").write_text("hpccoder:\n  from_scratch: {}\n")
    refused = run_snakemake(workdir, "-n", "results/hpccoder/summary.json", "--configfile", "bad.yaml", cores=1, timeout=300)
    assert refused.returncode != 0
    assert "hpccoder.from_scratch is set but hpccoder.model.init_from is null" in refused.stdout + refused.stderr


@pytest.mark.integration
def test_summary_reports_the_fine_tuned_and_the_from_scratch_model(tmp_path):
    """A real run: a tiny local GPT-2 base (its own BPE, no pad token, as GPT-2 ships) fine-tuned a few steps, the
    from-scratch model trained beside it, both evaluated on pragma prediction, and the summary compares them."""
    from transformers import GPT2Config, GPT2LMHeadModel

    from workflow_scripts.hpccoder.tokenizer import TokenizerConfig, train_bpe

    from .test_pragma import FASTTREE, NESTED_AND_REDUCTION, SUNDIALS

    base = tmp_path / "base"
    tokenizer = train_bpe([FASTTREE, NESTED_AND_REDUCTION, SUNDIALS] * 4, TokenizerConfig(vocab_size=320))
    tokenizer.pad_token = None
    tokenizer.save_pretrained(base)
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, n_positions=128, vocab_size=len(tokenizer),
                               bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)).save_pretrained(base)  # fmt: skip
    workdir = copy_workflow(tmp_path / "wf")
    (workdir / "run.yaml").write_text(
        f"hpccoder:\n  model: {{init_from: {base}, context_tokens: 128}}\n"
        "  training: {max_steps: 3, per_device_batch_size: 4, eval_steps: 3, logging_steps: 1, warmup_steps: 1,"
        " max_eval_sequences: 4, learning_rate: 0.001}\n"
        "  pragma: {finetune_steps: 1, max_new_tokens: 8, max_test_loops: 4}\n"
        "  completion: {enabled: false}\n"
        # two problems (leave-one-problem-out needs two), OpenMP only, two pragma edits: a few timed programs
        "  perfchange: {problems: [reduce_average, transform_relu], models: [omp], edits: [pragma_removed, one_thread]}\n"
        "  from_scratch:\n    model: {n_layer: 1, n_head: 2, n_embd: 32}\n    tokenizer: {vocab_size: 400}\n"
    )
    run = run_snakemake(workdir, "results/hpccoder/summary.json", "results/hpccoder/figures/from_scratch_vs_pretrained.png",
                        "--configfile", "run.yaml", cores=2, timeout=600)  # fmt: skip
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    summary = read_json(workdir / "results/hpccoder/summary.json")
    fine_tuned, scratch = summary["pretraining"], summary["from_scratch"]["pretraining"]
    assert fine_tuned["model"] == str(base) and scratch["model"] == "gpt2"
    assert fine_tuned["steps"] == scratch["steps"] == 3
    row = summary["comparison"]["pretraining"]["validation_loss_per_char"]
    assert row["pretrained"] == fine_tuned["validation_loss_per_char"] > 0
    assert row["from_scratch"] == scratch["validation_loss_per_char"] > 0
    assert set(summary["comparison"]) == {"pretraining", "pragma_prediction", "performance_change", "not_compared"}
    # the from-scratch model is scored on the same timed programs, hence the same pairs and labels
    pairs = {arm: pd.read_parquet(workdir / f"results/hpccoder/{arm}perfchange/pairs.parquet") for arm in ("", "from_scratch/")}
    assert len(pairs[""]) > 0 and pairs[""]["label"].tolist() == pairs["from_scratch/"]["label"].tolist()
    assert summary["performance_change"]["slower_fraction"] == summary["from_scratch"]["performance_change"]["slower_fraction"]
    scratch_pretrain = read_json(workdir / "results/hpccoder/from_scratch/pretrain_metrics.json")
    assert scratch_pretrain["validation_loss_per_char"] == scratch["validation_loss_per_char"]
    # two tokenizers: the base's (320 tokens) and the one trained for the from-scratch model (400)
    assert len(read_json(workdir / "results/hpccoder/tokenizer/tokenizer.json")["model"]["vocab"]) == 320
    assert len(read_json(workdir / "results/hpccoder/from_scratch/tokenizer/tokenizer.json")["model"]["vocab"]) == 400
    assert (workdir / "results/hpccoder/figures/from_scratch_vs_pretrained.png").stat().st_size > 1000


def test_perfchange_reuses_another_models_timings_only_for_the_same_versions(tmp_path):
    from workflow_scripts.hpccoder.perfchange import make_versions, reuse_timed_versions
    from workflow_scripts.measure import suite

    problems = [p for p in suite.load_suite() if p.name in ("reduce_average", "transform_relu")]
    versions = make_versions(problems, ["pragma_removed", "one_thread"], ["omp"])
    assert len(versions) >= 4
    timed = versions.assign(verdict="ok", time_median_s=1.0, time_iqr_s=0.0, threads=2)
    timed.to_parquet(tmp_path / "timed.parquet", index=False)
    pd.testing.assert_frame_equal(reuse_timed_versions(versions, tmp_path / "timed.parquet"), timed)
    edited = timed.assign(body=timed["body"].where(timed.index != 1, "changed"))
    edited.to_parquet(tmp_path / "edited.parquet", index=False)
    with pytest.raises(ValueError, match="edited.parquet: its versions differ"):
        reuse_timed_versions(versions, tmp_path / "edited.parquet")
    timed.drop(columns=["verdict"]).to_parquet(tmp_path / "untimed.parquet", index=False)
    with pytest.raises(ValueError, match="untimed.parquet: not a perfchange versions table .no column verdict"):
        reuse_timed_versions(versions, tmp_path / "untimed.parquet")
    with pytest.raises(ValueError, match="differ"):  # fewer versions (another edit list) is a different table
        reuse_timed_versions(versions.iloc[:-1], tmp_path / "timed.parquet")


def test_a_completion_generator_missing_from_generate_models_is_named(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    small = load_config("config/config.yaml", "config/small.yaml")
    for arm in arms(small["hpccoder"]):  # the small config defines both arms' generators
        check_generator(arm, arm_config(small["hpccoder"], arm), small["generate"]["models"])
    models = {k: v for k, v in small["generate"]["models"].items() if k != "hpccoder_from_scratch"}
    with pytest.raises(ValueError, match=r"hpccoder.from_scratch.generator: 'hpccoder_from_scratch' is not a "
                                         r"generate.models entry.*results/hpccoder/from_scratch/model"):
        check_generator("from_scratch", arm_config(small["hpccoder"], "from_scratch"), models)
    disabled = arm_config(small["hpccoder"], "") | {"completion": {"enabled": False, "generator": "absent"}}
    check_generator("", disabled, models)  # not scored: nothing to check
