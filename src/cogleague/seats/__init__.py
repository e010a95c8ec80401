"""Seats: how a seat decides — a scripted baseline, a language model, or a remote program."""

from cogleague.seats.base import Seat
from cogleague.seats.scripted import ScriptedSeat

__all__ = ["ScriptedSeat", "Seat"]
