"""The dilemma's numeric encoding for RL environments and policy seats (`envs/encoding.py`).

One observation per turn (one pairing, one round), from that seat's own view of that pairing
only: where the round is, who moves first, whether the opponent sent a message this round,
and the last `HISTORY` revealed rounds of this pairing. `features` reads the live pairing
record (cheap); `features_of_view` computes the same numbers from the protocol view, which is
what the tests compare it with to prove the encoding shows nothing the view does not.
Action 0 = cooperate, 1 = defect (always both legal: no mask). Promises are free text and
have no action index. Reward = the seat's points; the score is the same points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.core.errors import IllegalAction
from cogleague.core.game import Action, Game, Turn
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT
from cogleague.games.dilemma.promises import is_promise
from cogleague.games.dilemma.state import TurnContext

HISTORY = 5
FIELDS = ["round_fraction", "last_round", "you_move_first", "opponent_message",
          "opponent_broke_promise", "their_cooperation_rate", "your_cooperation_rate",
          "pairing_rounds_fraction"] + [
    f"{name}_{k}" for k in range(1, HISTORY + 1)
    for name in ("revealed", "you_cooperated", "they_cooperated")]
_ACTIONS = ({"action": COOPERATE}, {"action": DEFECT})


_EMPTY = [0.0, 0.0, 0.0] * HISTORY


def _features(round_no: int, total: int, first: bool, message: bool, broke: bool,
              mine: Sequence[bool], theirs: Sequence[bool]) -> list[float]:
    n = len(theirs)
    out = [round_no / total, float(round_no == total), float(first), float(message),
           float(broke), sum(theirs) / n if n else 0.0, sum(mine) / n if n else 0.0, n / total]
    for k in range(min(HISTORY, n)):
        out += (1.0, float(mine[n - 1 - k]), float(theirs[n - 1 - k]))
    if n < HISTORY:
        out += _EMPTY[:3 * (HISTORY - n)]
    return out


class DilemmaEncoding:
    name = "dilemma.rl.v1"

    def obs_size(self, game: Game) -> int:
        return len(FIELDS)

    def obs_fields(self, game: Game) -> list[str]:
        return list(FIELDS)

    def obs_bounds(self, game: Game) -> tuple[float, float]:
        return 0.0, 1.0

    def features(self, game: Game, turn: Turn) -> list[float]:
        ctx: TurnContext = turn.context
        return _features(ctx.round, ctx.table.config.rounds_total, ctx.first,
                         ctx.opponent_promise is not None, ctx.opponent_broke_a_promise,
                         ctx.mine, ctx.theirs)

    @staticmethod
    def features_of_view(view: Mapping[str, Any]) -> list[float]:
        """The same encoding computed from the protocol view (the reference)."""
        pairing = next(p for p in view["pairings"] if p["opponent"] == view["opponent"])
        rows = pairing["history"]
        mine = [r["you"] == "C" for r in rows]
        theirs = [r["them"] == "C" for r in rows]
        broke = any(is_promise(r["their_promise"]) and r["them"] == "D" for r in rows)
        return _features(view["round"], view["rounds_total"], view["you_move_first"],
                         view["opponent_promise"] is not None, broke, mine, theirs)

    def num_actions(self, game: Game) -> int:
        return 2

    def mask(self, game: Game, turn: Turn) -> None:
        return None

    def decode(self, game: Game, turn: Turn, index: int) -> Action:
        if index not in (0, 1):
            raise IllegalAction(f"action must be 0 (cooperate) or 1 (defect) (got {index!r})")
        return dict(_ACTIONS[index])

    def encode(self, game: Game, turn: Turn, action: Mapping[str, Any]) -> int:
        return 0 if action.get("action") == COOPERATE else 1

    def tally(self, game: Game) -> Sequence[float]:
        return game.state.points  # type: ignore[attr-defined, no-any-return]

    def score(self, results: Mapping[str, Any], seat: int) -> float:
        return float(results["scores"][seat])

    def signature(self, game: Game) -> dict[str, Any]:
        return {"encoding": self.name, "observation_size": len(FIELDS) + 1, "actions": 2}


ENCODING = DilemmaEncoding()
