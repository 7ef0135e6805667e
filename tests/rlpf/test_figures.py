"""Each RLPF figure drawn on its own from the files its rule reads: the evaluation metrics of the four models
(scored by held_out.score from per-sample tables) or the training curves (TRL's log_history shape)."""

import pandas as pd
import pytest

from workflow_scripts.common import write_json
from workflow_scripts.rlpf import figures
from workflow_scripts.rlpf.held_out import score
from workflow_scripts.rlpf.summary import FIGURES, MODELS


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("rlpf_figures")
    metrics_paths, curve_paths = {}, {}
    for i, model in enumerate(MODELS):
        samples = pd.DataFrame({"task_id": ["a", "a", "b", "b"], "correct": [True, i % 2 == 0, True, False],
                                "speedup": [1.0 + 0.5 * i, 1.0, 0.8, None]})  # fmt: skip
        task_sets = {"omp": score(samples, faster_margin=0.05)}
        if model != "dpo":  # a task set one model was not evaluated on is drawn without its bars
            task_sets["serial"] = score(samples.assign(speedup=1.0), faster_margin=0.05)
        metrics_paths[model] = root / f"eval_{model}.json"
        write_json(metrics_paths[model], {"model": model, "task_sets": task_sets})
    for method in ("sft", "dpo", "rl"):
        history = [{"step": s, "reward": 0.1 * s, "kl": 0.01 * s} if method == "rl" else {"step": s, "loss": 2.0 / s}
                   for s in range(1, 4)]  # fmt: skip
        curve_paths[method] = root / f"curve_{method}.json"
        write_json(curve_paths[method], {"method": method, "log_history": history, "reward_calls": []})
    return {"metrics_paths": metrics_paths, "curve_paths": curve_paths}


@pytest.mark.parametrize("figure", sorted(FIGURES))
def test_each_figure_is_drawn_from_its_inputs_alone(figure, inputs, tmp_path, drawn):
    output = tmp_path / f"{figure}.png"
    (drawn_from,), _ = FIGURES[figure]
    source = {"metrics": "metrics_paths", "curves": "curve_paths"}[drawn_from]
    figures.main(figure=figure, output=output, **{source: inputs[source]})
    assert output.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and output.stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == [output.name, f"{output.name}.prov.json"]
    (shown,) = drawn
    assert shown["code_names"] == []
    if figure == "training_curves":  # every panel says what its y axis measures, with its unit
        units = {"KL divergence (nats per token)", "cross-entropy (nats per token)", "DPO loss (nats per pair)"}
        assert units <= set(shown["texts"])
    else:  # the task set dpo was not evaluated on has no bars and says so
        assert "not\nevaluated" in shown["texts"]
    other = "curve_paths" if source == "metrics_paths" else "metrics_paths"
    with pytest.raises(ValueError, match=f"{figure!r} is drawn from"):  # given only the other figure's files
        figures.main(figure=figure, output=tmp_path / "x.png", **{other: inputs[other]})


def test_unknown_figure_is_named(inputs, tmp_path):
    with pytest.raises(ValueError, match="'reward'.*expected_speedup, training_curves"):
        figures.main(figure="reward", output=tmp_path / "x.png", **inputs)
    assert not (tmp_path / "x.png").exists()
