"""A bad ``llm:PATH`` seat is refused as every other bad `--seats` entry is: one line, exit 2,
naming `--seats` (the option the user typed) and the file, before anything is played."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.errors import ConfigError
from cogleague.games.registry import get
from cogleague.seats.factory import ModelOptions, make_seat
from helpers.model_toys import TextToyGame

REST = "tit_for_tat,pavlov,always_defect"


def bad_specs(tmp: Path) -> list[tuple[str, str]]:
    """(seat, what the refusal says after ``--seats: ``) for each way a prompt file fails."""
    (tmp / "long.txt").write_text("x" * 4001, encoding="utf-8")
    (tmp / "latin1.txt").write_bytes(b"caf\xe9")
    (tmp / "folder").mkdir()
    return [
        ("llm:nope.txt", "prompt file 'nope.txt' cannot be read (No such file or directory)"),
        ("llm:", "prompt file missing: write llm:PATH (or llm for none)"),
        (f"llm:{tmp / 'long.txt'}", f"prompt file {str(tmp / 'long.txt')!r} must hold "
                                    "0..4000 code points"),
        (f"llm:{tmp / 'latin1.txt'}", f"prompt file {str(tmp / 'latin1.txt')!r} is not UTF-8"),
        (f"llm:{tmp / 'folder'}", f"prompt file {str(tmp / 'folder')!r} cannot be read"),
    ]


def test_a_bad_prompt_file_is_a_seats_error_naming_the_file(tmp_path: Path) -> None:
    for seat, said in bad_specs(tmp_path):
        with pytest.raises(ConfigError) as refused:
            make_seat(TextToyGame(seats=1, rounds=1), 0, seat, ModelOptions())
        assert refused.value.field == "seats", seat
        assert str(refused.value).startswith(f"seats: {said}"), str(refused.value)


def test_the_cli_names_seats_for_a_bad_prompt_file_as_for_every_other_bad_seat(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    specs = [*bad_specs(tmp_path), ("nobody", "unknown dilemma baseline 'nobody'"),
             ("policy:nope.npz", "policy file nope.npz: cannot be opened"),
             ("nope.py:Bot", "bot file nope.py does not exist")]
    for seat, said in specs:
        done = CliRunner().invoke(app, ["play", "dilemma", "--seats", f"{seat},{REST}",
                                        "--rounds", "1", "--out", str(out)])
        assert done.exit_code == 2, (seat, done.output)
        lines = done.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: --seats: {said}"), lines
    assert not out.exists()


@pytest.mark.parametrize(("seat", "said"), [
    ("mine.txt", "'mine.txt' is not a policy name: a prompt file plays as llm:mine.txt"),
    ("prompts/fair.md", "'prompts/fair.md' is not a policy name: a prompt file plays as "
                        "llm:prompts/fair.md"),
    ("LLM:mine.txt", "'LLM:mine.txt' is not a policy name: write llm:mine.txt"),
    ("llm :mine.txt", "'llm :mine.txt' is not a policy name: write llm:mine.txt"),
    ("Axelrod:TitForTat", "'Axelrod:TitForTat' is not a policy name: write axelrod:TitForTat"),
])
def test_a_prompt_file_named_the_wrong_way_says_how_to_name_it(seat: str, said: str) -> None:
    """These read as an unknown baseline, listing the baselines: nothing said that a prompt
    file is named llm:PATH, or that seat kinds are written in lower case."""
    with pytest.raises(ConfigError) as refused:
        make_seat(get("dilemma").make(None, {}, 1, [seat, *REST.split(",")], None), 0, seat)
    assert (refused.value.field, str(refused.value)) == ("seats", f"seats: {said}")
