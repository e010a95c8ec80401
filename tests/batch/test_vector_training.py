"""The vector-env training examples, shortened: a policy trained on the batch engine scores the
same at the rules engine's tables as in the vector environment (the examples assert it on
every held-out table) and is a `policy:PATH` seat like any other."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from cogleague.seats.policy import load_policy

EXAMPLES = Path(__file__).parents[2] / "examples" / "rl"


def _load(name: str = "train_dilemma_vector.py") -> ModuleType:
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), EXAMPLES / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_trained_on_the_vector_env_scores_the_same_at_rules_tables(tmp_path: Path) -> None:
    out = tmp_path / "policy.npz"
    module = _load()
    report = module.main(["--generations", "2", "--population", "6", "--tables", "4",
                          "--lineups", "2", "--check", "5", "--out", str(out)])
    assert load_policy(out).header["meta"] == {"trained_on": "vector_env"}
    assert len(report) == 2 and all(score >= 0 for score in report.values())
    batch, rules = module.both_engines(out, ["random", "generous_tit_for_tat", "pavlov"], 4)
    assert batch == rules and len(batch) == 4


def test_a_commons_policy_trained_on_the_vector_env_scores_the_same_at_rules_tables(
        tmp_path: Path) -> None:
    """The Commons example (cleanup, sanctions on: the mask and a 60-action head), shortened."""
    out = tmp_path / "commons.npz"
    module = _load("train_commons_vector.py")
    report = module.main(["--generations", "2", "--population", "4", "--tables", "2",
                          "--lineups", "1", "--check", "3", "--out", str(out)])
    policy = load_policy(out)
    assert policy.header["signature"]["actions"] == policy.layers[-1][0].shape[0] == 60
    assert len(report) == 2
    batch, rules = module.both_engines(out, ["random", "punisher", "deterrable", "cleaner",
                                             "reciprocator"], 3)
    assert batch == rules and len(batch) == 3
