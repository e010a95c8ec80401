"""The toy game with a bug: its second step raises, the message holding a server path (as a
real bug's message may: a file, a host, a key). Served to check that no such text reaches
the public results of the table it aborts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from cogleague.core.game import Event, StepDecisions
from server import toyinfo
from server.toyinfo import ServedToy

SECRET = "/srv/cogleague/private/policy-key-0123"


class CrashToy(ServedToy):
    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        if self.played >= 1:
            raise RuntimeError(f"could not read {SECRET}")
        return super().apply_step(decisions)


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> CrashToy:
    base = toyinfo.make(variant, overrides, seed, policy_names, seat_kinds)
    return CrashToy(base.num_seats, base.rounds, 5.0, seed or 0, policy_names)


GAME = replace(toyinfo.GAME, name="toycrash", version="toycrash-1", title="Toy (a buggy step)",
               make=make)
