"""A seat's view (JSON) and its text rendering for language-model seats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague_threshold.config import ThresholdConfig
from cogleague_threshold.state import Context, RoundRecord

HISTORY_IN_VIEW = 10  # rounds of history a view carries (the newest)


def record_json(r: RoundRecord) -> dict[str, Any]:
    return {"round": r.round, "pledges": None if r.pledges is None else list(r.pledges),
            "contributions": list(r.contributions), "total": r.total, "met": r.met,
            "payoffs": list(r.payoffs)}


def seat_view(ctx: Context, seat: int, aliases: Sequence[str], scores: Sequence[int]
              ) -> dict[str, Any]:
    cfg = ctx.config
    return {"game": "threshold", "round": ctx.round, "rounds": cfg.rounds, "phase": ctx.phase,
            "you": seat, "aliases": list(aliases), "endowment": cfg.endowment,
            "threshold": cfg.threshold, "bonus": cfg.bonus, "refund": cfg.refund,
            "fair_share": cfg.fair_share,
            "pledges": None if ctx.pledges is None else list(ctx.pledges),
            "history": [record_json(r) for r in ctx.history[-HISTORY_IN_VIEW:]],
            "scores": list(scores)}


def system_text(cfg: ThresholdConfig, alias: str) -> str:
    refund = ("contributions come back to their givers" if cfg.refund
              else "contributions are lost")
    talk = ("Each round opens with a public pledge: every seat says how much it will give. "
            "Pledges bind no one. " if cfg.pledges else "")
    return (f"You are {alias}, one of {cfg.seats} seats in a threshold public-goods game of "
            f"{cfg.rounds} rounds. Each round every seat receives {cfg.endowment} tokens and "
            f"secretly gives 0..{cfg.endowment} of them to a common fund. {talk}If the fund "
            f"reaches {cfg.threshold} tokens, every seat gets a bonus of {cfg.bonus}; if not, "
            f"{refund}. Your round payoff is what you kept plus the bonus if it was earned; your "
            "score is the sum of your payoffs. Reply with one JSON object: "
            '{"pledge": N} in a pledge phase, {"contribute": N} in a contribution phase.')


def prompt_text(view: dict[str, Any]) -> str:
    me = view["you"]
    lines = [f"Round {view['round'] + 1} of {view['rounds']}, phase: {view['phase']}.",
             f"Threshold {view['threshold']}, endowment {view['endowment']}, bonus "
             f"{view['bonus']}. Scores: " + ", ".join(
                 f"{a} {s}" for a, s in zip(view["aliases"], view["scores"], strict=True))]
    if view["pledges"] is not None:
        lines.append("Pledges this round: " + ", ".join(
            f"{a} {p}" for a, p in zip(view["aliases"], view["pledges"], strict=True)))
    for r in view["history"]:
        lines.append(f"Round {r['round'] + 1}: gave {r['contributions']} (total {r['total']}, "
                     f"{'met' if r['met'] else 'missed'}); you gave {r['contributions'][me]}.")
    key = "pledge" if view["phase"] == "pledge" else "contribute"
    lines.append(f'Reply {{"{key}": N}} with N in 0..{view["endowment"]}.')
    return "\n".join(lines)
