"""The Python SDK for agent authors: subclass `Bot`, answer `on_turn`, and play it in-process or
against a table server with `play_seat` / `join_and_play` (or `cogleague bot run`)."""

from cogleague.client.bot import Bot, TurnInfo
from cogleague.client.connection import SeatOutcome, SeatRefused, join_and_play, play_seat
from cogleague.client.lobby import LobbyClient, LobbyError, SeatGrant

__all__ = ["Bot", "LobbyClient", "LobbyError", "SeatGrant", "SeatOutcome", "SeatRefused",
           "TurnInfo", "join_and_play", "play_seat"]
