"""What the scripted baselines read: the observation (rules §6), in the compact form they use.

A baseline reads only what its seat's observation shows. `RoundView` is the part every seat's
observation shows alike (plus what the baselines derive from it once: the quota, the patches in
stock order, the plurality colour); `SeatView` is the seat's own part. Both are built either
from an observation dict (`views_of_observation`: the fuzz tests, a remote copy of a baseline)
or straight from the engine's books (`CommonsGame.baseline_views`: in-process, the shared part
once per round instead of a full observation per seat). `tests/commons/test_baselines.py`
checks that the two give equal views on every seat of every round of many episodes, so the
in-process path cannot see anything the observation does not show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.games.commons.modules import allelopathic, harvest, mushrooms
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

POLLUTION_LATTICE = 100
"""Pollution moves in steps of 0.01 (start 0.30, silt +0.12, cleaning −0.05 per unit, clamped
to 0..1), so its exact value is ``round(pollution * 100) / 100`` whatever float drift the
running sum picked up; thresholds compare that, in integers."""

Patch = tuple[int, float]
"""A live patch as the baselines see it: ``(id, stock)``."""


def sustainable_ratio(module: str, pollution_centi: int, live_patches: int,
                      planted: Sequence[int]) -> tuple[int, int]:
    """The module's sustainable take per round as an exact fraction ``(num, den)`` (cleanup
    ``0.35 × (1 − pollution) × 100 / 4``; harvest 2 per live patch; allelopathic
    ``Σ 0.5 × planted² / 60``; mushrooms 3)."""
    if module == "cleanup":  # 35/100 × (100 − P)/100 × 100/4
        return 35 * (POLLUTION_LATTICE - pollution_centi), 400
    if module == "harvest":
        return int(harvest.MAX_GROWTH) * live_patches, 1
    if module == "allelopathic":  # ripen_amount(p) = 0.5 × p × p / 60
        return sum(p * p for p in planted), 2 * allelopathic.FIELD_SIZE
    return mushrooms.SPAWN_PER_ROUND, 1


class RoundView:
    """The part of this round's observation every seat shares, as the baselines read it."""

    __slots__ = ("aliases", "apples", "by_stock", "chat", "chat_max", "counts", "last_total",
                 "ledger", "live_ids", "module", "num_players", "planted", "plurality",
                 "pollution_centi", "quota", "rights", "ripe", "round", "sanctions",
                 "sustainable")

    def __init__(self, *, module: str, round: int, num_players: int, sanctions: bool,
                 chat: bool, chat_max: int, aliases: list[str],
                 ledger: list[tuple[str, float]] | None, last_total: float | None,
                 apples: float = 0.0, pollution: float = 0.0, rights: str = "open",
                 patches: Sequence[tuple[int, float, bool]] = (),
                 planted: Sequence[int] = (0, 0, 0), ripe: Sequence[float] = (0.0, 0.0, 0.0),
                 counts: Sequence[float] = (0.0, 0.0, 0.0)) -> None:
        self.module = module
        self.round = round
        self.num_players = num_players
        self.sanctions = sanctions
        self.chat = chat
        self.chat_max = chat_max
        self.aliases = aliases
        """Every alias, ascending (the observation's ``aliases``)."""
        self.ledger = ledger
        """``(alias, total_extracted)`` ascending by alias; None when the ledger is private
        (or empty)."""
        self.last_total = last_total
        self.apples = apples
        self.pollution_centi = round_centi(pollution)
        self.rights = rights
        live = [(p, s) for p, s, dead in patches if not dead]
        self.live_ids = [p for p, _ in live]
        """The live patch ids in the observation's order."""
        live.sort(key=_stock_order)
        self.by_stock: list[Patch] = live
        """The live patches by stock descending, then id."""
        self.planted = list(planted)
        self.ripe = list(ripe)
        self.counts = list(counts)
        best = 0
        for c in (1, 2):
            if self.planted[c] > self.planted[best]:
                best = c
        self.plurality = COLORS[best]
        """The most-planted colour (ties canonical)."""
        self.sustainable = sustainable_ratio(module, self.pollution_centi, len(live),
                                             self.planted)
        num, den = self.sustainable
        self.quota = max(0, min(EFFORT_BUDGET, num // (den * num_players)))
        """``clamp(floor(sustainable / N), 0, 3)``, in integers (a quota that sits exactly on a
        whole number is never floored one below by float rounding)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoundView) and _fields(self) == _fields(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RoundView({_fields(self)})"


def _fields(view: RoundView | SeatView) -> dict[str, Any]:
    return {k: getattr(view, k) for k in type(view).__slots__}


def round_centi(pollution: float) -> int:
    """Pollution in hundredths, exactly (see `POLLUTION_LATTICE`)."""
    return round(pollution * POLLUTION_LATTICE)


def _stock_order(patch: Patch) -> tuple[float, int]:
    return -patch[1], patch[0]


class SeatView:
    """The seat's own part of its observation (in-process, one per seat for the episode,
    brought up to date each round: read it in the round it is given)."""

    __slots__ = ("alias", "favorite", "last_gain", "may_eat", "mine", "received")

    def __init__(self, alias: str, last_gain: float | None, received: int | None,
                 mine: frozenset[int], favorite: str, may_eat: bool) -> None:
        self.alias = alias
        self.last_gain = last_gain
        self.received = received
        """Sanctions received last round (None in round 0)."""
        self.mine = mine
        """The patches this seat may take from (closed / partnership rights)."""
        self.favorite = favorite
        """Its favourite colour (allelopathic; "red" elsewhere, unread)."""
        self.may_eat = may_eat
        """Whether it is not digesting (mushrooms; True elsewhere, unread)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatView) and _fields(self) == _fields(other)

    __hash__ = None  # type: ignore[assignment]


def views_of_observation(obs: Mapping[str, Any]) -> tuple[RoundView, SeatView]:
    """The views a seat's observation dict (rules §6) shows."""
    module = obs["module"]
    ms = obs["module_state"]
    ledger = obs.get("ledger")
    kw: dict[str, Any] = {}
    mine: frozenset[int] = frozenset()
    favorite, may_eat = "red", True
    if module == "cleanup":
        kw = {"apples": ms["apples"], "pollution": ms["pollution"]}
    elif module == "harvest":
        kw = {"rights": ms["property_rights"],
              "patches": [(p["id"], p["stock"], p["dead"]) for p in ms["patches"]]}
        mine = frozenset(ms["your_patches"])
    elif module == "allelopathic":
        kw = {"planted": [ms["planted"][c] for c in COLORS],
              "ripe": [ms["ripe"][c] for c in COLORS]}
        favorite = ms["your_favorite"]
    else:
        kw = {"counts": [ms["counts"][c] for c in COLORS]}
        may_eat = ms["you_may_eat"]
    shared = RoundView(
        module=module, round=obs["round"], num_players=obs["num_players"],
        sanctions=obs["sanctions_enabled"], chat=obs["chat_enabled"],
        chat_max=obs["chat_max_chars"], aliases=sorted(obs["aliases"]),
        ledger=[(a, ledger[a]["total_extracted"]) for a in sorted(ledger)] if ledger else None,
        last_total=obs["last_round_total_extracted"], **kw)
    own = SeatView(obs["alias"], obs["your_last_gain"], obs["sanctions_received_last_round"],
                   mine, favorite, may_eat)
    return shared, own
