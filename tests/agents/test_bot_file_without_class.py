"""A bot file named without its class (``--seats my_bot.py,…``, the README's bot with
``:MyBot`` left off) is refused as a bot file that lacks its class, naming the classes the
file holds; it was refused as an unknown baseline, which told a newcomer nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

import cogleague

BOT = '''
from cogleague import Bot

class MyBot(Bot):
    def on_turn(self, turn):
        return {"action": "cooperate"}
'''


@pytest.mark.parametrize(("game", "others"), [("dilemma", ["pavlov", "random"]),
                                              ("ledger", ["saint"] * 7),
                                              ("commons", ["steward"] * 5)])
def test_a_bot_file_without_its_class_names_the_form_and_the_classes(
        game: str, others: list[str], tmp_path: Path) -> None:
    bot = tmp_path / "my_bot.py"
    bot.write_text(BOT, encoding="utf-8")
    with pytest.raises(cogleague.ConfigError) as err:
        cogleague.play(game, [str(bot), *others], seed=1)
    assert str(err.value) == (f"seats: {bot} is a bot file: name its class, FILE.py:CLASS "
                              f"(Bot classes there: MyBot)")
    assert err.value.field == "seats"


def test_a_missing_bot_file_without_a_class_says_it_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(cogleague.ConfigError, match=r"^seats: bot file .*nope\.py does not "
                                                    r"exist$"):
        cogleague.play("dilemma", [str(tmp_path / "nope.py"), "pavlov", "random"], seed=1)
