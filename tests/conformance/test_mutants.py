"""Each conformance check fails on a game that breaks its rule, and says where."""

from __future__ import annotations

import pytest

from cogleague.core.descriptor import GameDescriptor
from cogleague.testing import ConformanceError, check_game

from . import mutants

CASES = [
    (mutants.CHOICE_LEAK, "hidden_information", "sees the sealed reply"),
    (mutants.MEMO_LEAK, "hidden_information", r"sees the sealed reply \(never\)"),
    (mutants.PARTIAL_COMMIT, "transactional", "changed the state"),
    (mutants.LATE_RENDER, "steps", "played observed, the .* differs from the headless run"),
    (mutants.HASH_ORDER, "determinism", "PYTHONHASHSEED=.* gives another replay"),
    (mutants.WILD_FALLBACK, "fallbacks", "needs clamping"),
    (mutants.SCORES_BY_ALIAS, "shapes", "results.scores must list one number per seat"),
    (mutants.INT_KEYS, "shapes", "key 0 is not a string"),
    (mutants.CRASH_ON_LIST, "random_play", "KeyError"),
    (mutants.STALE_RESTART, "restart", "restarted after .* the replay differs from a new "),
    (mutants.NO_REPLAY_BUILDER, "replay", "declares no game_from_replay"),
    (mutants.FLOAT_HUMAN_DEADLINE, "shapes", r"human_config: .*turn_deadline_ms must be an "
                                             r"integer in .* \(got 30000\.0\)"),
]


@pytest.mark.parametrize(("desc", "check", "message"), CASES,
                         ids=[f"{c}-{m[:20]}" for _, c, m in CASES])
def test_a_broken_game_fails_its_check(desc: GameDescriptor, check: str, message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(desc, checks=[check], seeds=2, examples=8)


def test_unknown_checks_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="checks must be among determinism, replay"):
        check_game(mutants.CHOICE_LEAK, checks=["telepathy"])
