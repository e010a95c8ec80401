"""Text a model writes is read by the game's own parser (`CommonsGame.parse` decodes the first
JSON object of the reply), so a JSON escape such as ``\\ud800`` in it becomes a lone surrogate
that no file, socket or database can hold. The rules truncate free text "on rune boundaries"
(the seed): a lone surrogate is not a rune and is read as U+FFFD, as Go's decoder reads it, and
the artifacts are still written (rules §12)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.core.game import Turn
from cogleague.core.text import text_fault
from cogleague.games.commons.actions import to_text
from cogleague.games.commons.config import make_config
from cogleague.games.commons.game import CommonsGame
from cogleague.seats.factory import make_seats

SURROGATES = [chr(c) for c in range(0xD800, 0xE000)]
REPLY = '{"harvest": 1, "clean": 1, "message": "hi \\ud800 there", "note": "\\udfff"}'


class TextSeat:
    """A seat that answers in text, as a model does (the game parses it)."""

    kind = "remote"
    name = "text"

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return REPLY


def test_an_escaped_lone_surrogate_in_a_text_reply_is_read_as_a_replacement_character() -> None:
    config = make_config("cleanup", {"rounds": 2})
    lineup = ["remote"] + ["steward"] * 5
    game = CommonsGame(config, lineup)
    seats: list[Any] = [TextSeat(), *make_seats(game, ["steward"] * 6)[1:]]
    outcome = play_headless(game, seats)
    doc = game.replay_document(outcome.log)
    text = jsonio.dumps(doc, sort_keys=True)
    assert text_fault(text) is None
    assert text.encode("utf-8")  # the replay can be written
    assert game.records[1]["messages"] == [{"alias": game.aliases[0], "text": "hi \ufffd there"}]
    assert game.notes[0] == "\ufffd"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.characters(codec=None, categories=None),
                         st.sampled_from(SURROGATES)), max_size=40).map("".join),
       st.integers(1, 60))
def test_cleaned_text_is_always_storable(text: str, limit: int) -> None:
    out = to_text(text, limit)
    assert text_fault(out) is None and len(out) <= limit
