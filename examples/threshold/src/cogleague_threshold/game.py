"""The threshold public-goods game: a pure rules object (`cogleague.core.game.Game`).

A round is one or two simultaneous steps: a public pledge (when pledges are on), then a sealed
contribution. Contributions are revealed together once every seat has given; the threshold is
compared in integers. Everything is a function of (config, seed, seats, decisions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

from cogleague.core import rng
from cogleague.core.brief import brief
from cogleague.core.errors import GameStateError, IllegalAction, SeatInputRejected
from cogleague.core.game import (
    DECISION_RETRIES,
    Action,
    Decision,
    Event,
    Game,
    Parsed,
    Step,
    StepDecisions,
    Timing,
    Turn,
)
from cogleague.core.text import first_object

from cogleague_threshold.baselines import FALLBACK, make_baseline
from cogleague_threshold.config import ThresholdConfig
from cogleague_threshold.state import Context, RoundRecord
from cogleague_threshold.views import prompt_text, seat_view, system_text

NAMES = ("Beacon", "Harbor", "Keel", "Tide", "Anchor", "Gull", "Reef", "Buoy", "Pier", "Mast")
PHASES = ("pledge", "contribute")  # the steps of a round; each names its action's one field
TIMING = Timing(decision_timeout_s=10.0, retries=DECISION_RETRIES, min_step_s=0.4)


def deal_aliases(seed: int, seats: int) -> list[str]:
    """The seats' public names, drawn from the seed alone (a server fixes them at creation)."""
    return rng.shuffle(rng.stream(f"threshold:{seed}:aliases"), list(NAMES))[:seats]


