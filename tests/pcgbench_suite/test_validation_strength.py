"""The validation-strength check (workflow_scripts/pcgbench/validation_strength.py) and the generators it holds to
account: inputs whose answer follows from neither the size, a parity nor a fixed place.

The red team's bodies, which passed every validation and scored speedups of 7-6325x while the generators planted the
answer by the size's parity or in a fixed place, now get wrong_answer; so does every trivial body of search_contains,
and the reference passes the same protocol. Serial only, five problems: 10 s on 2 cores with their driver objects
in the machine's cache, about 10 s more without (the whole suite and the other models:
benchmarks/pcgbench_validation_strength.py).
"""

import pytest

from workflow_scripts.measure import (
    OK,
    WRONG_ANSWER,
    BuildCache,
    BuildConfig,
    BuildRequest,
    SandboxLimits,
    run_program,
    suite,
)
from workflow_scripts.pcgbench import validation_strength

# problem -> the red team's body: how each answered without looking where the answer was.
RED_TEAM = {
    # the target was planted iff n was odd
    "search_contains": "  return x.size() & 1;\n}\n",
    # val was in x always and in y iff n was even: the answer was n's parity
    "search_xor_contains": "  return x.size() & 1;\n}\n",
    # the planted pair was always 0.001 apart, closer than any natural pair
    "geometry_closest_pair_2d": "  return 0.001;\n}\n",
    # the value nearest pi was planted in the second half
    "search_closest_to_pi": (
        "  size_t best = x.size() / 2;\n"
        "  for (size_t i = x.size() / 2; i < x.size(); ++i)\n"
        "    if (std::fabs(x[i] - M_PI) < std::fabs(x[best] - M_PI)) best = i;\n"
        "  return best;\n}\n"),
    # the answer was planted in the second eighth, a decoy in the first
    "search_last_short_book": (
        "  for (size_t i = books.size() / 4 + 1; i-- > books.size() / 8;)\n"
        "    if (books[i].pages < 100) return i;\n"
        "  return books.size();\n}\n"),
}
FAMILY_PROBLEM = "search_contains"  # every trivial body of it, beside its reference


@pytest.mark.parametrize(("name", "expected"), [
    ("search_contains", {"zero", "one", "size", "size_parity", "first_element", "last_element", "replay_by_size",
                         "reference_on_first_half", "reference_on_second_half", "reference_on_without_ends"}),
    ("search_closest_to_pi", {"zero", "one", "size", "size_parity", "last_index", "first_element", "last_element",
                              "replay_by_size",
                              "reference_on_first_half", "reference_on_second_half", "reference_on_without_ends",
                              "reference_on_second_half_index_shifted", "reference_on_without_ends_index_shifted"}),
    ("stencil_jacobi_2d", {"nothing", "output_second_half_left", "output_first_half_left", "output_ends_left"}),
    ("graph_edge_count", {"zero", "one", "size", "size_parity", "last_index", "first_element", "last_element",
                          "replay_by_size", "reference_on_leading_block"}),
    ("histogram_quadrants", {"nothing", "reference_on_first_half", "reference_on_second_half",
                             "reference_on_without_ends", "output_second_half_left", "output_first_half_left",
                             "output_ends_left"}),
])  # fmt: skip
def test_the_family_follows_the_signature(name, expected):
    assert set(validation_strength.trivial_bodies(suite.get_problem(name), "serial")) == expected


def test_kokkos_gets_the_value_bodies_and_the_replay():
    assert set(validation_strength.trivial_bodies(suite.get_problem("reduce_average"), "kokkos")) == {
        "zero", "one", "size", "size_parity", "first_element", "last_element", "replay_by_size"}
    assert set(validation_strength.trivial_bodies(suite.get_problem("transform_relu"), "kokkos")) == {"nothing"}


def test_a_signature_with_an_array_parameter_splits_at_its_own_commas():
    sig = validation_strength.parse_signature(
        "void binsBy10Count(std::vector<double> const& x, std::array<size_t, 10> &bins)")
    assert (sig.returns, sig.name, [p.name for p in sig.params]) == ("void", "binsBy10Count", ["x", "bins"])
    assert sig.params[1].array and sig.params[1].element == "size_t" and not sig.params[1].const


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return BuildCache(BuildConfig(cache_dir=tmp_path_factory.mktemp("validation_strength"), jobs=2))


@pytest.fixture(scope="module")
def red_team_builds(cache):
    names = list(RED_TEAM)
    builds = cache.build_all([BuildRequest(problem=suite.get_problem(n), exec_model="serial", body=RED_TEAM[n])
                              for n in names])  # fmt: skip
    return dict(zip(names, builds, strict=True))


@pytest.mark.parametrize("name", list(RED_TEAM))
def test_the_red_teams_bodies_now_fail(name, red_team_builds):
    build = red_team_builds[name]
    assert build.ok and build.finding is None, build.log
    run = run_program(suite.get_problem(name), "serial", build.exe, validation_strength.strength_protocol("serial"),
                      SandboxLimits(wall_s=60.0))  # fmt: skip
    assert run.verdict == WRONG_ANSWER, (run.verdict, run.detail)


def test_every_trivial_body_of_search_contains_fails_and_its_reference_passes(cache):
    # reference=True raises unless the reference gets ok under the same protocol.
    [score] = validation_strength.check_validation_strength([suite.get_problem(FAMILY_PROBLEM)], ["serial"],
                                                            cache=cache, reference=True)  # fmt: skip
    assert score.generated >= 10
    assert score.survivors == [], {n: score.details[n] for n in score.survivors}
    assert OK not in score.verdicts.values()
