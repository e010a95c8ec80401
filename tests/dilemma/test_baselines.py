"""Each baseline's documented behaviour, against scripted opponents."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from cogleague.core.episode import play_headless
from cogleague.games.dilemma.baselines.generous_tit_for_tat import forgiveness
from cogleague.games.dilemma.config import Payoffs
from dilemma.support import Scripted, game, play


def _vs(name: str, script: Sequence[str], seed: int = 1) -> list[str]:
    """`name` in seat 0 against seat 1 playing `script` round by round; seat 0's choices."""
    rounds = len(script)
    g = game([name, "always_cooperate", "always_cooperate"], seed=seed, rounds_total=rounds)
    seats = [g.make_baseline(name, 0), None, None]
    from cogleague.seats.scripted import ScriptedSeat

    lineup = [ScriptedSeat(seats[0], name),  # type: ignore[arg-type]
              Scripted(lambda t: {"action": script[t.round - 1]}, record=False),
              Scripted(lambda t: {"action": "cooperate"}, record=False)]
    outcome = play_headless(g, lineup)
    return [e.data["choices"][0] for e in outcome.log.events
            if e.kind == "choices_revealed" and e.data["seats"] == [0, 1]]


C, D = "cooperate", "defect"


def test_tit_for_tat_copies_the_previous_choice() -> None:
    assert _vs("tit_for_tat", [D, C, D, D, C, C]) == [C, D, C, D, D, C]


def test_grim_trigger_never_forgives() -> None:
    assert _vs("grim_trigger", [C, C, D, C, C, C]) == [C, C, C, D, D, D]


def test_pavlov_wins_stays_loses_shifts() -> None:
    # after (C,C) stay C; after (C,D) lost → D; after (D,D) lost → C; after (D,C) won → stay D
    assert _vs("pavlov", [C, D, D, C, C, C]) == [C, C, D, C, C, C]
    assert _vs("pavlov", [D, D, C, C]) == [C, D, C, C]


def test_always_cooperate_and_always_defect() -> None:
    assert _vs("always_cooperate", [D, D, D]) == [C, C, C]
    assert _vs("always_defect", [C, C, C]) == [D, D, D]


def test_generous_tit_for_tat_forgives_at_the_documented_rate() -> None:
    assert forgiveness(Payoffs()) == pytest.approx(1 / 3)  # min(1 - 2/3, 2/4)
    assert forgiveness(Payoffs(reward=4, punishment=1, temptation=5, sucker=0)) == 0.75
    choices = _vs("generous_tit_for_tat", [D] * 600, seed=3)
    forgiven = choices[1:].count(C) / len(choices[1:])
    assert choices[0] == C and 0.27 < forgiven < 0.40
    assert _vs("generous_tit_for_tat", [C] * 50) == [C] * 50  # never defects unprovoked
    assert _vs("generous_tit_for_tat", [D] * 600, seed=3) == choices  # seeded


def test_random_is_fifty_fifty_and_seeded() -> None:
    choices = _vs("random", [C] * 800, seed=11)
    assert 0.44 < choices.count(C) / 800 < 0.56
    assert _vs("random", [C] * 800, seed=11) == choices
    assert _vs("random", [C] * 800, seed=12) != choices


def test_randomness_of_a_seat_does_not_depend_on_its_neighbours() -> None:
    _, a = play(["random", "pavlov", "always_defect"], seed=5, rounds_total=30)
    _, b = play(["random", "tit_for_tat", "always_cooperate"], seed=5, rounds_total=30)

    def own(outcome) -> list[str]:  # type: ignore[no-untyped-def]
        return [e.data["action"] for e in outcome.log.events
                if e.kind == "action_private" and e.data["seat"] == 0]

    assert own(a) == own(b)


def test_silver_tongue_promises_always_and_defects_when_second() -> None:
    _, outcome = play(["silver_tongue", "always_cooperate", "always_cooperate"], rounds_total=4)
    mine = [e.data for e in outcome.log.events if e.kind == "action_private"
            and e.data["seat"] == 0]
    # seat 0 moves first in odd rounds against both opponents (it is the lower seat)
    assert [(m["round"], m["action"]) for m in mine] == [
        (1, C), (1, C), (2, D), (2, D), (3, C), (3, C), (4, D), (4, D)]
    sent = [e.data["message"] for e in outcome.log.events if e.kind == "message_private"
            and e.data["from"] == 0]
    assert sent == ["I will cooperate."] * 8


def test_unknown_baseline_is_a_config_error() -> None:
    from cogleague.core.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown dilemma baseline 'saint'"):
        game(["pavlov"] * 3).make_baseline("saint", 0)
