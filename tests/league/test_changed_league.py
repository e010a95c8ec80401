"""A league file edited between runs: more episodes extend the schedule; other options for
a game the store already played are refused, naming the field, before anything runs (the
episode ids hash no options, so the finished episodes would otherwise count as played with
the new ones and nothing would be played again)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import league_text, stored
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.errors import ConfigError
from cogleague.league import config as league_config

cli = CliRunner()


def with_rounds(rounds: int, episodes: int = 6) -> str:
    return league_text(episodes=episodes).replace(
        "seats = 3", f"seats = 3\noverrides = {{ rounds = {rounds} }}")


def test_other_options_for_a_played_game_are_refused_and_more_episodes_extend(
        write_league: Callable[..., Path]) -> None:
    path = write_league(with_rounds(3))
    first = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert first.exit_code == 0 and "played 6 episodes" in first.output, first.output
    url = league_config.load(path).store_url
    before = stored(url)

    path.write_text(with_rounds(5), encoding="utf-8")
    changed = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert changed.exit_code == 2, changed.output
    assert "games[0].overrides" in changed.output and "Traceback" not in changed.output
    standings = cli.invoke(app, ["league", "standings", str(path)])
    assert standings.exit_code == 2 and "games[0].overrides" in standings.output
    assert stored(url) == before

    path.write_text(with_rounds(3, episodes=9), encoding="utf-8")  # the same options, longer
    more = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert more.exit_code == 0 and "6 already finished, 3 to play" in more.output, more.output
    assert set(before) < set(stored(url))


def run_league(path: Path) -> tuple[int, str]:
    done = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    return done.exit_code, done.output


def refused(path: Path, field: str, *parts: str) -> None:
    """`run` and `standings` both refuse, naming the field, what is stored and what the file
    now says, and how to go on; the store is untouched."""
    url = league_config.load(path).store_url
    before = stored(url)
    for command in (["run", str(path), "--workers", "1"], ["standings", str(path)]):
        done = cli.invoke(app, ["league", *command])
        assert done.exit_code == 2, done.output
        assert field in done.output and "Traceback" not in done.output, done.output
        assert "league.name or league.store" in done.output, done.output
        for part in parts:
            assert part in done.output, done.output
    assert stored(url) == before


@pytest.mark.parametrize(("edit", "field", "parts"), [
    (lambda text: text.replace("seed = 11", "seed = 12"), "league.seed",
     ("must stay 11", "got 12")),
    (lambda text: text.replace('baseline = "s2"', 'baseline = "s9"'), "policies[0] (weak)",
     ("baseline s2", "baseline s9", "skill")),
    (lambda text: text.replace("seats = 3", "seats = 4"), "games[0].seats",
     ("must stay 3", "got 4")),
    (lambda text: text.replace('bot = "leaguegames:SteadyBot"', 'baseline = "s5"'),
     "policies[3] (steady)", ("bot leaguegames:SteadyBot", "baseline s5")),
], ids=["seed", "policy", "seats", "policy-kind"])
def test_an_edit_that_would_mix_results_in_the_store_is_refused(
        write_league: Callable[..., Path], edit: Callable[[str], str], field: str,
        parts: tuple[str, ...]) -> None:
    path = write_league(league_text(episodes=6))
    assert run_league(path)[0] == 0
    path.write_text(edit(league_text(episodes=6)), encoding="utf-8")
    refused(path, field, *parts)
    path.write_text(edit(league_text(name="t2", episodes=6)), encoding="utf-8")
    code, out = run_league(path)  # a new league name: a fresh league beside the old one
    assert code == 0 and "0 already finished, 6 to play" in out, out


def test_a_changed_prompt_file_is_refused(write_league: Callable[..., Path],
                                          tmp_path: Path) -> None:
    prompt = tmp_path / "fair.txt"
    prompt.write_text("Play fair.", encoding="utf-8")
    model = '[[policies]]\nname = "fair"\nprompt = "fair.txt"\nmodel = "m1"\n'
    path = write_league(league_text(episodes=2, extra_policies=model))
    # record the league's facts as a run does, without calling a model
    from cogleague.league import identity, store

    config = league_config.load(path)
    store.save_facts(config.store_url, config.name, identity.facts(config))
    prompt.write_text("Play greedy.", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"policies\[4\] \(fair\) must stay"):
        identity.check(league_config.load(path))


def test_extending_the_league_keeps_working(write_league: Callable[..., Path]) -> None:
    """More episodes, a new policy, a new variant: the stored episodes stay and count."""
    path = write_league(league_text(episodes=6))
    assert run_league(path)[0] == 0
    more = '[[policies]]\nname = "top"\nauthor = "tests"\nbaseline = "s9"\n'
    path.write_text(league_text(episodes=9, extra_policies=more,
                                variants='["standard", "long"]'), encoding="utf-8")
    code, out = run_league(path)
    assert code == 0 and "Traceback" not in out, out
    code, out = run_league(path)
    assert code == 0 and "nothing to play" in out, out


def test_a_moved_league_folder_is_the_same_league(write_league: Callable[..., Path],
                                                  tmp_path: Path) -> None:
    """Paths are not part of a policy's identity: a bot file and a prompt are named by file
    name (and a prompt by its text), so the league can move with its store."""
    (tmp_path / "a").mkdir()
    bot = tmp_path / "a" / "mybot.py"
    bot.write_text("from leaguegames import SteadyBot as Mine\n", encoding="utf-8")
    extra = '[[policies]]\nname = "mine"\nbot = "mybot.py:Mine"\n'
    path = tmp_path / "a" / "league.toml"
    path.write_text(league_text(episodes=4, extra_policies=extra).replace(
        '[league]', '[league]\nstore = "league.db"'), encoding="utf-8")
    assert run_league(path)[0] == 0
    moved = tmp_path / "b"
    (tmp_path / "a").rename(moved)
    code, out = run_league(moved / "league.toml")
    assert code == 0 and "nothing to play" in out, out


def test_a_store_made_before_the_check_tables_still_ranks_read_only(
        write_league: Callable[..., Path]) -> None:
    """A store made before `league_options` and `league_facts` existed, opened read-only:
    ranked as it is."""
    import sqlite3

    path = write_league(league_text(episodes=6))
    assert run_league(path)[0] == 0
    db = Path(league_config.load(path).store_url.removeprefix("sqlite:///"))
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE league_facts")
        conn.execute("DROP TABLE league_options")
    read_only = f"sqlite:///file:{db}?mode=ro&uri=true"
    done = cli.invoke(app, ["league", "standings", str(path), "--store", read_only])
    assert done.exit_code == 0 and "6 episodes" in done.output, (done.output, done.exception)


def test_a_run_that_played_nothing_pins_nothing(write_league: Callable[..., Path],
                                                tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A run refused before its first episode (here: no API key for the model policy) records
    nothing, so fixing the file (another model, other options) is not refused as an edit of a
    played league."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / "fair.txt").write_text("Play fair.", encoding="utf-8")
    model = '[[policies]]\nname = "fair"\nprompt = "fair.txt"\nmodel = "{}"\n'
    path = write_league(league_text(episodes=2, extra_policies=model.format("gpt-4o-mni")))
    code, out = run_league(path)
    assert code == 2 and "policy fair: OPENAI_API_KEY" in out, out
    fixed = league_text(episodes=2, extra_policies=model.format("gpt-4o-mini"))
    path.write_text(fixed.replace("seats = 3", "seats = 3\noverrides = { rounds = 4 }"),
                    encoding="utf-8")
    code, out = run_league(path)
    assert code == 2 and "must stay" not in out, out
    assert "policy fair: OPENAI_API_KEY" in out, out


def test_a_run_refused_for_its_engine_pins_nothing(write_league: Callable[..., Path]) -> None:
    """`--engine batch` on a league a batch kernel cannot play is refused before anything is
    recorded, so the file may still change (other options) before its first real run."""
    path = write_league(league_text(episodes=2))
    done = cli.invoke(app, ["league", "run", str(path), "--workers", "1", "--engine", "batch"])
    assert done.exit_code == 2 and "engine batch" in done.output, done.output
    path.write_text(with_rounds(4, episodes=2), encoding="utf-8")
    code, out = run_league(path)
    assert code == 0 and "must stay" not in out, out


MODEL = ('[[policies]]\nname = "fair"\nprompt = "fair.txt"\nmodel = "m1"\n'
         'provider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n')


@pytest.mark.parametrize(("edit", "field", "parts"), [
    (lambda text: text.replace('provider = "openai"', 'provider = "anthropic"'),
     "policies[4].provider", ("must stay openai", "got anthropic")),
    (lambda text: text.replace("127.0.0.1:9", "10.0.0.9:8000"), "policies[4].base_url",
     ("must stay http://127.0.0.1:9/v1", "got http://10.0.0.9:8000/v1")),
    (lambda text: text.replace('base_url = "http://127.0.0.1:9/v1"\n', ""),
     "policies[4].base_url", ("got the provider's default",)),
    (lambda text: text.replace('provider = "openai"', 'provider = "openai"\n'
                               'max_reply_tokens = 8000'),
     "policies[4].max_reply_tokens", ("must stay 1024", "got 8000")),
], ids=["provider", "base_url", "base_url-dropped", "max_reply_tokens"])
def test_a_model_policy_moved_to_another_provider_or_endpoint_is_refused(
        write_league: Callable[..., Path], tmp_path: Path, edit: Callable[[str], str],
        field: str, parts: tuple[str, ...]) -> None:
    """Another provider or base_url is another model behind the same name, another reply cap
    the same model allowed other replies: its episodes would be mixed with the stored ones in
    the standings."""
    from cogleague.league import identity, store

    (tmp_path / "fair.txt").write_text("Play fair.", encoding="utf-8")
    text = league_text(episodes=2, extra_policies=MODEL)
    path = write_league(text)
    config = league_config.load(path)
    store.save_facts(config.store_url, config.name, identity.facts(config))
    path.write_text(text.replace('base_url = "http://127.0.0.1:9/v1"',
                                 'base_url = "http://127.0.0.1:9/v1/"'), encoding="utf-8")
    identity.check(league_config.load(path))  # a trailing slash is the same endpoint
    path.write_text(text.replace('provider = "openai"',
                                 'provider = "openai"\nmax_reply_tokens = 1024'),
                    encoding="utf-8")
    identity.check(league_config.load(path))  # the default cap, written out, is the same
    path.write_text(edit(text), encoding="utf-8")
    with pytest.raises(ConfigError) as refused_:
        identity.check(league_config.load(path))
    assert refused_.value.field == field, refused_.value
    for part in parts:
        assert part in str(refused_.value), refused_.value


def test_a_store_made_before_endpoint_facts_still_loads_read_only(
        write_league: Callable[..., Path], tmp_path: Path) -> None:
    """A store whose facts predate the provider and base_url ones: checked on what it has,
    ranked read-only as it is."""
    import sqlite3

    from cogleague.league import identity, store

    (tmp_path / "fair.txt").write_text("Play fair.", encoding="utf-8")
    assert run_league(write_league(league_text(episodes=6)))[0] == 0
    path = write_league(league_text(episodes=6, extra_policies=MODEL))  # the league, extended
    config = league_config.load(path)
    store.save_facts(config.store_url, config.name, identity.facts(config))
    db = Path(config.store_url.removeprefix("sqlite:///"))
    with sqlite3.connect(db) as conn:
        gone = conn.execute("DELETE FROM league_facts WHERE key LIKE '%provider%' "
                            "OR key LIKE '%base_url%'").rowcount
    assert gone == 2
    store.dispose_all()
    read_only = f"sqlite:///file:{db}?mode=ro&uri=true"
    identity.check(league_config.load(path, store_url=read_only))
    done = cli.invoke(app, ["league", "standings", str(path), "--store", read_only])
    assert done.exit_code == 0 and "6 episodes" in done.output, (done.output, done.exception)
