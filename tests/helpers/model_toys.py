"""Toy games for model-seat tests: the runner's ToyGame, but read from model text."""

from __future__ import annotations

from typing import Any

from cogleague.core.errors import IllegalAction
from cogleague.core.game import Parsed, Turn
from cogleague.core.text import first_object
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm import ModelSeat, make_model_seat
from helpers.toygame import ToyGame

HINT = 'reply with one JSON object {"n": N}, N an integer 0..9'


class TextToyGame(ToyGame):
    """Each round every seat names a number 0..9, as a model would: in text."""

    name = "texttoy"

    def system_text(self, seat: int) -> str:
        return f"You play seat {seat} of a number game. Each round name a number 0..9."

    @staticmethod
    def prompt_fn(view: dict[str, Any]) -> str:
        return f"Round {view['round'] + 1}. You are seat {view['seat']}. {HINT}."

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        if isinstance(raw, str):
            doc = first_object(raw)
            if doc is None:
                raise IllegalAction("no JSON object in the reply", hint=HINT, code="parse")
            raw = doc
        return super().parse(turn, raw)


def options_for(server: Any, shape: str = "openai", **kw: Any) -> ModelOptions:
    """Model options pointing at the provider test server in one of its two shapes."""
    url = server.openai_url if shape == "openai" else server.anthropic_url
    return ModelOptions(provider=shape, model=f"test-{shape}", base_url=url, api_key="test-key",
                        **kw)


def model_seats(game: Any, options: ModelOptions, count: int | None = None,
                prompt: str = "") -> list[ModelSeat]:
    n = game.num_seats if count is None else count
    return [make_model_seat(game, i, "llm", options, prompt=prompt) for i in range(n)]