class ThresholdGame(Game):
    name: ClassVar[str] = "threshold"
    rules_version: ClassVar[str] = "threshold-1.0"

    def __init__(self, config: ThresholdConfig, policy_names: Sequence[str]) -> None:
        if len(policy_names) != config.seats:
            raise ValueError(f"policy_names must list {config.seats} seats "
                             f"(got {len(policy_names)})")
        self.config = config
        self.num_seats = config.seats
        self.seed = config.seed
        self.max_rounds = config.rounds
        self.policy_names = list(policy_names)
        self.aliases = deal_aliases(config.seed, config.seats)
        self.scores = [0] * config.seats
        self.history: tuple[RoundRecord, ...] = ()
        self.phase = "new"  # new | between | pledge | contribute | done
        self.pledges: tuple[int, ...] | None = None
        self.reason: str | None = None
        self.detail: str | None = None
        self._fallback = make_baseline(FALLBACK, config, 0)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> list[Event]:
        if self.phase != "new":
            raise GameStateError("start() was already called")
        self.phase = "between"
        cfg = self.config
        return [Event("table_opened", {"aliases": list(self.aliases), "seats": cfg.seats,
                                       "rounds": cfg.rounds, "endowment": cfg.endowment,
                                       "threshold": cfg.threshold, "bonus": cfg.bonus,
                                       "pledges": cfg.pledges, "refund": cfg.refund})]

    @property
    def between_rounds(self) -> bool:
        return self.phase == "between"

    @property
    def rounds_played(self) -> int:
        return len(self.history)

    @property
    def done(self) -> bool:
        return self.phase == "done"

    def open_round(self) -> list[Event]:
        if self.phase != "between":
            raise GameStateError(f"open_round() in phase {self.phase!r}")
        self.phase = "pledge" if self.config.pledges else "contribute"
        self.pledges = None
        return [Event("round_opened", {"round": self.rounds_played, "phase": self.phase})]

    def context(self) -> Context:
        return Context(self.config, self.rounds_played, self.phase, self.pledges, self.history)

    def step(self) -> Step:
        """Every seat decides at once: its view of the table, and one amount to name."""
        if self.phase not in PHASES:
            raise GameStateError(f"step() in phase {self.phase!r}")
        ctx = self.context()
        key, hi, r = self.phase, self.config.endowment, self.rounds_played
        scores = tuple(self.scores)
        return Step.of([Turn(f"r{r}.{key}.s{seat}", seat, {key: [0, hi]},
                             partial(seat_view, ctx, seat, self.aliases, scores), prompt_text,
                             ctx, r)
                        for seat in range(self.num_seats)], r)

    # -- decisions ---------------------------------------------------------------------------
    def parse(self, turn: Turn, raw: Any) -> Parsed:
        key = next(iter(turn.legal_actions))
        hi = self.config.endowment
        hint = f'reply {{"{key}": N}} with N an integer in 0..{hi}'
        if isinstance(raw, str):  # a model's reply: the first JSON object in its text
            raw = first_object(raw)
            if raw is None:
                raise IllegalAction("the reply holds no JSON object", hint, code="parse")
        if not isinstance(raw, Mapping) or key not in raw:
            raise IllegalAction(f"the reply must be an object with {key!r}", hint, code="parse")
        value = raw[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalAction(f"{key} must be an integer in 0..{hi} (got {brief(value)})", hint)
        clamped = min(hi, max(0, value))
        return Parsed({key: clamped}, clamped=clamped != value)

    def fallback(self, turn: Turn) -> Action:
        return self._fallback.act(turn)

    def _amounts(self, turns: list[Turn], decisions: Mapping[str, Decision]) -> tuple[int, ...]:
        """Every seat's amount, checked before anything changes (apply is transactional)."""
        key, hi = self.phase, self.config.endowment
        out = []
        for t in turns:
            d = decisions.get(t.turn_id)
            if d is None:
                out.append(0)  # no submission: nothing pledged, nothing given
                continue
            value = d.action.get(key) if isinstance(d.action, Mapping) else None
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= hi:
                raise SeatInputRejected(t.turn_id, f"{key} must be an integer in 0..{hi} "
                                                   f"(got {value!r})")
            out.append(value)
        return tuple(out)

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        amounts = self._amounts(self.step().turns(), decisions)
        r = self.rounds_played
        if self.phase == "pledge":
            self.pledges = amounts
            self.phase = "contribute"
            return [Event("pledges", {"round": r, "pledges": list(amounts)})]
        return self._settle(r, amounts)

    def _settle(self, r: int, gave: tuple[int, ...]) -> list[Event]:
        cfg = self.config
        total = sum(gave)
        met = total >= cfg.threshold  # integers: exact
        payoffs = tuple(cfg.endowment - (0 if cfg.refund and not met else g)
                        + (cfg.bonus if met else 0) for g in gave)
        record = RoundRecord(r, self.pledges, gave, total, met, payoffs)
        self.history = (*self.history, record)
        self.scores = [s + p for s, p in zip(self.scores, payoffs, strict=True)]
        self.pledges = None
        events = [Event("round_settled", {"round": r, "contributions": list(gave),
                                          "total": total, "threshold": cfg.threshold,
                                          "met": met, "payoffs": list(payoffs),
                                          "scores": list(self.scores)})]
        if self.rounds_played >= cfg.rounds:
            events += self._end("complete")
        else:
            self.phase = "between"
        return events

    def _end(self, reason: str, detail: str | None = None) -> list[Event]:
        self.phase = "done"
        self.reason = reason
        self.detail = detail
        return [Event("game_over", {"reason": reason, "scores": list(self.scores),
                                    "rounds_played": self.rounds_played})]

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        if self.phase == "done":
            return []
        return self._end(reason, detail)

    # -- results and views -------------------------------------------------------------------
    def results(self) -> dict[str, Any]:
        cfg, played = self.config, self.rounds_played
        seats = []
        for s in range(cfg.seats):
            gave = sum(r.contributions[s] for r in self.history)
            kept = [r.contributions[s] >= r.pledges[s] for r in self.history
                    if r.pledges is not None]
            seats.append({"contributed": gave,
                          "give_rate": gave / (played * cfg.endowment) if played else None,
                          "pledge_kept": sum(kept) / len(kept) if kept else None})
        met = sum(r.met for r in self.history)
        return {"scores": list(self.scores), "reason": self.reason, "rounds_played": played,
                "rounds": cfg.rounds, "threshold": cfg.threshold, "rounds_met": met,
                "seats": seats}

    def timing(self) -> Timing:
        return TIMING

    def make_baseline(self, name: str, seat: int) -> Any:
        return make_baseline(name, self.config, seat)

    def public_config(self) -> dict[str, Any]:
        return self.config.to_json()

    def system_text(self, seat: int) -> str:
        return system_text(self.config, self.aliases[seat])

    def spectator_state(self) -> dict[str, Any]:
        return {**super().spectator_state(), "phase": self.phase, "aliases": list(self.aliases),
                "policies": list(self.policy_names), "scores": list(self.scores),
                "pledges": None if self.pledges is None else list(self.pledges),
                "threshold": self.config.threshold,
                "met": [r.met for r in self.history]}

    def replay_document(self, log: Any) -> dict[str, Any]:
        from cogleague_threshold.replay import replay_document

        return replay_document(self, log)
