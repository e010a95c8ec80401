"""The fourth game through the `cogleague` command: listed by `cogleague games` (the installed
console script, in a child process), played by the generic `cogleague play`, verified by
`cogleague replay verify` (in-process through typer's runner: the game is still found only
through its entry point)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from plugin.support import cli, need_plugin

need_plugin()

from cogleague.cli import app  # noqa: E402

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.output


def test_cogleague_games_lists_it_with_its_origin() -> None:
    listed = cli("games", "--json")
    assert listed.returncode == 0, listed.stderr
    doc = json.loads(listed.stdout)
    games = {g["name"]: g for g in doc["games"]}
    assert {"threshold", "ledger", "commons", "dilemma"} <= set(games)
    thr = games["threshold"]
    assert thr["variants"] == ["standard", "refund", "silent", "quick"]
    assert thr["seat_range"] == [3, 8] and thr["rules_version"] == "threshold-1.0"
    assert thr["viewer"] is None and thr["replay_format"] == "threshold.replay.v1"
    assert "cogleague-threshold 0.1.0" in thr["origin"]
    assert not [p for p in doc["problems"] if p["name"] == "threshold"]
    table = cli("games")
    assert table.returncode == 0 and "threshold" in table.stdout


def test_play_then_verify_then_a_tampered_replay_fails(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, output = run("play", "threshold", "--seed", "7", "--variant", "refund", "--seats",
                       "fair_share,matcher,reciprocator,random,altruist", "--out", str(out))
    assert code == 0, output
    assert "Threshold public goods results (complete)" in output
    results = json.loads((out / "results.json").read_text())
    assert len(results["scores"]) == 5 and results["rounds_played"] == 10
    replay = out / "replay.json"
    code, output = run("replay", "verify", str(replay))
    assert code == 0 and "verifies (threshold.replay.v1)" in output, output

    doc = json.loads(replay.read_text())
    entry = next(e for e in doc["log"] if e["op"] == "apply")
    decision = next(iter(entry["decisions"].values()))
    decision["attempts"] = 2  # decision metadata is part of what must re-derive
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    code, output = run("replay", "verify", str(bad))
    assert code == 1 and "does not verify" in output, output
    assert "a scripted reply takes one attempt" in " ".join(output.split()), output


def test_same_seed_same_bytes_and_bad_options_exit_2(tmp_path: Path) -> None:
    for name in ("a", "b"):
        code, output = run("play", "threshold", "--seed", "99", "--rounds", "4", "--out",
                           str(tmp_path / name))
        assert code == 0, output
    assert (tmp_path / "a/replay.json").read_bytes() == (tmp_path / "b/replay.json").read_bytes()
    code, output = run("play", "threshold", "--threshold", "41")
    assert code == 2 and "--threshold must be an integer in 1..40" in output, output
    code, output = run("play", "threshold", "--seats", "fair_share,keeper")
    assert code == 2 and "--seats must list 3..8" in output, output
    code, output = run("play", "threshold", "--seats", "fair_share,keeper,nobody")
    assert code == 2 and "'nobody' is not a threshold baseline" in output, output
