"""Scripted baselines (§14): legal without clamping, the spec's line-up outcomes, and each rule
checked against a naive reading of the public record."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cogleague.core.game import Decision
from cogleague.games.ledger.baselines import BASELINES
from cogleague.games.ledger.conduct import halo, is_kind
from cogleague.games.ledger.context import TurnContext
from cogleague.games.ledger.game import LedgerGame
from cogleague.games.ledger.subgames import DEFECT, DILEMMA, TRUST
from cogleague.games.ledger.table import Meeting

from .support import make_game, play


def _pays_by_subgame(game: LedgerGame) -> dict[str, set[tuple[int, int]]]:
    out: dict[str, set[tuple[int, int]]] = {}
    for m in game.table.record:
        out.setdefault(m.subgame, set()).add((m.pay_a, m.pay_b))
    return out


def test_all_mirror_plays_fair_everywhere() -> None:
    game = make_game(seed=7, lineup=["mirror"] * 8)
    results = play(game).results
    assert _pays_by_subgame(game) == {"DILEMMA": {(6, 6)}, "TRUST": {(6, 6)},
                                      "ULTIMATUM": {(7, 5)}}
    assert results["halo"] == [1.0] * 8 and results["fallbacks"] == [0] * 8


def test_all_shark_grinds_everyone_down() -> None:
    game = make_game(seed=7, lineup=["shark"] * 8)
    results = play(game).results
    assert _pays_by_subgame(game) == {"DILEMMA": {(2, 2)}, "TRUST": {(6, 2)},
                                      "ULTIMATUM": {(11, 1)}}
    assert all(h < 0.5 for h in results["halo"])


@pytest.mark.parametrize("seed", range(12))
def test_every_baseline_is_legal_in_every_role_without_clamping(seed: int) -> None:
    names = list(BASELINES)
    lineup = [names[(seed + i) % len(names)] for i in range(8)]
    game = make_game(seed=seed, lineup=lineup)
    game.start()
    roles = set()
    while not game.done:
        game.open_round()
        decisions = {}
        for turn in game.pending():
            action = game.make_baseline(lineup[turn.seat], turn.seat).act(turn)
            assert list(action) == ["move"]  # no notes, no memos
            parsed = game.parse(turn, action)
            assert parsed.action == action and not parsed.clamped
            roles.add((lineup[turn.seat], turn.context.slot.role))
            decisions[turn.turn_id] = Decision(action, source="scripted")
        game.apply(decisions)  # refuses anything illegal
    assert game.results()["fallbacks"] == [0] * 8
    assert {role for _, role in roles} == {"EITHER", "INVESTOR", "TRUSTEE", "PROPOSER",
                                           "RESPONDER"}


# -- each rule against a naive reading of the record ------------------------------------------
def _side_move(m: Meeting, seat: int) -> int:
    return m.move_a if m.a == seat else m.move_b


def _halo_from_record(record: list[Meeting], seat: int) -> float:
    kinds = [is_kind(m.subgame, 0 if m.a == seat else 1, _side_move(m, seat))
             for m in record if seat in (m.a, m.b)]
    return halo(sum(kinds), len(kinds) - sum(kinds))


def _naive(name: str, ctx: TurnContext) -> int:
    record, seat, slot = ctx.table.record, ctx.seat, ctx.slot
    partner, side, subgame = slot.partner, slot.side, slot.subgame
    partner_halo = _halo_from_record(record, partner)
    if name == "mirror":
        if subgame == DILEMMA:
            theirs = [m for m in record if m.subgame == DILEMMA and partner in (m.a, m.b)]
            vs_me = [m for m in theirs if seat in (m.a, m.b)]
            source = vs_me or theirs
            if not source:
                return 0
            ref = _side_move(source[-1], partner)
            defections = sum(_side_move(m, partner) == DEFECT for m in theirs)
            if ref == DEFECT and defections == 1:
                draw = random.Random(f"ledger:{ctx.seed}:seat:{seat}:round:{ctx.round}").random()
                if draw < 0.20:
                    return 0
            return ref
        if subgame == TRUST:
            return (4, 50)[side] if partner_halo >= 0.5 else (1, 25)[side]
        return (5, 4)[side]
    if name == "grim":
        betrayed = any(partner in (m.a, m.b) and seat in (m.a, m.b) and not is_kind(
            m.subgame, 0 if m.a == partner else 1, _side_move(m, partner)) for m in record)
        table = ({DILEMMA: (1, 1), TRUST: (0, 0)}, (2, 6)) if betrayed else (
            {DILEMMA: (0, 0), TRUST: (4, 50)}, (6, 4))
        return table[0].get(subgame, table[1])[side]
    if name == "opportunist":
        weak, last = partner_halo < 0.5, ctx.round == ctx.rounds - 1
        if subgame == DILEMMA:
            return 1 if weak or last else 0
        if subgame == TRUST:
            return (0 if weak else 4) if side == 0 else (0 if weak or last else 50)
        return (3 if weak or last else 5) if side == 0 else 3
    if name == "shark":
        return {DILEMMA: (1, 1), TRUST: (0, 0)}.get(subgame, (1, 1))[side]
    return {DILEMMA: (0, 0), TRUST: (6, 75)}.get(subgame, (6, 0))[side]


def _random_episode(seed: int, check: Any) -> None:
    """Random legal moves build varied histories; `check(turn)` runs on every turn."""
    rng = random.Random(seed)
    game = make_game(seed=seed, rounds=4 + seed % 25)
    game.start()
    while not game.done:
        game.open_round()
        decisions: dict[str, Any] = {}
        for turn in game.pending():
            check(game, turn)
            slot = turn.context.slot
            move = rng.choice([slot.lo, slot.hi, rng.randint(slot.lo, slot.hi)])
            decisions[turn.turn_id] = Decision({"move": move}, source="seat")
        game.apply(decisions)


@pytest.mark.parametrize("seed", range(30))
def test_baselines_follow_their_rules_against_random_play(seed: int) -> None:
    def check(game: LedgerGame, turn: Any) -> None:
        for name in BASELINES:
            expected = _naive(name, turn.context)
            assert game.make_baseline(name, turn.seat).act(turn) == {"move": expected}, name

    _random_episode(seed, check)


def test_mirror_forgives_a_single_defection_about_one_time_in_five() -> None:
    outcomes: list[int] = []

    def check(game: LedgerGame, turn: Any) -> None:
        ctx = turn.context
        partner = ctx.slot.partner
        if ctx.slot.subgame != DILEMMA or game.table.defections[partner] != 1:
            return
        ref = game.table.last_dilemma_vs[ctx.seat][partner]
        if (ref if ref is not None else game.table.last_dilemma[partner]) == DEFECT:
            outcomes.append(game.make_baseline("mirror", turn.seat).act(turn)["move"])

    for seed in range(60):
        _random_episode(seed, check)
    forgiven = outcomes.count(0) / len(outcomes)
    assert len(outcomes) > 100 and 0.1 < forgiven < 0.3


def test_the_fallback_is_mirror_with_the_seat_stream() -> None:
    game = make_game(seed=3)
    game.start()
    game.open_round()
    for turn in game.pending():
        assert game.fallback(turn) == game.make_baseline("mirror", turn.seat).act(turn)
