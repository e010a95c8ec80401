"""The policy book an offline league keeps in its store (`league_policies`): what the
standings and the Observatory label each policy with. An offline policy file is a policy file,
named by its file name; a season's hosted policy (kind ``policy``, from the server) stays
hosted — the two never share a label, and no book entry carries a local path."""

from __future__ import annotations

from pathlib import Path

from cogleague.league import config as league_config
from cogleague.league import runner, store
from cogleague.league.backends.local import LocalBackend
from cogleague.league.rankings import standings_json
from season.season import constant_policy


def test_an_offline_policy_file_is_labelled_a_policy_file_by_its_name(tmp_path: Path) -> None:
    (tmp_path / "trained").mkdir()
    constant_policy(tmp_path / "trained" / "coop.npz", "dilemma", 0)
    (tmp_path / "fair.txt").write_text("Play fair.", encoding="utf-8")
    (tmp_path / "mine.py").write_text("from cogleague import Bot\n\nclass Mine(Bot):\n"
                                      "    def on_turn(self, turn):\n"
                                      "        return {'action': 'cooperate'}\n",
                                      encoding="utf-8")
    path = tmp_path / "league.toml"
    path.write_text(f'''
[league]
name = "book"
seed = 1
store = "sqlite:///{tmp_path / 'book.db'}"

[[policies]]
name = "tft"
author = "ann"
baseline = "tit_for_tat"

[[policies]]
name = "trained"
author = "bob"
policy = "trained/coop.npz"

[[policies]]
name = "mine"
bot = "mine.py:Mine"

[[games]]
name = "dilemma"
episodes = 2
seats = 3
overrides = {{ rounds_total = 2 }}
''', encoding="utf-8")
    cfg = league_config.load(path)
    summary = runner.run(cfg, LocalBackend(1))
    assert summary.played > 0 and summary.failed == 0
    # a season's hosted policy recorded into the same store keeps the hosted kind
    store.add_policies(cfg.store_url, "season", [{"name": "coop@v1", "author": "hal",
                                                 "kind": "policy", "ref": "coop@v1"}])
    book = store.load_policies(cfg.store_url, "book")
    assert book["trained"]["kind"] == "policy_file" and book["trained"]["ref"] == "coop.npz"
    assert store.load_policies(cfg.store_url, "season")["coop@v1"]["kind"] == "policy"
    assert book["mine"]["ref"] == "mine.py:Mine"
    assert not any(str(tmp_path) in (entry["ref"] or "") for entry in book.values()), book
    doc = standings_json(cfg.store_url, leagues=["book"], resamples=100)
    kinds = {r["policy"]: r["kind"] for t in doc["tables"] for r in t["rows"]}
    assert kinds == {"tft": "baseline", "trained": "policy_file", "mine": "bot"}
    # the same store as a run before policy files had their kind left it: read the same way
    store.save_policies(cfg.store_url, "book", [
        {**entry, "kind": "policy", "ref": str(tmp_path / "trained" / "coop.npz")}
        if entry["name"] == "trained" else entry for entry in book.values()])
    doc = standings_json(cfg.store_url, leagues=["book"], resamples=100)
    assert kinds == {r["policy"]: r["kind"] for t in doc["tables"] for r in t["rows"]}


def _book_rows(url: str, league: str) -> list[tuple[str, str, str]]:
    from sqlalchemy import text

    with store.engine_for(url).connect() as conn:
        return sorted(tuple(r) for r in conn.execute(text(
            "SELECT name, kind, ref FROM league_policies WHERE league = :l"), {"l": league}))


def test_a_store_last_run_before_policy_files_had_their_kind_reads_as_the_new_book(
        tmp_path: Path) -> None:
    """A store whose book was written before policy files had their own kind (kind
    ``policy``, refs the full local paths) is read as the book is written now — by the
    standings, the report and the Observatory alike — without a `league run` first, and
    reading it writes nothing to the store."""
    (tmp_path / "trained").mkdir()
    constant_policy(tmp_path / "trained" / "coop.npz", "dilemma", 0)
    (tmp_path / "mine.py").write_text("from cogleague import Bot\n\nclass Mine(Bot):\n"
                                      "    def on_turn(self, turn):\n"
                                      "        return {'action': 'cooperate'}\n",
                                      encoding="utf-8")
    (tmp_path / "fair.txt").write_text("Play fair.", encoding="utf-8")
    url = store.sqlite_url(tmp_path / "old.db")
    old_book = [  # as `Policy.book_entry` wrote it then: kind and ref as the config held them
        {"name": "tft", "author": "ann", "kind": "baseline", "ref": "tit_for_tat"},
        {"name": "trained", "author": "bob", "kind": "policy",
         "ref": str(tmp_path / "trained" / "coop.npz")},
        {"name": "mine", "author": "cy", "kind": "bot", "ref": f"{tmp_path / 'mine.py'}:Mine"},
        {"name": "fair", "author": "di", "kind": "model", "ref": str(tmp_path / "fair.txt"),
         "model": "m"},
        {"name": "mod", "author": "ed", "kind": "bot", "ref": "leaguegames:SteadyBot"}]
    store.save_policies(url, "old", old_book)
    store.add_policies(url, "season", [{"name": "coop@v1", "author": "hal", "kind": "policy",
                                        "ref": "coop@v1"}])
    rows = _book_rows(url, "old")
    book = store.load_policies(url, "old")
    assert {n: (e["kind"], e["ref"]) for n, e in book.items()} == {
        "tft": ("baseline", "tit_for_tat"), "trained": ("policy_file", "coop.npz"),
        "mine": ("bot", "mine.py:Mine"), "fair": ("model", "fair.txt"),
        "mod": ("bot", "leaguegames:SteadyBot")}
    assert not any(str(tmp_path) in (e["ref"] or "") for e in book.values()), book
    assert store.load_policies(url, "season")["coop@v1"]["kind"] == "policy"  # still hosted
    assert store.load_policies(url)["trained"]["kind"] == "policy_file"  # the whole book too
    assert _book_rows(url, "old") == rows  # read, not rewritten


def test_a_policy_dropped_from_the_file_keeps_its_label_while_its_episodes_rank(
        tmp_path: Path) -> None:
    """A policy taken out of the league file between runs is allowed (it only stops being
    scheduled), and its stored episodes are still ranked: the next run keeps its book entry,
    so the standings still show its author and kind rather than an unknown server account."""
    policies = {"tft": ("ann", "tit_for_tat"), "pav": ("bob", "pavlov"),
                "ad": ("cy", "always_defect")}

    def write(names: list[str]) -> Path:
        book = "".join(f'[[policies]]\nname = "{n}"\nauthor = "{policies[n][0]}"\n'
                       f'baseline = "{policies[n][1]}"\n\n' for n in names)
        path = tmp_path / "league.toml"
        path.write_text(f'[league]\nname = "drop"\nseed = 1\n\n{book}[[games]]\n'
                        'name = "dilemma"\nepisodes = 6\nseats = 3\n'
                        'overrides = { rounds_total = 2 }\n', encoding="utf-8")
        return path

    runner.run(league_config.load(write(["tft", "pav", "ad"])), LocalBackend(1))
    cfg = league_config.load(write(["tft", "pav"]))
    assert runner.run(cfg, LocalBackend(1)).played > 0
    doc = standings_json(cfg.store_url, leagues=["drop"], resamples=100)
    rows = {r["policy"]: (r["author"], r["kind"]) for t in doc["tables"] for r in t["rows"]}
    assert rows == {"tft": ("ann", "baseline"), "pav": ("bob", "baseline"),
                    "ad": ("cy", "baseline")}, rows
