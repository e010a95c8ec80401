"""A served model seat's endpoint and reply cap. `serve` could not set the cap a prompt writer
sets with `play --max-reply-tokens`, and took a base URL that is not the API's root (every
served model seat then fell back, table after table) without a word; it now checks the
endpoint before it listens, and warns (without stopping) when nothing answers yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_server_recording import table

from cogleague.core.model_limits import MAX_REPLY_TOKENS, MIN_REPLY_TOKENS
from cogleague.server.settings import Settings
from helpers.provider_server import ProviderServer, Reply

COGLEAGUE = [sys.executable, "-c", "from cogleague.cli import main; main()"]


def serve_fails(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`serve` with options it must refuse before it listens (port 0: nothing to wait for)."""
    return subprocess.run([*COGLEAGUE, "serve", "--port", "0", "--db",
                           f"sqlite:///{tmp_path / 's.db'}", *extra],
                          capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "300", "PATH": "/usr/bin:/bin"})


def said(done: subprocess.CompletedProcess[str]) -> str:
    return " ".join(done.stderr.split())


async def test_a_served_model_seat_sends_the_operators_reply_cap() -> None:
    with ProviderServer(lambda _req: Reply('{"action": "cooperate"}')) as live:
        await table(Settings(model_provider="openai", model_name="m",
                             model_base_url=live.openai_url, model_max_reply_tokens=3000))
        caps = {r.body["max_completion_tokens"] for r in live.requests}
    assert caps == {3000}, caps


def test_serve_refuses_a_reply_cap_out_of_range_naming_it(tmp_path: Path) -> None:
    done = serve_fails(tmp_path, "--max-reply-tokens", str(MAX_REPLY_TOKENS + 1))
    assert done.returncode == 2, done.stderr
    assert (f"--max-reply-tokens must be an integer in {MIN_REPLY_TOKENS}..{MAX_REPLY_TOKENS} "
            f"(got {MAX_REPLY_TOKENS + 1})") in said(done), done.stderr
    assert not (tmp_path / "s.db").exists()


def test_serve_stops_on_a_base_url_without_v1_naming_its_option(tmp_path: Path) -> None:
    with ProviderServer(lambda _req: Reply('{"action": "cooperate"}')) as live:
        done = serve_fails(tmp_path, "--model-provider", "openai", "--model", "m",
                           "--model-base-url", live.url)
        asked = [r for r in live.requests if r.messages]
    assert done.returncode == 2, done.stderr
    assert said(done).startswith(f"error: --model-base-url {live.url} is not the API's root"), \
        done.stderr
    assert f"write {live.url}/v1" in said(done), done.stderr
    assert not asked and not (tmp_path / "s.db").exists()


def test_serve_stops_on_a_model_the_endpoint_does_not_serve(tmp_path: Path) -> None:
    with ProviderServer(lambda _req: Reply(fault="404")) as live:
        live.models_route = False  # no models list to probe: the route answers for the model
        done = serve_fails(tmp_path, "--model-provider", "openai", "--model", "nope",
                           "--model-base-url", live.openai_url)
    assert done.returncode == 2, done.stderr
    assert said(done).startswith("error: --model 'nope' is not served at"), done.stderr


def test_serve_warns_and_goes_on_when_the_endpoint_does_not_answer_yet(tmp_path: Path) -> None:
    """A local model server started after this one: the seats fall back until it answers;
    the operator is told, the server runs."""
    proc = subprocess.Popen([*COGLEAGUE, "serve", "--port", "0", "--db",
                             f"sqlite:///{tmp_path / 's.db'}", "--model-provider", "openai",
                             "--model", "m", "--model-base-url", "http://127.0.0.1:9/v1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={"COLUMNS": "300", "PATH": "/usr/bin:/bin"})
    try:
        assert proc.stdout is not None
        serving = ""
        while "serving on" not in serving:
            line = proc.stdout.readline()
            assert line, "serve exited before it listened"
            serving += line
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert ("warning: cannot reach the model endpoint http://127.0.0.1:9/v1 (--model-base-url): "
            "model seats play the game's baseline until it answers") in " ".join(err.split()), err
