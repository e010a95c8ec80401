"""`axelrod:NAME`: any of the Axelrod library's published strategies as a dilemma seat.

The seat sees only what any seat sees: its `visible_state` (the seed's shape — ``opponent``,
``rounds_total``, ``payoffs`` and, per own pairing, the revealed ``history`` of ``you`` /
``them``). It keeps one Axelrod player per opponent and plays the library's own protocol:
once per round `strategy(opponent)`, then `update_history(play, coplay)` for both sides with
the revealed choices (a mirror player carries the opponent's moves). So a pair of these seats
plays exactly the library's `Match` (`tests/models/test_axelrod_seats.py` checks it).

Stochastic players are seeded per pairing as `Match(seed=pair_seed(...))` seeds its players:
one draw of that generator per *stochastic* player, in seat order, so a stochastic higher seat
whose lower seat is deterministic takes the first draw, as in `Match`. Whether the other seat
of a pairing is stochastic is read from the line-up (`game.policy_names`: another
``axelrod:NAME`` seat; any other seat draws nothing) — the host seeds, as `Match` does; the
strategy itself still sees only its own view. Strategies that read or change their opponent's
source or state (the library's "cheaters", outside `axelrod.strategies`) are refused: a seat
cannot see its opponent's code.

Needs the optional extra ``axelrod`` (``pip install 'cogleague[axelrod]'``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.core.game import Action, Game, Turn

PREFIX = "axelrod:"
SEED_SPACE = 2**31


def _axelrod() -> Any:
    try:
        import axelrod
    except ImportError as exc:
        raise ConfigError("seats", "seats: axelrod:NAME needs the Axelrod library (pip install "
                                   "'cogleague[axelrod]')") from exc
    return axelrod


def strategy_names() -> list[str]:
    """Every strategy an ``axelrod:`` seat may name (class names, as the library spells them)."""
    return sorted(cls.__name__ for cls in _axelrod().strategies)


def strategy_class(name: str) -> type:
    """The strategy class for a class name (``TitForTat``) or display name (``Tit For Tat``)."""
    axl = _axelrod()
    for cls in axl.strategies:
        if name in (cls.__name__, cls.name):
            return cls
    raise ConfigError("seats", f"seats: unknown Axelrod strategy {name!r} (a class name of "
                               f"axelrod.strategies, e.g. TitForTat, Grudger, ZDExtort2; "
                               f"{len(axl.strategies)} known)")


def pair_seed(game_seed: int | None, low: int, high: int) -> int:
    """The seed of one pairing's generator: stable for (episode seed, pairing)."""
    key = f"axelrod:{game_seed}:{low}-{high}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % SEED_SPACE


class _Pairing:
    """One opponent: our player, a mirror of theirs, and how many rounds each has heard."""

    def __init__(self, cls: type, axl: Any, view: dict[str, Any], seed: int | None,
                 seat: int, opponent: int, opponent_stochastic: bool) -> None:
        pay = view["payoffs"]
        game = axl.Game(r=pay["reward"], s=pay["sucker"], t=pay["temptation"],
                        p=pay["punishment"])
        self.player = cls()
        self.mirror = axl.Player()
        for p in (self.player, self.mirror):
            p.set_match_attributes(length=int(view["rounds_total"]), game=game, noise=0)
        if axl.Classifiers["stochastic"](self.player):
            low, high = sorted((seat, opponent))
            rng = axl.RandomGenerator(seed=pair_seed(seed, low, high))
            draws = [rng.random_seed_int() for _ in range(2)]
            before_me = seat == high and opponent_stochastic  # Match's order of draws
            self.player.set_seed(draws[1 if before_me else 0])
        self.heard = 0


class AxelrodSeat:
    """A scripted seat (answers synchronously) playing one Axelrod strategy per pairing."""

    kind = "scripted"

    def __init__(self, cls: type, name: str, seat: int, seed: int | None,
                 lineup: list[str] | None = None) -> None:
        self.axl = _axelrod()
        self.cls = cls
        self.lineup = lineup or []
        self.name = name
        self.seat = seat
        self.seed = seed
        self._pairings: dict[int, _Pairing] = {}
        self._C, self._D = self.axl.Action.C, self.axl.Action.D

    def decide_now(self, turn: Turn) -> Action:
        view = turn.view
        opponent = int(view["opponent"])
        pairing = self._pairings.get(opponent)
        if pairing is None:
            pairing = self._pairings[opponent] = _Pairing(self.cls, self.axl, view, self.seed,
                                                          self.seat, opponent,
                                                          self._stochastic(opponent))
        history = next(p["history"] for p in view["pairings"] if p["opponent"] == opponent)
        for row in history[pairing.heard:]:
            mine = self._C if row["you"] == "C" else self._D
            theirs = self._C if row["them"] == "C" else self._D
            pairing.player.update_history(mine, theirs)
            pairing.mirror.update_history(theirs, mine)
        pairing.heard = len(history)
        move = pairing.player.strategy(pairing.mirror)
        return {"action": "cooperate" if move == self._C else "defect"}

    def _stochastic(self, seat: int) -> bool:
        """Whether `seat` plays a stochastic Axelrod strategy (it then draws a seed too)."""
        name = self.lineup[seat] if seat < len(self.lineup) else ""
        if not name.startswith(PREFIX):
            return False
        return bool(self.axl.Classifiers["stochastic"](strategy_class(name[len(PREFIX):])()))

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return self.decide_now(turn)


def make_axelrod_seat(game: Game, seat: int, name: str) -> AxelrodSeat:
    """The seat for ``axelrod:NAME`` at `seat` of `game` (a `ConfigError` naming ``seats``)."""
    from cogleague.games import registry

    strategy = name[len(PREFIX):]
    try:
        probes = registry.get(game.name).extras.get("probes")
    except Exception:  # a game outside the registry (tests, plugins): no such capability
        probes = None
    if not getattr(probes, "pairwise", False):
        raise ConfigError("seats", f"seats: {name} plays only games of two-player pairings with "
                                   f"a revealed history (not {game.name})")
    names = getattr(game, "policy_names", None)
    lineup = [str(n) for n in names] if isinstance(names, list | tuple) else None
    return AxelrodSeat(strategy_class(strategy), name, seat, getattr(game, "seed", None),
                       lineup)
