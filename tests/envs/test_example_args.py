"""The RL examples refuse a flag outside its range with argparse's usage error naming the flag
and the range, before any training: no traceback (``--hidden -1``), no silently odd population
(antithetic pairs), no NaN interval printed and written into the report as invalid JSON
(``--tables 0`` or ``1``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "rl"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = [
    ("train_dilemma", ["--tables", "0"], "--tables", "2.."),
    ("train_dilemma", ["--tables", "1"], "--tables", "2.."),
    ("train_dilemma", ["--hidden", "-1"], "--hidden", "0.."),
    ("train_dilemma", ["--population", "3"], "--population", "even"),
    ("train_dilemma", ["--probe", "0"], "--probe", "1.."),
    ("train_dilemma", ["--sigma", "0"], "--sigma", "number"),
    ("train_dilemma_vector", ["--population", "5"], "--population", "even"),
    ("train_dilemma_vector", ["--check", "0"], "--check", "1.."),
    ("train_dilemma_vector", ["--lineups", "0"], "--lineups", "1.."),
    ("train_commons_vector", ["--tables", "0"], "--tables", "1.."),
    ("train_commons_vector", ["--lr", "nan"], "--lr", "number"),
]


@pytest.mark.parametrize(("script", "argv", "flag", "words"), CASES)
def test_a_flag_out_of_range_is_a_usage_error_naming_it(
        script: str, argv: list[str], flag: str, words: str,
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        _load(script).main([*argv, "--out", str(tmp_path / "p.npz")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}:" in err and words in err, err
    assert not (tmp_path / "p.npz").exists()
