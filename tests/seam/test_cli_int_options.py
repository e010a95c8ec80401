"""Every integer option of the CLI refuses a bad value in one line that names the option and
its allowed range (`core/config.read_int` words it; `cli/common.int_in` takes it for typer),
exit code 2, before anything is done: never click's three-line "Input should be a valid
integer" without a range. The structural test walks the whole command tree, so an integer
option added later without the shared parser fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer import _click as click
from typer.testing import CliRunner

from cogleague.cli import COMMANDS, app
from cogleague.cli.root import load_command
from cogleague.games import registry
from seam.support import run_cli

UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing answers there
BOT = str(Path(__file__).resolve().parents[2] / "examples" / "dilemma_bot.py") + ":PromiseKeeper"
ONE_LINE = re.compile(r"error: (--[a-z-]+) must be an integer (in -?\d+\.\.\d+|of at least "
                      r"-?\d+) \(got [^\n]+\)\n")

CASES = [
    (["bot", "run", BOT, "--server", UNREACHABLE, "--key", "k", "--table", "t", "--seat", "abc"],
     "--seat"),
    (["bot", "run", BOT, "--server", UNREACHABLE, "--key", "k", "--table", "t", "--seat", "-1"],
     "--seat"),
    (["play", "dilemma", "--seed", "abc"], "--seed"),
    (["play", "dilemma", "--rounds", "abc"], "--rounds"),
    (["play", "ledger", "--rounds", "2.5"], "--rounds"),
    (["table", "new", "dilemma", "--key", "k", "--server", UNREACHABLE, "--open", "abc"],
     "--open"),
    (["table", "new", "dilemma", "--key", "k", "--server", UNREACHABLE, "--open", "-1"],
     "--open"),
    (["table", "new", "dilemma", "--key", "k", "--server", UNREACHABLE, "--seed", "x"], "--seed"),
    (["account", "new", "ann", "--server", UNREACHABLE, "--credits", "abc"], "--credits"),
    (["account", "new", "ann", "--server", UNREACHABLE, "--credits", "-4"], "--credits"),
    (["agent", "register", "a", "--games", "dilemma", "--server", UNREACHABLE, "--key", "k",
      "--cap", "abc"], "--cap"),
    (["agent", "register", "a", "--games", "dilemma", "--server", UNREACHABLE, "--key", "k",
      "--cap", "65"], "--cap"),  # the server's MAX_CAP, said before any request
    (["agent", "set", "a", "--server", UNREACHABLE, "--key", "k", "--cap", "65"], "--cap"),
    (["agent", "register", "a", "--games", "dilemma", "--server", UNREACHABLE, "--key", "k",
      "--token-budget", "0"], "--token-budget"),
    (["agent", "run", BOT, "--server", UNREACHABLE, "--key", "k", "--agent", "a",
      "--max-tables", "abc"], "--max-tables"),
    (["league", "run", "missing.toml", "--workers", "abc"], "--workers"),
    (["league", "run", "missing.toml", "--chunk-size", "0"], "--chunk-size"),
    (["league", "standings", "missing.toml", "--resamples", "5"], "--resamples"),
    (["league", "standings", "missing.toml", "--resamples", "abc"], "--resamples"),
    (["profile", "tit_for_tat", "--game", "dilemma", "--episodes", "abc"], "--episodes"),
    (["profile", "tit_for_tat", "--game", "dilemma", "--seed", "abc"], "--seed"),
    (["replay", "open", "missing.json", "--port", "abc"], "--port"),
    (["replay", "open", "missing.json", "--port", "70000"], "--port"),
]


@pytest.mark.parametrize(("argv", "option"), CASES, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else v)
def test_a_bad_integer_option_is_one_line_naming_the_option_and_its_range(
        argv: list[str], option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, argv, prog_name="cogleague", terminal_width=400)
    assert done.exit_code == 2, (done.exit_code, done.output)
    told = ONE_LINE.fullmatch(done.stderr)
    assert told is not None, done.stderr
    assert told.group(1) == option, done.stderr
    assert not list(tmp_path.iterdir())  # refused before anything was written


def _int_options(command: click.Command, path: str) -> list[tuple[str, click.Parameter]]:
    found = []
    if hasattr(command, "list_commands"):  # a group: its commands
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                found += _int_options(sub, f"{path} {name}")
        return found
    for param in command.params:
        annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if param.param_type_name == "option" and annotation is int:
            found.append((f"{path} {param.opts[0]}", param))
    return found


def test_every_integer_option_in_the_command_tree_goes_through_the_shared_parser() -> None:
    options = [opt for name in COMMANDS for opt in _int_options(load_command(name),
                                                                 f"cogleague {name}")]
    assert any(name.endswith("--seat") for name, _ in options)  # the walk reaches them
    assert len(registry.names()) >= 3
    without = [name for name, param in options
               if param.type_descriptor.parameter_info.parser is None]  # type: ignore[attr-defined]
    assert not without, without


@pytest.mark.parametrize("seed", ["x", "ten", "2.5"])
def test_the_console_script_words_a_bad_seed_as_the_commands_do(seed: str,
                                                                tmp_path: Path) -> None:
    # `cogleague` itself, whose argument precheck answers some errors before typer loads
    done = run_cli("play", "ledger", "--seed", seed, cwd=tmp_path, timeout_s=120)
    seed_max = registry.get("ledger").seed_max
    assert done.returncode == 2
    assert done.stderr == f"error: --seed must be an integer in 0..{seed_max} (got {seed!r})\n"
