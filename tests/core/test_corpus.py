"""Fresh runs against the byte corpus (`tests/corpus/regenerate.py`): every results document,
episode log and replay document stays byte-identical to the stored one.

When a change alters a rule or a format on purpose, regenerate the corpus in that commit
(``PYTHONPATH=src python tests/corpus/regenerate.py``) and say why in its message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "corpus"))

import regenerate

from cogleague.core import jsonio

CASES = list(regenerate.cases())


def test_corpus_covers_every_builtin_game_and_variant() -> None:
    from cogleague.games import registry

    covered = {(c.game, c.variant) for c in CASES}
    for game in regenerate.GAMES:
        for variant in registry.get(game).variants:
            assert (game, variant) in covered
    assert all(regenerate.path_of(c, "replay").exists() for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.game}-{c.stem}")
def test_fresh_run_matches_the_corpus_byte_for_byte(case: regenerate.Case) -> None:
    """Results, log and replay, and the replay as hosts write it (`replay_direct`: spliced
    from encoded parts where the game can) against the stored replay."""
    for kind, fresh in regenerate.render_all(case).items():
        stored = regenerate.stored(case, "replay" if kind == "replay_direct" else kind)
        assert stored is not None, f"{regenerate.path_of(case, kind)} is missing; regenerate"
        if fresh != stored:
            where = jsonio.first_difference(json.loads(stored), json.loads(fresh))
            pytest.fail(f"{case.game} {case.stem} {kind} differs from the corpus: {where} "
                        "(regenerate only for an intended rule or format change)")
