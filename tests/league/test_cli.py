"""`cogleague league …` end to end through the real CLI: init, run, standings, report."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from leaguefiles import HERE, TESTS
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.league import config as league_config
from cogleague.league import store

cli = CliRunner()


def test_init_writes_the_example_and_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "league.toml"
    result = cli.invoke(app, ["league", "init", str(target)])
    assert result.exit_code == 0, result.output
    assert "[[policies]]" in target.read_text() and "# " in target.read_text()
    again = cli.invoke(app, ["league", "init", str(target)])
    assert again.exit_code == 2 and "already exists" in again.output


def test_example_league_is_valid_on_the_built_in_games(tmp_path: Path) -> None:
    from cogleague.league import config

    target = tmp_path / "league.toml"
    cli.invoke(app, ["league", "init", str(target)])
    cfg = config.load(target)
    assert {g.name for g in cfg.games} == {"dilemma", "commons", "ledger"}
    assert len(cfg.schedule()) > 0


def test_run_standings_report(write_league: Callable[..., Path], tmp_path: Path) -> None:
    path = write_league(episodes=12)
    result = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "played 12 episodes" in result.output
    rerun = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert "12 already finished" in rerun.output and "nothing to play" in rerun.output

    table = cli.invoke(app, ["league", "standings", str(path)])
    assert table.exit_code == 0, table.output
    assert "skill · standard" in table.output and "Bradley–Terry" in table.output
    doc = json.loads(cli.invoke(app, ["league", "standings", str(path), "--json"]).output)
    assert doc["episodes"] == {"ok": 12, "failed": 0, "infra_error": 0, "no_players": 0}

    out = tmp_path / "report"
    report = cli.invoke(app, ["league", "report", str(path), "--out", str(out)])
    assert report.exit_code == 0, report.output
    page = (out / "index.html").read_text()
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert "ranks-skill-standard.png" in pngs and "scores-skill-standard.png" in pngs
    assert "overall-bradley-terry.png" in pngs and "overall-openskill.png" in pngs
    for name in pngs:
        assert name in page
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_errors_are_one_line_with_exit_code_2(write_league: Callable[..., Path],
                                                  tmp_path: Path) -> None:
    missing = cli.invoke(app, ["league", "run", str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    path = write_league()
    bad = cli.invoke(app, ["league", "run", str(path), "--backend", "spark"])
    assert bad.exit_code == 2 and "backend must be one of local, ray" in bad.output
    assert "Traceback" not in bad.output
    empty = cli.invoke(app, ["league", "standings", str(path)])
    assert empty.exit_code == 2 and "no finished episodes" in empty.output


def test_bad_options_are_refused_before_anything_is_stored(
        write_league: Callable[..., Path]) -> None:
    from cogleague.league import config, store

    path = write_league(episodes=4)
    url = config.load(path).store_url
    zero = cli.invoke(app, ["league", "run", str(path), "--workers", "0"])
    assert zero.exit_code == 2 and "workers must be an integer in 1.." in zero.output, zero.output
    engine = cli.invoke(app, ["league", "run", str(path), "--engine", "fast"])
    assert engine.exit_code == 2 and "engine must be one of" in engine.output, engine.output
    assert "scheduled" not in engine.output  # refused before the run is announced
    assert store.load_policies(url, "t") == {} and store.stored_options(url, "t") == {}
    assert store.load_episodes(url) == []


def test_standings_of_a_game_the_league_does_not_play_say_so(
        write_league: Callable[..., Path]) -> None:
    path = write_league(episodes=4)
    assert cli.invoke(app, ["league", "run", str(path), "--workers", "1"]).exit_code == 0
    done = cli.invoke(app, ["league", "standings", str(path), "--game", "chess"])
    assert done.exit_code == 2, done.output
    assert "--game" in done.output and "chess" in done.output and "skill" in done.output
    assert "no finished episodes" not in done.output


def test_a_report_directory_that_cannot_be_written_is_one_line(
        write_league: Callable[..., Path], tmp_path: Path) -> None:
    path = write_league(episodes=4)
    assert cli.invoke(app, ["league", "run", str(path), "--workers", "1"]).exit_code == 0
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    done = cli.invoke(app, ["league", "report", str(path), "--out", str(blocker / "report")])
    assert done.exit_code == 2, (done.output, done.exception)
    assert "--out" in done.output and str(blocker / "report") in done.output


def test_a_league_file_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe[league]\n")
    for target, words in ((tmp_path, "cannot be read"), (binary, "not UTF-8")):
        for command in ("run", "standings"):
            done = cli.invoke(app, ["league", command, str(target)])
            assert done.exit_code == 2, (done.output, done.exception)
            assert str(target) in done.output and words in done.output, done.output
    init = cli.invoke(app, ["league", "init", str(tmp_path), "--force"])
    assert init.exit_code == 2 and str(tmp_path) in init.output, (init.output, init.exception)


def test_standings_of_a_store_that_does_not_exist_create_none(
        write_league: Callable[..., Path], tmp_path: Path) -> None:
    path = write_league(episodes=4)
    typo = tmp_path / "lague.db"
    for command in (["standings", str(path)], ["standings", str(path), "--store",
                                                f"sqlite:///{typo}"],
                    ["report", str(path), "--out", str(tmp_path / "out")]):
        done = cli.invoke(app, ["league", *command])
        assert done.exit_code == 2 and "no store at" in done.output, done.output
        assert "league run" in done.output
    assert not list(tmp_path.glob("*.db*")) and not (tmp_path / "out").exists()


def test_standings_print_names_authors_and_errors_as_written(
        write_league: Callable[..., Path]) -> None:
    """What users wrote (names, authors) and what failed episodes raised is text, never the
    terminal's markup: ``[/x]`` once crashed `standings` with a MarkupError, ``[bold]``
    vanished, and every failure's ``[status]`` was swallowed as a style tag."""
    from cogleague.league import config, store

    path = write_league(episodes=3)
    path.write_text(path.read_text().replace('name = "weak"\nauthor = "tests"',
                                             'name = "[bold]weak"\nauthor = "[/x]"')
                    .replace('name = "t"', 'name = "t[/]"'))
    ran = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert ran.exit_code == 0 and "league t[/]:" in ran.output, (ran.output, ran.exception)
    cfg = config.load(path)
    store.record_episode(cfg.store_url, game="skill", variant="standard", seed=1,
                         policy_names=["mid", "strong", "steady"], results=None,
                         status="failed", error="KeyError: [/oops]", league=cfg.name)
    done = cli.invoke(app, ["league", "standings", str(path)])
    assert done.exit_code == 0, (done.output, done.exception)
    for text in ("[bold]weak", "[/x]", "[failed]", "KeyError: [/oops]"):
        assert text in done.output, done.output


