"""Facts the docs state about the product, checked against the product: the conformance
checks a page lists, a file a page shows whole, a command's output and default folder, the
figures of a committed example league, and what a game package can type-check against."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from cogleague.testing import CHECKS
from helpers.docs import ROOT, blocks

CLI = Path(sys.executable).with_name("cogleague")


def page(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def cogleague(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(CLI), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "COLUMNS": "100"}, check=False)
    assert done.returncode == 0, f"cogleague {' '.join(args)}\n{done.stdout}\n{done.stderr}"
    return done


def test_the_conformance_page_lists_every_check_in_the_order_it_runs() -> None:
    table = page("conformance.md").split("## The checks", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", table, flags=re.M)
    assert listed == list(CHECKS)


def test_the_example_bot_the_bots_page_shows_whole_is_the_shipped_file() -> None:
    text = page("bots.md").split("## An example bot", 1)[1].split("\n## ", 1)[0]
    assert "whole of `examples/dilemma_bot.py`" in text
    ((_, shown),) = blocks(text, "python")
    assert shown == (ROOT / "examples" / "dilemma_bot.py").read_text(encoding="utf-8")


def test_the_games_listing_writing_a_game_shows_is_what_cogleague_games_prints(
        tmp_path: Path) -> None:
    pytest.importorskip("cogleague_threshold", reason="examples/threshold is not installed")
    text = page("writing-a-game.md").split("## 2. The entry point", 1)[1]
    shown = re.search(r"lists it, with where it came from:\n\n```\n(.*?)```", text, re.S)
    assert shown, "the page shows the listing"
    printed = cogleague("games", cwd=tmp_path).stdout
    assert " ".join(shown.group(1).split()) in " ".join(printed.split()), printed


@pytest.mark.parametrize("game", ["dilemma", "ledger"])
def test_the_default_run_folder_is_the_one_the_game_page_names(game: str,
                                                               tmp_path: Path) -> None:
    named = re.search(r"\(default `(runs/[^`]+)`\)", page(f"{game}.md"))
    assert named and named.group(1) == f"runs/{game}-<variant>-<seed>/"
    rounds = {"dilemma": "2", "ledger": "4"}[game]
    out = cogleague("play", game, "--seed", "5", "--rounds", rounds, cwd=tmp_path).stdout
    folder = tmp_path / "runs" / f"{game}-standard-5"
    assert (folder / "results.json").is_file() and (folder / "replay.json").is_file(), out


def test_the_rl_pages_league_figures_are_what_the_committed_policy_scores(
        tmp_path: Path) -> None:
    """docs/rl.md quotes the example league of the committed policy; the league is seeded, so
    running it again gives those figures."""
    shutil.copytree(ROOT / "examples" / "rl", tmp_path / "examples" / "rl",
                    ignore=shutil.ignore_patterns("*.db", "*.db-*"))
    cogleague("league", "run", "examples/rl/league.toml", "--workers", "1", cwd=tmp_path)
    table = cogleague("league", "standings", "examples/rl/league.toml", cwd=tmp_path).stdout
    quoted = re.search(r"the committed policy scored ([\d.]+ \[[\d.]+, [\d.]+\]) per episode",
                       " ".join(page("rl.md").split()))
    assert quoted, "rl.md quotes the policy's league score"
    assert quoted.group(1) in table, table
    strength = re.search(r"Bradley–Terry strength \(([\d.]+ \[[\d.]+, [\d.]+\])\)",
                         " ".join(page("rl.md").split()))
    assert strength and strength.group(1) in table, table


def test_a_separately_installed_game_can_type_check_against_cogleague() -> None:
    """writing-a-game.md says cogleague ships `py.typed`: mypy reads its hints from an
    installed copy."""
    assert "ships `py.typed`" in page("writing-a-game.md")
    assert resources.files("cogleague").joinpath("py.typed").is_file()


def test_a_hosted_provider_without_its_key_stops_the_command_as_models_md_shows(
        tmp_path: Path) -> None:
    shown = re.search(r"\n\$ (cogleague play [^\n]+)\n(error: [^\n]+)\n",
                      page("models.md").split("**A provider that cannot serve**", 1)[1])
    assert shown, "models.md shows the command and its error"
    (tmp_path / "prompts").symlink_to(ROOT / "prompts")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    argv = [str(CLI), *shown.group(1).split()[1:]]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**env, "COLUMNS": "200"}, check=False)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.strip() == shown.group(2)


def test_table_new_help_gives_the_open_seats_default_tables_md_gives(tmp_path: Path) -> None:
    """tables.md: `--open N` defaults to one seat with `--fill`, every seat without; the help
    must not print a contradicting ``[default: 0]`` beside it."""
    assert "by default one with `--fill`, every seat without" in " ".join(
        page("tables.md").split())
    text = " ".join(cogleague("table", "new", "--help", cwd=tmp_path).stdout.split())
    entry = text.split("--open", 1)[1].split(" --seed", 1)[0]
    assert "default: 1 with --fill, else every seat" in entry and "[default: 0]" not in entry


def test_the_rake_ranges_tables_md_gives_are_the_servers(tmp_path: Path) -> None:
    """tables.md: `serve --rake-bps` takes 0..10000 basis points and no more than a paid game
    allows (the dilemma's 0..2000): both bounds are the ones `cogleague serve` refuses by,
    before it binds a port or makes a database."""
    text = " ".join(page("tables.md").split())
    assert "0..10000 basis points, and no more than a paid game allows, which for the dilemma " \
           "is 0..2000" in text
    for value, rng in (("10001", "0..10000"), ("2001", "0..2000")):
        done = subprocess.run([str(CLI), "serve", "--rake-bps", value, "--port", "0", "--db",
                               f"sqlite:///{tmp_path / 'r.db'}"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"--rake-bps must be an integer in {rng}" in done.stderr, done.stderr
    assert not (tmp_path / "r.db").exists()


def test_the_play_signature_api_md_gives_is_the_functions() -> None:
    import inspect

    import cogleague

    text = " ".join(page("api.md").split())
    shown = re.search(r"`cogleague\.play\((.*?)\)`:", text)
    assert shown, "api.md gives cogleague.play's signature"
    params = inspect.signature(cogleague.play).parameters.values()
    actual = ", ".join(
        ("**" + p.name if p.kind is p.VAR_KEYWORD else p.name)
        + ("" if p.default is p.empty else f"={p.default!r}".replace("'", '"'))
        for p in params)
    actual = actual.replace("variant=", "*, variant=", 1).replace("**kwargs", "**options")
    assert shown.group(1) == actual
    table = page("api.md").split(shown.group(0)[:20], 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"^\| `(\w+)` \|", table, flags=re.M))
    assert {p.name for p in params if p.kind is not p.VAR_KEYWORD} <= documented


def test_the_core_modules_the_threshold_game_imports_are_the_ones_writing_a_game_names() -> None:
    """writing-a-game §1 lists the `cogleague.core` modules the example game imports: every
    one it does import is named there (a reader copying the layout learns what it may use)."""
    text = " ".join(page("writing-a-game.md").split("## 2. The entry point")[0].split())
    listed = re.search(r"imports only from `cogleague.core` \((.*?)\)\.", text)
    assert listed, "the page says what the example imports"
    named = set(re.findall(r"`(\w+)`", listed.group(1)))
    source = "\n".join(f.read_text(encoding="utf-8") for f in
                       (ROOT / "examples" / "threshold" / "src").rglob("*.py"))
    imported = set(re.findall(r"from cogleague\.core\.(\w+) import", source)) | set(
        re.findall(r"from cogleague\.core import (\w+)", source))
    assert imported and imported <= named, sorted(imported - named)
    assert not re.search(r"(?:from|import) cogleague\.(?!core\b)", source)
