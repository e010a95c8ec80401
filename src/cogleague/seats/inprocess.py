"""Run an SDK `Bot` in-process as a seat (league, CLI): same class, no network."""

from __future__ import annotations

import inspect
from typing import Any

from cogleague.client.bot import Bot, TurnInfo
from cogleague.core.game import Game, Turn


class BotSeat:
    kind = "remote"  # a program, not a baseline: it gets the runner's timeouts and retries

    def __init__(self, bot: Bot, game: Game, seat: int, name: str) -> None:
        self.bot = bot
        self.game = game
        self.seat = seat
        self.name = name

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        info = TurnInfo(turn_id=turn.turn_id, game=self.game.name, seat=turn.seat,
                        legal_actions=turn.legal_actions, visible_state=turn.view,
                        prompt_text=turn.prompt_text, hint=hint)
        reply = self.bot.on_turn(info)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply
