"""The batch deal is `setup.deal` for every seed: aliases, favourites, owners and pairs, also
for the tables that draw past the words read up front."""

from __future__ import annotations

import pytest

from cogleague.games.commons import batch_deal
from cogleague.games.commons.modules.common import COLORS
from cogleague.games.commons.setup import deal


def _same(seeds: list[int], n: int, patches: int) -> None:
    order, fav, owner, pair_a, pair_b = batch_deal.batch_deal(seeds, n, patches)
    for i, seed in enumerate(seeds):
        want = deal(seed, n, patches)
        assert ["Cog-" + chr(65 + x) for x in order[i]] == want.aliases
        assert [COLORS[c] for c in fav[i]] == want.favorites
        assert owner[i].tolist() == want.owner
        assert [[int(pair_a[i, 2 * k]), int(pair_b[i, 2 * k])]
                for k in range(len(want.pairs))] == want.pairs


@pytest.mark.parametrize(("n", "patches"), [(6, 6), (2, 1), (5, 9), (12, 12), (9, 3)])
def test_batch_deal_is_the_rules_deal(n: int, patches: int) -> None:
    _same([0, 1, 2, 20260824, 2**63 - 1, *range(100, 400)], n, patches)


def test_tables_past_the_words_read_are_dealt_by_the_rules(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_deal, "WORDS", 12)
    _same(list(range(200)), 12, 12)
