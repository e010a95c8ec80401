"""Failures are loud: a bot's exception, a late bot, a broken provider — each visible as a
cause in the results, a line on stderr and, with --strict, an exit code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cogleague
from helpers.provider_server import ProviderServer

COGLEAGUE = Path(sys.executable).with_name("cogleague")

BOTS = '''
import asyncio, time
from cogleague import Bot

class Crashy(Bot):
    def on_turn(self, turn):
        return {"action": turn.visible_state["no_such_field"]}

class Sleepy(Bot):
    def on_turn(self, turn):
        time.sleep(1.0)
        return {"action": "defect"}

class Noter(Bot):  # Ledger: a note every round, round 1's included (it has no target)
    def on_turn(self, turn):
        return {"move": 0, "note": "a fine partner"}

class AsyncSleepy(Bot):
    async def on_turn(self, turn):
        await asyncio.sleep(1.0)
        return {"action": "defect"}
'''


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    (tmp_path / "bots.py").write_text(BOTS, encoding="utf-8")
    return tmp_path


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(COGLEAGUE), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_bot_exception_is_cause_error_with_its_message_and_frames(bots: Path) -> None:
    done = run("play", "dilemma", "--seats", "bots.py:Crashy,tit_for_tat,pavlov", "--rounds",
               "2", "--out", "out", cwd=bots)
    assert done.returncode == 0, done.stderr
    assert "Traceback (most recent call last)" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "fallbacks: seat 0 (bots.py:Crashy) 4 error"
    assert lines[1].startswith("seat 0 (bots.py:Crashy) raised on turn ")
    assert lines[1].endswith("KeyError: 'no_such_field'")
    assert "bots.py\", line 7, in on_turn" in done.stderr  # the bot's own frame, shown once
    assert done.stderr.count("KeyError") == 1
    faults = json.loads((bots / "out" / "results.json").read_text(encoding="utf-8"))["faults"]
    row = faults["seats"][0]
    assert row["fallbacks"] == {"error": 4} and row["policy"] == "bots.py:Crashy"
    assert row["errors"][0]["error"].startswith("KeyError: 'no_such_field'")
    assert [r["fallbacks"] for r in faults["seats"][1:]] == [{}, {}]
    replay = json.loads((bots / "out" / "replay.json").read_text(encoding="utf-8"))
    causes = {d["cause"] for e in replay["log"] for d in e.get("decisions", {}).values()
              if d["source"] == "fallback"}
    assert causes == {"error"}


def test_strict_turns_any_fallback_into_exit_1(bots: Path) -> None:
    done = run("play", "dilemma", "--seats", "bots.py:Crashy,tit_for_tat,pavlov", "--rounds",
               "1", "--strict", "--out", "strict", cwd=bots)
    assert done.returncode == 1 and "--strict" in done.stderr
    clean = run("play", "dilemma", "--rounds", "1", "--strict", "--out", "clean", cwd=bots)
    assert clean.returncode == 0, clean.stderr


def test_strict_says_a_reply_read_in_part_is_not_a_fallback(bots: Path) -> None:
    """A dropped field (Ledger's round-1 note) is a `wrong_shape` fault: --strict refuses it,
    saying the move stood, not that a decision fell back."""
    done = run("play", "ledger", "--seats", "bots.py:Noter," + ",".join(["mirror"] * 7),
               "--rounds", "4", "--strict", "--out", "notes", cwd=bots)
    assert done.returncode == 1
    assert "1 wrong_shape (note dropped: round 1 has no note target" in done.stderr
    assert "a reply was read only in part" in done.stderr
    assert "a decision fell back" not in done.stderr


def test_strict_help_says_a_reply_read_in_part_exits_1_too(tmp_path: Path) -> None:
    """--strict refuses a `wrong_shape` fault as well as a fallback; its help says both."""
    done = run("play", "ledger", "--help", cwd=tmp_path,
               env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    words = " ".join(re.sub(r"[│╭╮╰╯─]", " ", done.stdout).split())
    assert "exit 1 if any decision fell back or a reply was read only in part" in words, words


@pytest.mark.parametrize("cls", ["Sleepy", "AsyncSleepy"])
def test_an_in_process_bot_is_held_to_the_turn_deadline(bots: Path, cls: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(bots)
    result = cogleague.play("dilemma", [f"bots.py:{cls}", "tit_for_tat", "pavlov"], rounds=1,
                            turn_deadline_ms=200)
    # a 1 s answer against a 200 ms deadline is a timeout: the rules' timeout action
    # (cooperate) is played, exactly as on a server (a late answer is never accepted)
    seat = result.faults["seats"][0]
    assert seat["fallbacks"] == {"timeout": 2}
    moves = {d["action"]["action"] for e in result.replay["log"]
             for d in e.get("decisions", {}).values() if d["source"] == "fallback"}
    assert moves == {"cooperate"}


def test_a_missing_key_stops_before_play_naming_the_variable(bots: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY",
                                                             "ANTHROPIC_API_KEY")}
    done = run("play", "dilemma", "--seats", "llm,tit_for_tat,pavlov", "--model", "gpt-4o-mini",
               "--out", "nokey", cwd=bots, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: OPENAI_API_KEY is not set: model seats on openai "
                                   "need a key (or --base-url for a local OpenAI-compatible "
                                   "server)")
    assert not (bots / "nokey").exists()
    anthropic = run("play", "dilemma", "--seats", "llm,tit_for_tat,pavlov", "--provider",
                    "anthropic", "--model", "claude-x", "--out", "nokey", cwd=bots, env=env)
    assert anthropic.returncode == 2 and "ANTHROPIC_API_KEY is not set" in anthropic.stderr


def test_a_refused_key_and_an_unreachable_url_stop_before_play(bots: Path) -> None:
    with ProviderServer() as provider:
        provider.refused_keys = {"sk-wrong"}
        env = {**os.environ, "OPENAI_API_KEY": "sk-wrong"}
        done = run("play", "dilemma", "--seats", "llm,tit_for_tat,pavlov", "--model", "m",
                   "--base-url", provider.openai_url, "--out", "refused", cwd=bots, env=env)
        assert done.returncode == 2
        assert done.stderr.strip() == (f"error: {provider.openai_url} refused the key in "
                                       "OPENAI_API_KEY (HTTP 401)")
        assert not (bots / "refused").exists() and provider.requests == []
        env["OPENAI_API_KEY"] = "sk-good"
        ok = run("play", "dilemma", "--seats", "llm,tit_for_tat,pavlov", "--model", "m",
                 "--base-url", provider.openai_url, "--rounds", "1", "--out", "ok", cwd=bots,
                 env=env)
        assert ok.returncode == 0, ok.stderr
        dead = provider.openai_url
    gone = run("play", "dilemma", "--seats", "llm,tit_for_tat,pavlov", "--model", "m",
               "--base-url", dead, "--out", "gone", cwd=bots)
    assert gone.returncode == 2
    assert gone.stderr.strip() == f"error: cannot reach the model endpoint {dead} (--base-url)"
    assert not (bots / "gone").exists()


def test_no_provider_at_all_is_said_and_counted(bots: Path) -> None:
    done = run("play", "dilemma", "--seats", "llm,tit_for_tat,pavlov", "--rounds", "1",
               "--out", "np", cwd=bots)
    assert done.returncode == 0
    assert "note: no model provider is set" in done.stderr
    assert "fallbacks: seat 0 (llm) 2 disabled" in done.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--out", "exists"], "--out exists already holds a run"),
    (["--out", "afile"], "--out afile is a file, not a folder"),
    (["--seats", "nofile.py:X,tit_for_tat,pavlov"], "--seats: bot file nofile.py does not "
                                                    "exist"),
    (["--seats", "bots.py:Nope,tit_for_tat,pavlov"], "--seats: bots.py has no class Nope"),
    (["--rounds", "0"], "--rounds must be an integer in 1..1000 (got 0)"),
])
def test_user_errors_are_one_line_exit_2_and_lose_nothing(bots: Path, args: list[str],
                                                          message: str) -> None:
    (bots / "exists").mkdir()
    (bots / "exists" / "results.json").write_text("{}", encoding="utf-8")
    (bots / "afile").write_text("x", encoding="utf-8")
    done = run("play", "dilemma", *args, cwd=bots)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr
    assert (bots / "exists" / "results.json").read_text(encoding="utf-8") == "{}"
    assert not (bots / "runs").exists()


def test_default_run_folders_never_overwrite(bots: Path) -> None:
    for _ in range(2):
        assert run("play", "dilemma", "--seed", "5", "--rounds", "1", cwd=bots).returncode == 0
    assert sorted(p.name for p in (bots / "runs").iterdir()) == [
        "dilemma-standard-5", "dilemma-standard-5-2"]


def test_replay_verify_on_a_folder_and_on_garbage(bots: Path) -> None:
    assert run("play", "dilemma", "--rounds", "1", "--out", "r", cwd=bots).returncode == 0
    ok = run("replay", "verify", "r", cwd=bots)
    assert ok.returncode == 0 and "verifies" in ok.stdout
    (bots / "empty").mkdir()
    empty = run("replay", "verify", "empty", cwd=bots)
    assert empty.returncode == 2 and empty.stderr.strip() == (
        "error: FILE empty is a folder without a replay.json")


def test_export_says_why_it_wrote_no_examples(bots: Path) -> None:
    done = run("play", "dilemma", "--seats", "llm,tit_for_tat,pavlov", "--rounds", "1",
               "--transcript", "t.jsonl", "--out", "t", cwd=bots)
    assert done.returncode == 0, done.stderr
    export = run("export", "transcripts", "t.jsonl", "--out", "ft.jsonl", cwd=bots)
    assert export.returncode == 0
    assert "0 examples: no reply was accepted by the game (2 disabled)" in export.stdout


def test_a_clean_episode_lists_every_seat_with_no_fallbacks() -> None:
    result: Any = cogleague.play("dilemma", ["tit_for_tat", "pavlov", "always_defect"],
                                 rounds=1)
    assert result.results["faults"] == {"fallbacks": 0, "seats": [
        {"seat": i, "policy": p, "fallbacks": {}}
        for i, p in enumerate(["tit_for_tat", "pavlov", "always_defect"])]}
