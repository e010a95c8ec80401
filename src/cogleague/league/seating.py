"""Balanced rotation: who sits where, episode by episode.

The schedule is a sequence of *blocks*. A block is one base line-up and its distinct cyclic
seat rotations; all episodes of a block share one seed, so every member meets the same deal
from every seat (a duplicate-bridge comparison). Guarantees, for any number of episodes:

- within a block each policy takes every seat position once per copy it has in the line-up,
  so over a whole schedule a policy's counts per seat differ by at most one (at most its
  number of copies, when duplicates fill a table and the last block is cut short);
- base line-ups are drawn greedily: least-played policies first (their block counts differ by
  at most one), then those that have met the others chosen so far least often. This greedy
  draw is not an exact design: pair meetings come within a few of even (docs/league.md lists
  measured spreads);
- with fewer policies than seats, every policy sits in every episode and the extra seats go
  to duplicates in turn (copy counts differ by at most one); duplicates are marked ``name#2``.

The schedule is prefix-stable: raising the episode count appends episodes and never changes the
ones already scheduled, so a finished league can be extended and resumed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from cogleague.core.errors import ConfigError


class Seating(NamedTuple):
    """One scheduled line-up: its block (the seed is shared per block) and policies by seat.
    A tuple: a schedule makes one per episode, and a frozen dataclass cost 2 µs each."""

    block: int
    rotation: int
    lineup: tuple[str, ...]


@functools.lru_cache(maxsize=4096)
def _rotations(base: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The distinct cyclic rotations of a line-up (fewer than its length when it is periodic,
    e.g. ``a b a b``; each policy still takes every seat once per copy across them). Cached:
    a schedule draws the same few base line-ups over and over."""
    k = len(base)
    period = next(p for p in range(1, k + 1) if k % p == 0
                  and all(base[i] == base[(i + p) % k] for i in range(k)))
    return [tuple(base[(s + r) % k] for s in range(k)) for r in range(period)]


class _Draw:
    """State of the greedy base line-up draw."""

    def __init__(self, policies: Sequence[str], seats: int) -> None:
        self.policies = list(policies)
        self.seats = seats
        n = len(policies)
        self.blocks = [0] * n
        self.extra = [0] * n
        self.met = [[0] * n for _ in range(n)]
        self.drawn = 0

    def next_base(self) -> list[str]:
        n, k = len(self.policies), self.seats
        turn = self.drawn
        self.drawn += 1
        if n >= k:
            chosen: list[int] = []
            # each candidate's meetings with those chosen so far, kept as they are chosen:
            # the worst pairing and the total (only for those still to choose from)
            worst, total = [0] * n, [0] * n
            blocks, met = self.blocks, self.met
            # least played; then the one whose worst pairing so far is least repeated; then
            # fewest meetings overall; then a tie-break that turns every block
            turns = [(i - turn) % n for i in range(n)]
            rest = list(range(n))
            for _ in range(k):
                # the least key, the lowest index among equals (`rest` ascends)
                pick = min([(blocks[i], worst[i], total[i], turns[i], i) for i in rest])[4]
                rest.remove(pick)
                chosen.append(pick)
                for i in rest:
                    m = met[i][pick]
                    total[i] += m
                    if m > worst[i]:
                        worst[i] = m
        else:
            copies = [k // n] * n
            for i in sorted(range(n), key=lambda i: (self.extra[i], i))[: k % n]:
                copies[i] += 1
                self.extra[i] += 1
            # first copies of everyone, then second copies, …: copies spread around the table
            chosen = [i for c in range(max(copies)) for i in range(n) if copies[i] > c]
        for i in set(chosen):
            self.blocks[i] += 1
        for a in chosen:
            row = self.met[a]
            for b in chosen:
                row[b] += 1
            row[a] -= chosen.count(a)  # no meeting with oneself
        return [self.policies[i] for i in chosen]


def balanced(policies: Sequence[str], seats: int, episodes: int, *,
             duplicates: bool = True) -> list[Seating]:
    """The first `episodes` seatings of the balanced rotation of `policies` over `seats`."""
    if len(set(policies)) != len(policies) or not policies:
        raise ConfigError("policies", "policies must be a non-empty list of distinct names")
    if seats < 1:
        raise ConfigError("seats", f"seats must be at least 1 (got {seats})")
    if len(policies) < seats and not duplicates:
        raise ConfigError("seating.duplicates",
                          f"seating.duplicates is false but {len(policies)} policies cannot fill "
                          f"{seats} seats without duplicates")
    return list(_generate(policies, seats, episodes))


def _generate(policies: Sequence[str], seats: int, episodes: int) -> Iterator[Seating]:
    draw = _Draw(policies, seats)
    made = 0
    block = 0
    while made < episodes:
        for rotation, lineup in enumerate(_rotations(tuple(draw.next_base()))):
            if made == episodes:
                return
            yield Seating(block, rotation, lineup)
            made += 1
        block += 1
