"""Commons Family's numeric encoding for RL environments and policy seats (`envs/encoding.py`).

Built from the cog's own observation (rules §6, `CommonsGame.observe`, which the baselines
read too): the round, its score and last gain, sanctions it received, what everyone took
last round, the public ledger by sorted alias (its own row flagged; zeros when the ledger is
private) and the module's state (what that module shows this cog: its own patches, its own
favourite colour, whether it may eat). The norm, chat lines and notes are text: left out.

One action index covers a whole decision, mixed-radix over the module's components: the effort
split (every ``(take, maintain)`` pair within the budget of 3, so the budget always holds),
colours, the patch, and the sanction target (0 = none, k = the k-th other alias in sorted
order). The mask allows sanctions only where they are enabled. Messages and notes are free
text: not part of the action. Reward = the change of the cog's score (its gains minus
sanctions paid and suffered), so the rewards sum to the episode score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cogleague.core.errors import IllegalAction
from cogleague.core.game import Action, Game, Turn
from cogleague.games.commons.modules import allelopathic, cleanup, harvest, mushrooms
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

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


def _components(module: str, patches: int, seats: int) -> list[tuple[str, list[Any]]]:
    """The action's mixed-radix digits, most significant first."""
    colours = list(COLORS)
    sanction = ("sanction", list(range(seats)))
    if module == "cleanup":
        return [("split", SPLITS), sanction]
    if module == "harvest":
        return [("harvest", TAKES), ("patch", list(range(patches))), sanction]
    if module == "allelopathic":
        return [("split", SPLITS), ("eat_color", colours), ("plant_color", colours), sanction]
    return [("eat", TAKES), ("eat_color", colours), sanction]


class CommonsEncoding:
    name = "commons.rl.v1"

    # -- observations ---------------------------------------------------------------------------
    def obs_fields(self, game: Game) -> list[str]:
        cfg = game.config  # type: ignore[attr-defined]
        return ([*HEAD] + [f"ledger_{k}_{f}" for k in range(cfg.num_players) for f in LEDGER]
                + _module_fields(cfg.module, cfg.patch_count))

    def obs_size(self, game: Game) -> int:
        return len(self.obs_fields(game))

    def obs_bounds(self, game: Game) -> tuple[float, float]:
        return -1.0, 1.0

    def observe(self, game: Game, turn: Turn, out: np.ndarray[Any, Any]) -> None:
        self.observe_view(turn.view, out)

    @staticmethod
    def observe_view(view: Mapping[str, Any], out: np.ndarray[Any, Any]) -> None:
        rounds, n = view["rounds"], view["num_players"]
        out[0] = view["round"] / rounds
        out[1] = view["round"] == rounds - 1
        out[2] = view["score"] / (EFFORT_BUDGET * rounds)
        out[3] = (view["your_last_gain"] or 0.0) / GAIN_SCALE
        out[4] = (view["sanctions_received_last_round"] or 0) / n
        out[5] = (view["last_round_total_extracted"] or 0.0) / (GAIN_SCALE * n)
        out[6] = view["sanctions_enabled"]
        at = len(HEAD)
        ledger = view.get("ledger") or {}
        for k, alias in enumerate(view["aliases"]):
            row = ledger.get(alias)
            base = at + len(LEDGER) * k
            out[base] = alias == view["alias"]
            if row is not None:
                out[base + 1] = row["total_extracted"] / (GAIN_SCALE * rounds)
                out[base + 2] = row["public_effort"] / (EFFORT_BUDGET * rounds)
                out[base + 3] = row["sanctions_given"] / rounds
                out[base + 4] = row["sanctions_received"] / rounds
        at += len(LEDGER) * n
        ms, module = view["module_state"], view["module"]
        if module == "cleanup":
            out[at:at + 5] = (ms["apples"] / cleanup.CAPACITY, ms["pollution"],
                              ms["effective_regrowth"], ms["dead"],
                              ms["cleaned_last_round"] / (EFFORT_BUDGET * n))
        elif module == "harvest":
            out[at + ("open", "closed", "partnership").index(ms["property_rights"])] = 1.0
            mine = set(ms.get("your_patches") or [])
            for p in ms["patches"]:
                base = at + 3 + 3 * p["id"]
                out[base] = p["stock"] / harvest.PATCH_CAPACITY
                out[base + 1] = p["dead"]
                out[base + 2] = p["id"] in mine
        elif module == "allelopathic":
            for i, c in enumerate(COLORS):
                out[at + i] = ms["planted"][c] / allelopathic.FIELD_SIZE
                out[at + 3 + i] = ms["ripe"][c] / allelopathic.FIELD_SIZE
                out[at + 6 + i] = ms["your_favorite"] == c
            out[at + 9] = ms["barren"]
        else:
            for i, c in enumerate(COLORS):
                out[at + i] = ms["counts"][c] / mushrooms.COLOR_CAP
            out[at + 3] = ms["you_may_eat"]

    # -- actions ------------------------------------------------------------------------------
    @staticmethod
    def _digits(game: Game) -> list[tuple[str, list[Any]]]:
        cfg = game.config  # type: ignore[attr-defined]
        return _components(cfg.module, cfg.patch_count, cfg.num_players)

    def num_actions(self, game: Game) -> int:
        return int(np.prod([len(values) for _, values in self._digits(game)]))

    def mask(self, game: Game, turn: Turn) -> np.ndarray[Any, np.dtype[np.int8]]:
        n = game.num_seats
        mask = np.ones(self.num_actions(game), dtype=np.int8)
        if not game.config.sanctions_enabled:  # type: ignore[attr-defined]
            mask = mask.reshape(-1, n)
            mask[:, 1:] = 0
            mask = mask.reshape(-1)
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
