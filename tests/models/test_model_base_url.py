"""A base URL that is not the API's root (an OpenAI-compatible server's without its ``/v1``)
sends every request to a route the server does not have: each turn answered 404, each decision
played by the fallback, and the run went on to a results table. The check before play finds it
and stops the command with one line naming ``--base-url`` and the fix; a 404 for a model name
the server does not know is not blamed on the base URL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.errors import ConfigError
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm.preflight import check_provider
from helpers.provider_server import ProviderServer, Reply

LINE_UP = "llm,tit_for_tat,always_defect,pavlov"


def play(server: ProviderServer, out: Path, *more: str) -> tuple[int, str]:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    done = CliRunner().invoke(app, ["play", "dilemma", "--seats", LINE_UP, "--rounds", "2",
                                    "--out", str(out), *more], env={"COLUMNS": "300"})
    return done.exit_code, " ".join(done.output.split())


def test_a_base_url_without_v1_stops_play_before_any_turn(server: ProviderServer,
                                                          tmp_path: Path) -> None:
    code, said = play(server, tmp_path / "run", "--model", "m", "--base-url", server.url)
    assert code == 2, said
    assert said == (f"error: --base-url {server.url} is not the API's root: it answered 404 "
                    f"at {server.url}/chat/completions (no such route), while "
                    f"{server.url}/v1 answers: write {server.url}/v1")
    assert not (tmp_path / "run").exists()
    assert not [r for r in server.requests if r.messages]  # no turn was ever asked


def test_a_messages_api_base_url_with_a_wrong_path_stops_play(server: ProviderServer,
                                                              tmp_path: Path) -> None:
    code, said = play(server, tmp_path / "run", "--provider", "anthropic", "--model", "m",
                      "--base-url", f"{server.url}/api")
    assert code == 2, said
    assert said.startswith(f"error: --base-url {server.url}/api is not the API's root: it "
                           f"answered 404 at {server.url}/api/v1/messages (no such route)")
    assert "the host, without /v1" in said


def test_a_model_the_server_does_not_know_is_not_blamed_on_the_base_url(
        server: ProviderServer, tmp_path: Path) -> None:
    """The right base URL, a model name the server does not serve: the 404 names the model,
    and so does the error, without sending the writer to change a base URL that is right."""
    server.models_route = False  # no models list to probe: the route check decides
    with pytest.raises(ConfigError) as bad:
        server.script = lambda _req: Reply(fault="404")
        check_provider(ModelOptions(provider="openai", model="nope",
                                    base_url=server.openai_url))
    assert bad.value.field == "model"
    assert str(bad.value) == (f"model 'nope' is not served at {server.openai_url}: it "
                              f"answered 404 naming the model at {server.openai_url}"
                              "/chat/completions (check --model against the server's models)")


def test_a_404_during_play_names_the_model_when_the_server_does(server: ProviderServer,
                                                                tmp_path: Path) -> None:
    """The models list answers (the base URL is right), the completions 404 for the model:
    play goes on (the check before play lists models, it does not send turns), and the error
    behind the fallbacks says the model, not the base URL."""
    server.script = lambda _req: Reply(fault="404")
    done = CliRunner().invoke(app, ["play", "dilemma", "--seats", LINE_UP, "--rounds", "1",
                                    "--out", str(tmp_path / "run"), "--model", "nope",
                                    "--base-url", server.openai_url])
    assert done.exit_code == 0, done.output
    models = json.loads((tmp_path / "run" / "results.json").read_text())["models"]
    error = models["errors"][0]["transport"]
    assert error.startswith("NotFoundError: Error code: 404")
    assert "the server does not know this model: check the model name" in error
    assert "/v1" not in error.split(" - ", 1)[0] and "base URL" not in error


def test_profile_stops_on_a_base_url_without_v1(server: ProviderServer) -> None:
    """`cogleague profile llm:…` played its whole battery by the fallback (a profile of the
    baseline, with a warning after the fact): it now checks the provider before the battery,
    as `play` does."""
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    done = CliRunner().invoke(app, ["profile", "llm", "--game", "dilemma", "--episodes", "1",
                                    "--model", "m", "--base-url", server.url],
                              env={"COLUMNS": "300"})
    said = " ".join(done.output.split())
    assert done.exit_code == 2, said
    assert said.startswith(f"error: --base-url {server.url} is not the API's root")
    assert not [r for r in server.requests if r.messages]


def test_the_record_replay_python_play_checks_the_provider_first(server: ProviderServer,
                                                                 tmp_path: Path) -> None:
    """`cogleague.seats.llm.api.play` (the Python face of record/replay) checked nothing: a
    base URL without /v1 recorded an episode of 404s and fallbacks."""
    from cogleague.seats.llm.api import play as api_play

    with pytest.raises(ConfigError) as bad:
        api_play("dilemma", LINE_UP.split(","), seed=1, overrides={"rounds_total": 1},
                 model=ModelOptions(provider="openai", model="m", base_url=server.url),
                 record=tmp_path / "calls")
    assert bad.value.field == "base_url"
    assert not (tmp_path / "calls").exists()
