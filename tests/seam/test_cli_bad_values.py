"""A bad value for an option of `serve`, `profile`, `agent` or `bot new` is one line naming the
option, exit code 2, before anything is done: never a traceback, never a silent fallback (the
real CLI in a child process)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from seam.support import run_cli

UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing answers there


def refused(*args: str, cwd: Path) -> str:
    """stderr of a run that must exit 2 with a clean error (a hang is a failure too)."""
    try:
        done = run_cli(*args, cwd=cwd, timeout_s=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args} did not refuse its arguments: it ran on for 60 s")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    return done.stderr


def test_serve_refuses_an_unknown_log_level_before_it_opens_the_database(
        tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    err = refused("serve", "--port", "0", "--db", f"sqlite:///{db}", "--log-level", "loud",
                  cwd=tmp_path)
    assert "--log-level" in err and "warning" in err, err
    assert not db.exists()


def test_profile_refuses_an_out_it_cannot_write(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    err = refused("profile", "tit_for_tat", "--game", "dilemma", "--episodes", "1",
                  "--out", "folder", cwd=tmp_path)
    assert err.startswith("error: --out folder"), err


def test_profile_names_the_seed_option(tmp_path: Path) -> None:
    err = refused("profile", "tit_for_tat", "--game", "dilemma", "--seed", "-1", cwd=tmp_path)
    assert err.startswith("error: --seed must be"), err


@pytest.mark.parametrize("command", [
    ["register", "ann", "--games", "dilemma", "--kind", "model"],
    ["version", "ann"],
])
def test_agent_refuses_a_prompt_file_it_cannot_read(command: list[str], tmp_path: Path) -> None:
    err = refused("agent", *command, "--server", UNREACHABLE, "--key", "k", "--prompt",
                  "missing.txt", cwd=tmp_path)
    assert err.startswith("error: --prompt missing.txt"), err


@pytest.mark.parametrize("tables", ["0", "-3"])
def test_agent_run_refuses_a_max_tables_below_one(tables: str, tmp_path: Path) -> None:
    bot = Path(__file__).resolve().parents[2] / "examples" / "dilemma_bot.py"
    err = refused("agent", "run", f"{bot}:PromiseKeeper", "--server", UNREACHABLE, "--key", "k",
                  "--agent", "ann", "--max-tables", tables, cwd=tmp_path)
    assert "--max-tables" in err and "1" in err, err


def test_bot_new_names_the_game_argument(tmp_path: Path) -> None:
    err = refused("bot", "new", "chess", cwd=tmp_path)
    assert err.startswith("error: GAME must be one of"), err
    assert not list(tmp_path.iterdir())


def test_the_log_levels_serve_accepts_are_uvicorns() -> None:
    from uvicorn.config import LOG_LEVELS

    from cogleague.cli.serve import LOG_LEVELS as ACCEPTED

    assert set(ACCEPTED) == set(LOG_LEVELS)


@pytest.mark.parametrize(("opponents", "says"), [
    ("nope", "error: --opponents: unknown dilemma baseline 'nope'"),
    (",", "error: --opponents must be a comma-separated list"),
])
def test_profile_blames_a_bad_opponent_on_opponents_not_on_policy(
        opponents: str, says: str, tmp_path: Path) -> None:
    err = refused("profile", "tit_for_tat", "--game", "dilemma", "--episodes", "1",
                  "--opponents", opponents, cwd=tmp_path)
    assert err.startswith(says), err


@pytest.mark.parametrize(("option", "value"), [
    ("--policy-dir", "a-file"),      # a folder the server writes uploads into
    ("--record-models", "a-file"),   # a folder the server writes recordings into
    ("--replay-models", "missing"),  # a folder the server answers model seats from
])
def test_serve_refuses_a_folder_option_that_cannot_be_that_folder(
        option: str, value: str, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    db = tmp_path / "s.db"
    err = refused("serve", "--port", "0", "--db", f"sqlite:///{db}", option, value, cwd=tmp_path)
    assert err.startswith(f"error: {option} {value}"), err
    assert not db.exists()


def test_play_says_the_default_line_up_is_what_no_longer_fits(tmp_path: Path) -> None:
    err = refused("play", "commons", "--num-players", "3", cwd=tmp_path)
    assert err.startswith("error: --seats must list exactly 3 policies (got 6"), err
    assert "cleanup variant's line-up" in err and "pass --seats" in err, err


@pytest.mark.parametrize("command", [["replay", "verify"], ["grade"],
                                     ["replay", "open", "--no-browser"]])
def test_a_replay_nested_too_deep_to_read_is_refused_in_one_line(
        command: list[str], tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    err = refused(*command, "deep.json", cwd=tmp_path)
    assert err.startswith("error:") and "deep.json" in err, err


@pytest.mark.parametrize(("name", "text", "command"), [
    ("deep.jsonl", "[" * 100_000 + "]" * 100_000, ["export", "transcripts", "deep.jsonl",
                                                     "--out", "chat.jsonl"]),
    ("deep.toml", "a = " + "[" * 100_000 + "]" * 100_000, ["play", "dilemma", "--prices",
                                                            "deep.toml"]),
])
def test_a_transcript_or_price_table_nested_too_deep_is_refused_in_one_line(
        name: str, text: str, command: list[str], tmp_path: Path) -> None:
    (tmp_path / name).write_text(text)
    err = refused(*command, cwd=tmp_path)
    assert err.strip().splitlines()[-1].startswith("error:") and name in err, err


@pytest.mark.parametrize("content", [b"\xff\xfe not utf-8",
                                     b"[" * 100_000 + b"]" * 100_000])
def test_play_refuses_a_recording_it_cannot_read_in_one_line(content: bytes,
                                                              tmp_path: Path) -> None:
    prompt = Path(__file__).resolve().parents[2] / "prompts" / "dilemma" / "grim.txt"
    seats = f"llm:{prompt},tit_for_tat,pavlov,always_defect"
    args = ("play", "dilemma", "--seed", "1", "--seats", seats, "--replay", "rec")
    missing = refused(*args, cwd=tmp_path)  # names the file this episode's recording is
    recording = Path(tmp_path / missing.split(" at ", 1)[1].split(" ", 1)[0])
    recording.parent.mkdir()
    recording.write_bytes(content)
    err = refused(*args, cwd=tmp_path)
    assert err.strip().splitlines()[-1].startswith("error:") and recording.name in err, err


@pytest.mark.parametrize(("port", "shown"), [
    ("abc", "'abc'"), ("8000.5", "'8000.5'"), ("-1", "-1"), ("65536", "65536"), ("", "''"),
])
def test_serve_refuses_a_bad_port_in_one_line_naming_the_option_and_range(
        port: str, shown: str, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    err = refused("serve", "--port", port, "--db", f"sqlite:///{db}", cwd=tmp_path)
    assert err == f"error: --port must be an integer in 0..65535 (got {shown})\n", err
    assert not db.exists()


def test_bot_run_names_the_bot_argument_when_its_file_fails_to_import(tmp_path: Path) -> None:
    (tmp_path / "broken_bot.py").write_text("import no_such_dependency\n", encoding="utf-8")
    err = refused("bot", "run", "broken_bot.py:Broken", "--server", UNREACHABLE, "--key", "k",
                  "--table", "t", cwd=tmp_path)
    assert err.startswith("error: BOT: bot file broken_bot.py fails to import: "
                          "ModuleNotFoundError: No module named 'no_such_dependency'"), err
