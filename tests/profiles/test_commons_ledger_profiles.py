"""Commons and Ledger profiles: effort to maintenance, sanctions, collapse; kindness per
subgame and role, and whether notes about a partner match that partner's play."""

from __future__ import annotations

import sys
from pathlib import Path

from cogleague.games.ledger.probes import tone
from cogleague.games.registry import get
from cogleague.profiles import profile

sys.path.insert(0, str(Path(__file__).parent))


def test_commons_free_rider_maintains_less_and_the_resource_collapses() -> None:
    desc = get("commons")
    steward = profile(desc, "steward", episodes=4)
    rider = profile(desc, "free_rider", episodes=4)
    assert steward.value("maintenance_share").value > rider.value("maintenance_share").value
    assert rider.value("collapse").value == 1.0 and steward.value("collapse").value == 0.0
    assert rider.value("rounds_to_collapse").n == 4 and steward.value("rounds_to_collapse").n == 0
    punisher = profile(desc, "punisher", episodes=2)
    assert punisher.value("sanctions_given").value > 0
    assert steward.value("sanctions_given").value == 0


def test_ledger_kindness_per_subgame_and_role() -> None:
    desc = get("ledger")
    saint = profile(desc, "saint", episodes=3)
    shark = profile(desc, "shark", episodes=3)
    for role in ("dilemma", "trust_investor", "trust_trustee", "ultimatum_proposer"):
        assert saint.value(f"kind_{role}").value == 1.0
        assert shark.value(f"kind_{role}").value == 0.0
    assert saint.value("notes").value == 0.0 and saint.value("note_accuracy").n == 0


def test_ledger_notes_that_match_the_partner_score_one_and_lies_zero() -> None:
    desc = get("ledger")
    honest = profile(desc, "notebots:HonestNotes", episodes=2).value("note_accuracy")
    liar = profile(desc, "notebots:LyingNotes", episodes=2).value("note_accuracy")
    assert honest.n > 10 and honest.value == 1.0
    assert liar.n == honest.n and liar.value == 0.0


def test_note_tone_keyword_rule() -> None:
    assert tone("A kind, fair partner") is True
    assert tone("greedy shark, avoid") is False
    assert tone("kind but greedy") is None and tone("no opinion") is None
