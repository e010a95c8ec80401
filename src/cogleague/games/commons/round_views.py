"""What the seats see of a round (rules §6), built once per round and only when asked: the
observation frame and public ledger (JSON, for remote and model seats) and the baselines'
`RoundView` / `SeatView` (read in-process, no dict built)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogleague.games.commons import observation as obs_mod
from cogleague.games.commons.baselines.view import RoundView, SeatView

if TYPE_CHECKING:
    from cogleague.games.commons.game import CommonsGame


class RoundViews:
    """The open round's views of one game, dropped by `reset` whenever the books change. The
    seat views live for the episode and are brought up to date each round (last gain,
    sanctions received, digestion)."""

    __slots__ = ("frame", "ledger", "ledger_order", "own_patches", "round_view", "seat_views")

    def __init__(self, game: CommonsGame) -> None:
        self.ledger_order = sorted((a, s) for s, a in enumerate(game.aliases))
        self.own_patches = [frozenset(game.module.own_patches(game.state, s))
                            for s in range(game.num_seats)]
        self.seat_views: list[SeatView] = []
        self.reset()

    def reset(self) -> None:
        self.frame: dict[str, Any] | None = None
        self.ledger: dict[str, Any] | None = None
        self.round_view: RoundView | None = None

    def ledger_of(self, game: CommonsGame) -> dict[str, Any]:
        """The public ledger keyed by alias."""
        if self.ledger is None:
            self.ledger = {a: {"total_extracted": game.total_extracted[s],
                               "public_effort": game.public_effort[s],
                               "recent": list(game.recent[s]),
                               "sanctions_given": game.sanctions_given[s],
                               "sanctions_received": game.sanctions_received[s]}
                           for s, a in enumerate(game.aliases)}
        return self.ledger

    def observation(self, game: CommonsGame, slot: int) -> dict[str, Any]:
        if self.frame is None:
            self.frame = obs_mod.public_frame(game)
        return obs_mod.observation(game, slot, self.frame)

    def baseline(self, game: CommonsGame, slot: int) -> tuple[RoundView, SeatView]:
        if self.round_view is None:
            self.round_view = self._round_view(game)
            self._update_seats(game)
        return self.round_view, self.seat_views[slot]

    def _update_seats(self, game: CommonsGame) -> None:
        r, n, module, state = game.round, game.num_seats, game.module, game.state
        views = self.seat_views
        if not views:
            views.extend(map(SeatView, game.aliases, [None] * n, [None] * n,
                             self.own_patches, module.favorites(state, n), [True] * n))
        if r > 0:
            for view, gain, received in zip(views, game.last_gains, game.last_received,
                                            strict=True):
                view.last_gain = gain
                view.received = received
        for view, frozen in zip(views, module.frozen(state, r, n), strict=True):
            view.may_eat = not frozen

    def _round_view(self, game: CommonsGame) -> RoundView:
        cfg, totals = game.config, game.total_extracted
        return RoundView(
            module=cfg.module, round=game.round, num_players=cfg.num_players,
            sanctions=cfg.sanctions_enabled, chat=cfg.chat_enabled, chat_max=cfg.chat_max_chars,
            aliases=game.sorted_aliases,
            ledger=[(a, totals[s]) for a, s in self.ledger_order] if cfg.ledger_public
            else None,
            last_total=None if game.round == 0 else game.last_total_extracted,
            **game.module.round_view(game.state))
