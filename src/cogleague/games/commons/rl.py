"""Commons Family's numeric encoding for RL environments and policy seats (`envs/encoding.py`).

The numbers of the cog's own observation (rules §6, `CommonsGame.observe`): `features`
reads them from the game's books (cheap), `features_of_view` from the observation dict, and the
tests compare the two. They are: the round, its score and last gain, sanctions it
received, what everyone took last round, the public ledger by sorted alias (its own row
flagged; zeros when the ledger is private) and the module's state (what that module shows
this cog: its own patches, its own favourite colour, whether it may eat). The norm, chat
lines and notes are text: left out.

One action index covers a whole decision, mixed-radix over the module's components: the effort
split (every ``(take, maintain)`` pair within the budget of 3, so the budget always holds),
colours, the patch, and the sanction target (0 = none, k = the k-th other alias in sorted
order). The mask allows sanctions only where they are enabled. Messages and notes are free
text: not part of the action. Reward = the change of the cog's score (its gains minus
sanctions paid and suffered), so the rewards sum to the episode score.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cogleague.core.errors import IllegalAction
from cogleague.core.game import Action, Game, Turn
from cogleague.games.commons.modules import allelopathic, cleanup, harvest, mushrooms
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

if TYPE_CHECKING:
    import numpy as np

SPLITS = [(a, b) for a in range(EFFORT_BUDGET + 1) for b in range(EFFORT_BUDGET + 1 - a)]
TAKES = list(range(EFFORT_BUDGET + 1))
LEDGER = ("is_you", "total_extracted", "public_effort", "sanctions_given",
          "sanctions_received")
HEAD = ("round_fraction", "last_round", "score", "last_gain", "sanctions_received_last_round",
        "last_round_total_extracted", "sanctions_enabled")
GAIN_SCALE = 5.0  # a round's gain is at most 3 units x the 1.5 favourite bonus


def _module_fields(module: str, patches: int) -> list[str]:
    if module == "cleanup":
        return ["apples", "pollution", "effective_regrowth", "dead", "cleaned_last_round"]
    if module == "harvest":
        return ["rights_open", "rights_closed", "rights_partnership"] + [
            f"patch_{p}_{f}" for p in range(patches) for f in ("stock", "dead", "yours")]
    if module == "allelopathic":
        return ([f"planted_{c}" for c in COLORS] + [f"ripe_{c}" for c in COLORS]
                + [f"favorite_{c}" for c in COLORS] + ["barren"])
    return [f"count_{c}" for c in COLORS] + ["you_may_eat"]


@functools.cache
def _components(module: str, patches: int, seats: int) -> list[tuple[str, list[Any]]]:
    """The action's mixed-radix digits, most significant first (one list per table shape:
    read-only by convention)."""
    colours = list(COLORS)
    sanction = ("sanction", list(range(seats)))
    if module == "cleanup":
        return [("split", SPLITS), sanction]
    if module == "harvest":
        return [("harvest", TAKES), ("patch", list(range(patches))), sanction]
    if module == "allelopathic":
        return [("split", SPLITS), ("eat_color", colours), ("plant_color", colours), sanction]
    return [("eat", TAKES), ("eat_color", colours), sanction]


def _unit(x: float) -> float:
    return -1.0 if x < -1.0 else 1.0 if x > 1.0 else float(x)


def _head(r: int, rounds: int, n: int, score: float, gain: float | None,
          received: int | None, extracted: float | None, sanctions: bool) -> list[float]:
    return [r / rounds, float(r == rounds - 1), _unit(score / (EFFORT_BUDGET * rounds)),
            _unit((gain or 0.0) / GAIN_SCALE), _unit((received or 0) / n),
            _unit((extracted or 0.0) / (GAIN_SCALE * n)), float(sanctions)]


def _ledger_row(rounds: int, extracted: float, effort: int, given: int,
                received: int) -> list[float]:
    return [_unit(extracted / (GAIN_SCALE * rounds)), _unit(effort / (EFFORT_BUDGET * rounds)),
            _unit(given / rounds), _unit(received / rounds)]


def _module(module: str, ms: Mapping[str, Any], n: int) -> list[float]:
    if module == "cleanup":
        return [ms["apples"] / cleanup.CAPACITY, _unit(ms["pollution"]),
                _unit(ms["effective_regrowth"]), float(ms["dead"]),
                _unit(ms["cleaned_last_round"] / (EFFORT_BUDGET * n))]
    if module == "harvest":
        out = [float(ms["property_rights"] == r) for r in ("open", "closed", "partnership")]
        mine = set(ms.get("your_patches") or [])
        for p in ms["patches"]:
            out += (_unit(p["stock"] / harvest.PATCH_CAPACITY), float(p["dead"]),
                    float(p["id"] in mine))
        return out
    if module == "allelopathic":
        return ([_unit(ms["planted"][c] / allelopathic.FIELD_SIZE) for c in COLORS]
                + [_unit(ms["ripe"][c] / allelopathic.FIELD_SIZE) for c in COLORS]
                + [float(ms["your_favorite"] == c) for c in COLORS] + [float(ms["barren"])])
    return ([_unit(ms["counts"][c] / mushrooms.COLOR_CAP) for c in COLORS]
            + [float(ms["you_may_eat"])])


class CommonsEncoding:
    name = "commons.rl.v1"

    def __init__(self) -> None:
        self._cache: tuple[Any, int, tuple[list[list[float]], dict[str, Any]]] | None = None

    # -- observations ---------------------------------------------------------------------------
    def obs_fields(self, game: Game) -> list[str]:
        cfg = game.config  # type: ignore[attr-defined]
        return ([*HEAD] + [f"ledger_{k}_{f}" for k in range(cfg.num_players) for f in LEDGER]
                + _module_fields(cfg.module, cfg.patch_count))

    def obs_size(self, game: Game) -> int:
        return len(self.obs_fields(game))

    def obs_bounds(self, game: Game) -> tuple[float, float]:
        return -1.0, 1.0

    def features(self, game: Game, turn: Turn) -> list[float]:
        """From the game's books: the same numbers its `observe(slot)` view shows."""
        g: Any = game
        cfg, s = g.config, turn.seat
        first = g.round == 0
        head = _head(g.round, cfg.rounds, cfg.num_players, g.scores[s],
                     None if first else g.last_gains[s], None if first else g.last_received[s],
                     None if first else g.last_total_extracted, cfg.sanctions_enabled)
        public = self._public(g)
        own = g.aliases[s]
        ledger: list[float] = []
        for alias, row in zip(g.sorted_aliases, public[0], strict=True):
            ledger.append(float(alias == own))
            ledger += row
        ms = {**public[1], **g.module.observe_own(g.state, s, g.round)}
        return head + ledger + _module(cfg.module, ms, cfg.num_players)

    def _public(self, g: Any) -> tuple[list[list[float]], dict[str, Any]]:
        """This round's ledger rows and public module state, made once per game and round."""
        cached = self._cache
        if cached is not None and cached[0] is g and cached[1] == g.round:
            return cached[2]
        cfg, rounds = g.config, g.config.rounds
        rows = []
        for alias in g.sorted_aliases:
            t = g.slot_of[alias]
            rows.append(_ledger_row(rounds, g.total_extracted[t], g.public_effort[t],
                                    g.sanctions_given[t], g.sanctions_received[t])
                        if cfg.ledger_public else [0.0] * 4)
        public = (rows, g.module.observe_public(g.state, g.aliases))
        self._cache = (g, g.round, public)
        return public

    @staticmethod
    def features_of_view(view: Mapping[str, Any]) -> list[float]:
        """The same encoding from the §6 observation dict (the reference)."""
        rounds, n = view["rounds"], view["num_players"]
        out = _head(view["round"], rounds, n, view["score"], view["your_last_gain"],
                    view["sanctions_received_last_round"], view["last_round_total_extracted"],
                    view["sanctions_enabled"])
        ledger = view.get("ledger") or {}
        for alias in view["aliases"]:
            out.append(float(alias == view["alias"]))
            row = ledger.get(alias)
            out += [0.0] * 4 if row is None else _ledger_row(
                rounds, row["total_extracted"], row["public_effort"], row["sanctions_given"],
                row["sanctions_received"])
        return out + _module(view["module"], view["module_state"], n)

    # -- actions ------------------------------------------------------------------------------
    @staticmethod
    def _digits(game: Game) -> list[tuple[str, list[Any]]]:
        cfg = game.config  # type: ignore[attr-defined]
        return _components(cfg.module, cfg.patch_count, cfg.num_players)

    def num_actions(self, game: Game) -> int:
        return math.prod(len(values) for _, values in self._digits(game))

    def mask(self, game: Game, turn: Turn) -> np.ndarray[Any, np.dtype[np.int8]]:
        import numpy as np  # here: hosts load this encoding without touching RL

        n = game.num_seats
        mask = np.ones(self.num_actions(game), dtype=np.int8)
        if not game.config.sanctions_enabled:  # type: ignore[attr-defined]
            mask.reshape(-1, n)[:, 1:] = 0  # the sanction digit is the last: 0 = none
        return mask

    @staticmethod
    def _others(game: Game, seat: int) -> list[str]:
        own = game.aliases[seat]
        return [a for a in game.sorted_aliases if a != own]  # type: ignore[attr-defined]

    def decode(self, game: Game, turn: Turn, index: int) -> Action:
        digits = self._digits(game)
        total = self.num_actions(game)
        if not 0 <= index < total:
            raise IllegalAction(f"action must be 0..{total - 1} (got {index})")
        picked: dict[str, Any] = {}
        rest = index
        for name, values in reversed(digits):
            rest, d = divmod(rest, len(values))
            picked[name] = values[d]
        target = picked.pop("sanction")
        if target and not game.config.sanctions_enabled:  # type: ignore[attr-defined]
            raise IllegalAction("sanctions are off at this table: the sanction digit must be 0")
        module = game.config.module  # type: ignore[attr-defined]
        action: dict[str, Any]
        if module == "cleanup":
            take, keep = picked["split"]
            action = {"harvest": take, "clean": keep}
        elif module == "harvest":
            action = {"patch": picked["patch"], "harvest": picked["harvest"]}
        elif module == "allelopathic":
            eat, plant = picked["split"]
            action = {"eat": eat, "eat_color": picked["eat_color"], "plant": plant,
                      "plant_color": picked["plant_color"]}
        else:
            action = {"eat": picked["eat"], "eat_color": picked["eat_color"]}
        if target:
            action["sanction"] = self._others(game, turn.seat)[target - 1]
        return action

    def encode(self, game: Game, turn: Turn, action: Mapping[str, Any]) -> int:
        """The index of a (clamped) baseline action."""
        move = game.validator.move(action, game.aliases[turn.seat])  # type: ignore[attr-defined]
        others = self._others(game, turn.seat)
        target = 0 if move["sanction"] is None else 1 + others.index(move["sanction"])
        module = game.config.module  # type: ignore[attr-defined]
        values: dict[str, Any] = {"sanction": target}
        if module == "cleanup":
            values["split"] = (move["harvest"], move["clean"])
        elif module == "harvest":
            values.update(harvest=move["harvest"], patch=move["patch"] or 0)
        elif module == "allelopathic":
            values.update(split=(move["eat"], move["plant"]), eat_color=move["eat_color"],
                          plant_color=move["plant_color"])
        else:
            values.update(eat=move["eat"], eat_color=move["eat_color"])
        index = 0
        for name, options in self._digits(game):
            index = index * len(options) + options.index(values[name])
        return index

    # -- rewards ------------------------------------------------------------------------------
    def tally(self, game: Game) -> Sequence[float]:
        return game.scores  # type: ignore[attr-defined, no-any-return]

    def score(self, results: Mapping[str, Any], seat: int) -> float:
        return float(results["scores"][seat])

    def signature(self, game: Game) -> dict[str, Any]:
        cfg = game.config  # type: ignore[attr-defined]
        return {"encoding": self.name, "observation_size": self.obs_size(game) + 1,
                "actions": self.num_actions(game), "module": cfg.module,
                "num_players": cfg.num_players, "patch_count": cfg.patch_count}


ENCODING = CommonsEncoding()
