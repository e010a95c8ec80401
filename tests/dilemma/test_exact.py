"""Exact rules (issue 12 item 8) at the dilemma: ranks are integers (test_payoffs…); the
generous tit-for-tat's forgiveness is the exact fraction, also where its two terms tie."""

from __future__ import annotations

from fractions import Fraction

from cogleague.games.dilemma.baselines.generous_tit_for_tat import forgiveness
from cogleague.games.dilemma.config import Payoffs


def test_forgiveness_is_exact_when_both_terms_are_equal() -> None:
    # T 4, R 3, P 1, S 0: 1 − (4−3)/(3−0) = 2/3 and (3−1)/(4−1) = 2/3 — in floats
    # 0.6666666666666667 and 0.6666666666666666, so a float min picks one by an ulp
    p = Payoffs(reward=3, punishment=1, temptation=4, sucker=0)
    assert 1 - (4 - 3) / (3 - 0) != (3 - 1) / (4 - 1)
    assert forgiveness(p) == Fraction(2, 3)
    assert 0.6666666666666666 < forgiveness(p) < 0.6666666666666667
