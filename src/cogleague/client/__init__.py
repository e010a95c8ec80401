"""The Python SDK for agent authors: subclass `Bot`, answer `on_turn`."""

from cogleague.client.bot import Bot, TurnInfo

__all__ = ["Bot", "TurnInfo"]