def test_a_store_that_cannot_be_reached_is_one_line_naming_it(
        write_league: Callable[..., Path]) -> None:
    """A PostgreSQL store nobody listens at (a mistyped port, a server down) is the store's
    error on one line — which database, why — with exit code 2, for every league command
    that opens it; never a traceback, and its password is not printed."""
    path = write_league(episodes=4)
    url = "postgresql+psycopg://league:secret@127.0.0.1:1/league"  # port 1: nothing listens
    for command in (["run", str(path), "--workers", "1"], ["standings", str(path)],
                    ["report", str(path), "--out", str(path.parent / "out")]):
        result = cli.invoke(app, ["league", *command, "--store", url])
        assert result.exit_code == 2, (command, result.output)
        assert isinstance(result.exception, SystemExit), (command, result.exception)
        assert "Traceback" not in result.output, result.output
        assert "error: store" in result.output and "127.0.0.1:1" in result.output, (
            command, result.output)
        assert "secret" not in result.output, result.output



def test_a_run_whose_every_episode_failed_exits_1(write_league: Callable[..., Path]) -> None:
    """A run that stored only failures (a broken bot in every line-up, a bad game module) has
    nothing to rank: a script or CI step running it must see that, not exit 0."""
    policies = "".join(f'[[policies]]\nname = "broken{i}"\nbot = "leaguegames:BrokenBot"\n\n'
                       for i in range(3))
    text = (f'[league]\nname = "b"\nseed = 1\npython_path = ["{TESTS}", "{HERE}"]\n\n'
            f'{policies}[[games]]\nname = "skill"\nmodule = "leaguegames"\n'
            f'variants = ["standard"]\nepisodes = 4\nseats = 3\n')
    path = write_league(text)
    run = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert run.exit_code == 1, run.output
    assert "every episode failed" in run.output
    stored = store.load_episodes(league_config.load(path).store_url)
    assert len(stored) == 4 and all(e.status == "failed" for e in stored)  # kept, as ever
    fine = cli.invoke(app, ["league", "run", str(write_league(filename="fine.toml", episodes=4)),
                            "--workers", "1"])
    assert fine.exit_code == 0, fine.output


