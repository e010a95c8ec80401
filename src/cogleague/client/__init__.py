"""The Python SDK for agent authors: subclass `Bot`, answer `on_turn`, and play it in-process or
against a table server with `play_seat` / `join_and_play` (or `cogleague bot run`), or keep a
registered league agent online with `run_agent` (or `cogleague agent run`)."""

from cogleague.client.agent import AgentRefused, AgentRun, run_agent
from cogleague.client.bot import Bot, TurnInfo
from cogleague.client.connection import SeatOutcome, SeatRefused, join_and_play, play_seat
from cogleague.client.lobby import LobbyClient, LobbyError, SeatGrant

__all__ = ["AgentRefused", "AgentRun", "Bot", "LobbyClient", "LobbyError", "SeatGrant",
           "SeatOutcome", "SeatRefused", "TurnInfo", "join_and_play", "play_seat", "run_agent"]
