"""``policy:PATH`` seats: the file format, refusals that name the mismatch, and the seat at
the CLI, in a league file and as an environment opponent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.episode import play_headless
from cogleague.core.errors import ConfigError
from cogleague.envs import single_agent_env
from cogleague.envs.encoding import encoding_of
from cogleague.games import registry
from cogleague.seats.factory import make_seat, make_seats
from cogleague.seats.policy import load_policy, save_policy


def _signature(game_name: str, variant: str | None = None) -> dict[str, Any]:
    desc = registry.get(game_name)
    return encoding_of(desc).signature(desc.new_game(variant, {}, 0))


def _constant(path: Path, game_name: str, favourite: int, variant: str | None = None) -> Path:
    """A one-layer policy whose logits always prefer action `favourite`."""
    sig = _signature(game_name, variant)
    w = np.zeros((sig["actions"], sig["observation_size"]))
    b = np.zeros(sig["actions"])
    b[favourite] = 1.0
    return save_policy(path, game_name, sig, [(w, b, "linear")])


def test_a_policy_plays_its_highest_legal_logit(tmp_path: Path) -> None:
    path = _constant(tmp_path / "defect.npz", "dilemma", 1)
    desc = registry.get("dilemma")
    names = [f"policy:{path}", "tit_for_tat", "always_cooperate", "pavlov"]
    game = desc.make(None, {"rounds_total": 5}, 3, names, None)
    outcome = play_headless(game, make_seats(game, names))
    assert outcome.results["seats"][0]["cooperation_rate"] == 0.0
    assert outcome.results["seats"][2]["cooperation_rate"] == 1.0


def test_the_mask_binds_a_policy_seat(tmp_path: Path) -> None:
    path = _constant(tmp_path / "greedy.npz", "ledger", 100, "quickfire")  # prefers move 100
    desc = registry.get("ledger")
    names = [f"policy:{path}", "mirror", "shark", "grim", "saint", "opportunist", "mirror",
             "grim"]
    game = desc.make("quickfire", {}, 5, names, None)
    outcome = play_headless(game, make_seats(game, names))
    meetings = [e for e in outcome.log.events if e.kind == "meeting"]
    for m in meetings:
        for side, key in (("a", "A"), ("b", "B")):
            if m.data[side] == 0:
                assert not m.data[f"fallback{key}"]  # always legal: the range's maximum


def test_cli_seats_a_policy_file(tmp_path: Path) -> None:
    path = _constant(tmp_path / "coop.npz", "dilemma", 0)
    result = CliRunner().invoke(app, ["play", "dilemma", "--seed", "4", "--rounds", "3",
                                      "--seats", f"policy:{path},tit_for_tat,always_defect",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    replay = json.loads((tmp_path / "run" / "replay.json").read_text(encoding="utf-8"))
    assert replay["policies"][0] == f"policy:{path}"


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda h: h.update(game="ledger"), "was trained for game 'ledger', not 'dilemma'"),
    (lambda h: h["signature"].update(encoding="dilemma.rl.v0"),
     "signature encoding is 'dilemma.rl.v0' but this dilemma table needs 'dilemma.rl.v1'"),
    (lambda h: h["signature"].update(observation_size=7),
     "signature observation_size is 7 but this dilemma table needs 24"),
    (lambda h: h.update(format="other"), "header format must be 'cogleague.policy.v1'"),
    (lambda h: h["layers"][0].update(activation="gelu"),
     "layers[0].activation must be one of tanh, relu, linear (got 'gelu')"),
    (lambda h: h["layers"][0].update(weight="nope"),
     "layers[0] names array 'nope', which the file lacks"),
])
def test_a_policy_that_does_not_fit_is_refused_naming_the_mismatch(
        tmp_path: Path, mutate: Any, message: str) -> None:
    path = _constant(tmp_path / "p.npz", "dilemma", 0)
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    header = json.loads(bytes(arrays["header"]).decode())
    mutate(header)
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    game = registry.get("dilemma").new_game(None, {}, 0)
    with pytest.raises(ConfigError, match="seats") as err:
        make_seat(game, 0, f"policy:{path}")
    assert message in str(err.value)


def test_shape_mismatches_are_refused(tmp_path: Path) -> None:
    sig = _signature("dilemma")
    game = registry.get("dilemma").new_game(None, {}, 0)
    wide = save_policy(tmp_path / "wide.npz", "dilemma", sig,
                       [(np.zeros((4, 30)), np.zeros(4), "tanh"),
                        (np.zeros((2, 4)), np.zeros(2), "linear")])
    with pytest.raises(ConfigError, match="first layer takes 30 inputs but the observation "
                                          "has 24"):
        make_seat(game, 0, f"policy:{wide}")
    broken = save_policy(tmp_path / "broken.npz", "dilemma", sig,
                         [(np.zeros((4, 24)), np.zeros(4), "tanh"),
                          (np.zeros((2, 5)), np.zeros(2), "linear")])
    with pytest.raises(ConfigError, match=r"layers\[1\] takes 5 inputs but layers\[0\] gives 4"):
        load_policy(broken)
    with pytest.raises(ConfigError, match="cannot be opened"):
        make_seat(game, 0, f"policy:{tmp_path / 'missing.npz'}")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ConfigError, match=r"cannot be read as a \.npz file"):
        make_seat(game, 0, f"policy:{tmp_path / 'junk.npz'}")


def test_saved_policies_sit_in_the_pool_of_a_single_agent_env(tmp_path: Path) -> None:
    path = _constant(tmp_path / "defect.npz", "dilemma", 1)
    env = single_agent_env("dilemma", opponents=[f"policy:{path}", "tit_for_tat",
                                                 "always_cooperate"], rounds_total=4)
    _, info = env.reset(seed=2)
    done = False
    while not done:
        _, _, done, _, info = env.step(0)
    assert env.game.results()["seats"][1]["cooperation_rate"] == 0.0
    assert info["score"] == env.game.results()["scores"][0]


def test_a_league_file_seats_a_policy_in_its_own_game_only(tmp_path: Path) -> None:
    from cogleague.league.config import load

    _constant(tmp_path / "coop.npz", "dilemma", 0)
    (tmp_path / "league.toml").write_text("""
[league]
name = "t"
episodes = 4
[[policies]]
name = "learned"
policy = "coop.npz"
[[policies]]
name = "tft"
baseline = { dilemma = "tit_for_tat", ledger = "mirror" }
[[games]]
name = "dilemma"
seats = 3
[[games]]
name = "ledger"
variants = ["quickfire"]
seats = 8
""", encoding="utf-8")
    cfg = load(tmp_path / "league.toml")
    by_game = {g.name: g.policies for g in cfg.games}
    assert "learned" in by_game["dilemma"] and "learned" not in by_game["ledger"]
