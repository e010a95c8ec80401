"""No host names a game: the grep rule of the seam (issue 12, item 1).

``grep -rnE '"(ledger|commons|dilemma)"' src/cogleague`` outside ``games/`` finds nothing, and
the same over ``web/static/js``: per-game knowledge lives in the game's package (its descriptor,
its ``viewer.js``), and hosts read it from there."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "cogleague"
GAME_NAME = re.compile(r'"(ledger|commons|dilemma)"')
JS = PACKAGE / "web" / "static" / "js"
LEAGUE_EXAMPLE = PACKAGE / "league" / "example.toml"


def hits(files: list[Path]) -> list[str]:
    """``path:line: text`` for every line that names a game in a string literal (grep -rnE)."""
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary files (images, fonts): grep reports no line of them either
        for number, line in enumerate(text.splitlines(), 1):
            if GAME_NAME.search(line):
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    return found


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def outside_games() -> list[Path]:
    return [p for p in files_under(PACKAGE)
            if not p.is_relative_to(PACKAGE / "games") and not p.is_relative_to(JS)]


def test_the_rule_sees_a_game_name() -> None:
    """The pattern finds what it must (so an empty result below means something)."""
    sample = PACKAGE / "games" / "dilemma" / "descriptor.py"
    assert hits([sample]), "the descriptor declares name=\"dilemma\""
    assert not GAME_NAME.search("the ledger of commons")  # words in prose are not literals


def test_no_host_module_names_a_game() -> None:
    found = hits(outside_games())
    assert not found, "hosts must read the descriptor, not name a game:\n" + "\n".join(found)


def test_the_example_league_is_built_from_the_descriptors() -> None:
    """The template names no game; `cogleague league init` fills it from each installed game's
    `league_example`, so every built-in game (and any plugin declaring one) is in it."""
    from cogleague.games import registry
    from cogleague.league.example import example_league

    assert not hits([LEAGUE_EXAMPLE])
    text = example_league()
    for desc in registry.available():
        if desc.league_example:
            assert f'name = "{desc.name}"' in text


def test_no_web_script_names_a_game() -> None:
    """Per-game viewers live in games/<game>/viewer.js; the shell's scripts name no game."""
    found = hits(files_under(JS))
    assert not found, "\n".join(found)
