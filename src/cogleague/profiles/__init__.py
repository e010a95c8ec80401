"""Behaviour profiles: how a policy plays, measured against a fixed battery of probe opponents.

A game that supports profiles declares ``extras["probes"]`` in its descriptor: an object with
the `GameProbes` shape (`battery.py`) — its traits, the probe episodes, the probe seats and the
measurement of one episode. This package plays the battery (`runner.py`), puts intervals on the
traits (`intervals.py`) and renders them (`render.py`). See `docs/profiles.md`.
"""

from cogleague.profiles.battery import GameProbes, ProbeEpisode, Trait, probes_for
from cogleague.profiles.runner import Profile, TraitValue, profile

__all__ = ["GameProbes", "ProbeEpisode", "Profile", "Trait", "TraitValue", "probes_for",
           "profile"]