def test_init_template_names_every_kind_of_policy(tmp_path: Path) -> None:
    """The template lists each policy kind docs/league.md's table lists — a trained policy
    file (`policy = "….npz"`) too, which an RL researcher otherwise only finds in rl.md."""
    target = tmp_path / "league.toml"
    assert cli.invoke(app, ["league", "init", str(target)]).exit_code == 0
    text = target.read_text(encoding="utf-8")
    for key in ("baseline = ", "prompt = ", "bot = ", "policy = "):
        assert f"#   {key}" in text, key
    assert '# policy = "' in text  # and a commented example of one


def test_a_run_whose_every_episode_hit_a_platform_fault_exits_1(
        write_league: Callable[..., Path]) -> None:
    """Every episode stored as infra_error (each worker playing one died) leaves nothing to
    rank, as a run of failures does: a script or CI step must see it, not exit 0."""
    policies = "".join(f'[[policies]]\nname = "killer{i}"\nbot = "leaguegames:KillerBot"\n\n'
                       for i in range(3))
    text = (f'[league]\nname = "k"\nseed = 1\npython_path = ["{TESTS}", "{HERE}"]\n\n'
            f'{policies}[[games]]\nname = "skill"\nmodule = "leaguegames"\n'
            f'variants = ["standard"]\nepisodes = 2\nseats = 3\n')
    path = write_league(text)
    run = cli.invoke(app, ["league", "run", str(path), "--workers", "2"])
    stored = store.load_episodes(league_config.load(path).store_url)
    assert len(stored) == 2 and all(e.status == "infra_error" for e in stored), run.output
    assert run.exit_code == 1, run.output
    assert "nothing to rank" in run.output and "--retry-infra" in run.output
    # the standings count them as the run did: infra_error, not also failed
    doc = json.loads(cli.invoke(app, ["league", "standings", str(path), "--json"]).output)
    assert doc["episodes"]["infra_error"] == 2 and doc["episodes"]["failed"] == 0
    out = path.parent / "report"
    report = cli.invoke(app, ["league", "report", str(path), "--out", str(out)])
    assert report.exit_code == 0, report.output
    page = (out / "index.html").read_text()
    assert "0 failed, 2 infra_error" in page and "--retry-infra" in page
    assert "Bradley–Terry on 0" not in page  # no empty ranking tables


def test_a_refusal_keeps_the_toml_table_it_names(tmp_path: Path) -> None:
    """`fail` prints through rich: a message naming `[league]` or `[season]` must show them,
    not take them for markup (it printed "bogus is not a  setting")."""
    path = tmp_path / "league.toml"
    path.write_text('[league]\nname = "x"\nbogus = 1\n[[policies]]\nname = "a"\n'
                    'baseline = "tit_for_tat"\n[[games]]\nname = "dilemma"\n')
    result = cli.invoke(app, ["league", "run", str(path)])
    assert result.exit_code == 2
    assert "bogus is not a [league] setting" in result.output, result.output


def test_run_league_refuses_a_chunk_size_below_one(write_league: Callable[..., Path]) -> None:
    """`chunk_size=0` was taken as automatic and `-1` made no chunks: nothing was played
    and the run said so as if the league were done."""
    import pytest

    import cogleague
    from cogleague.core.errors import ConfigError

    path = write_league(episodes=4)
    for bad in (0, -1):
        with pytest.raises(ConfigError, match=rf"chunk_size must be an integer in 1\.\.\d+ "
                                              rf"\(got {bad}\)"):
            cogleague.run_league(path, workers=1, chunk_size=bad)


def test_league_number_options_are_refused_in_one_line_naming_the_range(
        write_league: Callable[..., Path]) -> None:
    path = write_league(episodes=4)
    for args, line in (
            (["run", str(path), "--chunk-size", "0"], "error: --chunk-size must be an integer "
                                                      "in 1..1000000 (got 0)"),
            (["run", str(path), "--workers", "abc"], "error: --workers must be an integer in "
                                                     "1..1024 (got 'abc')"),
            (["run", str(path), "--workers", "0"], "error: --workers must be an integer in "
                                                   "1..1024 (got 0)"),
            (["standings", str(path), "--resamples", "5"], "error: --resamples must be an "
                                                           "integer in 100..100000 (got 5)"),
            (["run", str(path), "--backend", "nope"], "error: --backend must be one of local, "
                                                      "ray (got 'nope')"),
            (["run", str(path), "--engine", "fast"], "error: --engine must be one of auto, "
                                                     "batch, rules (got 'fast')")):
        result = cli.invoke(app, ["league", *args])
        assert result.exit_code == 2, (args, result.output)
        assert result.output.strip() == line, (args, result.output)
