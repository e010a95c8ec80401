"""The model-seat commands of docs/models.md's quick tour, run as written (real `cogleague`
processes) against the provider test server: the hosted providers through their SDKs' base-URL
variables, the local OpenAI-compatible server by its URL."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cogleague.core import jsonio
from helpers.docs import section, sh_blocks
from helpers.provider_server import ProviderServer, Recorded, Reply

ROOT = Path(__file__).resolve().parents[2]
COGLEAGUE = Path(sys.executable).with_name("cogleague")
"""The console script `pip install -e .` puts beside the interpreter (the README's
`.venv/bin/cogleague`); without it, the same entry point through the interpreter."""
LOCAL_URL = "http://localhost:11434/v1"  # the README's local server
REPLIES = {"Ledger": '{"move": 0, "note": "kind partner", "memo": "all kind so far"}',
           "cogs": '{"harvest": 1, "clean": 1, "message": "one each, and clean"}',
           "Prisoner's Dilemma": '{"action": "cooperate", "message": "I will cooperate"}'}


def readme_blocks() -> list[list[str]]:
    """The ``sh`` blocks of the models section (docs/models.md), as lists of lines."""
    return [block.strip().splitlines() for block in sh_blocks(section("models",
                                                                      "docs/models.md"))]


def script(req: Recorded) -> Reply:
    game = next(key for key in REPLIES if key in req.system)
    return Reply(REPLIES[game])


def run(lines: list[str], cwd: Path, server: ProviderServer) -> list[str]:
    """Run one README block in `cwd`; returns the commands it ran."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update({"OPENAI_BASE_URL": server.openai_url, "ANTHROPIC_BASE_URL": server.anthropic_url,
                "COLUMNS": "120"})
    ran = []
    for line in lines:
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").partition("=")
            env[name] = value
            continue
        assert line.startswith(".venv/bin/cogleague "), line
        argv = shlex.split(line.replace(LOCAL_URL, server.openai_url))
        entry = ([str(COGLEAGUE)] if COGLEAGUE.exists() else
                 [sys.executable, "-c", "from cogleague.cli import main; main()"])
        argv[:1] = entry
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=240, check=False)
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        ran.append(line)
    return ran


def results_of(cwd: Path, game: str) -> list[dict[str, Any]]:
    return [jsonio.read(p) for p in sorted((cwd / "runs").glob(f"{game}-*/results.json"))]


@pytest.mark.slow
def test_the_readme_model_commands_work_as_written(server: ProviderServer,
                                                   tmp_path: Path) -> None:
    server.script = script
    (tmp_path / "prompts").symlink_to(ROOT / "prompts")
    blocks = readme_blocks()
    assert len(blocks) == 4
    ran = [line for block in blocks for line in run(block, tmp_path, server)]
    assert [shlex.split(c)[1:3] for c in ran] == [
        ["play", "ledger"], ["play", "commons"], ["play", "ledger"], ["play", "dilemma"],
        ["export", "transcripts"]]
    shapes = {r.shape for r in server.requests}
    assert shapes == {"openai", "anthropic"}
    keys = {(r.headers.get("x-api-key") or r.headers.get("authorization", "")
             ).removeprefix("Bearer ") for r in server.requests}
    assert keys == {"sk-...", "sk-ant-...", "unused"}  # the exported keys; none for local

    ledger_runs = results_of(tmp_path, "ledger")
    assert len(ledger_runs) == 2
    for results in ledger_runs:
        models = results["models"]
        llm_seats = [s for s, m in enumerate(models["model"]) if m is not None]
        assert len(llm_seats) == 2
        assert all(models["requests"][s] == results["rounds"] for s in llm_seats)
        assert all(models["fallbacks"][s] == {} for s in llm_seats)
        assert all(models["input_tokens"][s] > 0 for s in llm_seats)
    (commons,) = results_of(tmp_path, "commons")
    assert commons["models"]["model"] == ["claude-haiku-4-5", None, None, None, None,
                                          "claude-haiku-4-5"]
    assert commons["models"]["fallbacks"][0] == {}
    (dilemma,) = results_of(tmp_path, "dilemma")
    assert dilemma["models"]["model"] == ["llama3.2", None, None, None]
    assert dilemma["models"]["requests"][0] == 3 * 10  # three pairings, ten rounds each
    assert dilemma["models"]["fallbacks"][0] == {}

    transcript = (tmp_path / "runs" / "ledger-transcript.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in transcript]
    assert len(rows) == 2 * 14 and all(r["cause"] is None for r in rows)
    examples = (tmp_path / "runs" / "finetune.jsonl").read_text().splitlines()
    # round 1's note has no target: dropped, so those two replies are mended, not examples
    assert [r["round"] for r in rows if r["dropped"] is not None] == [0, 0]
    assert len(examples) == len(rows) - 2


def test_the_exact_prompt_command_writes_every_prompt_with_no_provider(tmp_path: Path) -> None:
    """docs/models.md's "Reading the exact prompt" command, as written: no provider, no
    network, and every row holds the system message (rules, reply rule, the prompt file under
    the guidance heading) and the turn's view."""
    from cogleague.seats.llm.prompting import GUIDANCE_HEADING, REPLY_RULE

    (tmp_path / "prompts").symlink_to(ROOT / "prompts")
    (block,) = readme_blocks_of("exact-prompt")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    for line in block:
        argv = shlex.split(line)
        argv[:1] = ([str(COGLEAGUE)] if COGLEAGUE.exists() else
                    [sys.executable, "-c", "from cogleague.cli import main; main()"])
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=240, check=False)
        assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in
            (tmp_path / "runs" / "prompts.jsonl").read_text(encoding="utf-8").splitlines()]
    guidance = (ROOT / "prompts" / "dilemma" / "grim.txt").read_text(encoding="utf-8").strip()
    assert len(rows) == 3 and all(r["cause"] == "disabled" for r in rows)  # 3 pairings
    for row in rows:
        system, user = row["prompt"]
        assert system["role"] == "system" and user["role"] == "user"
        assert REPLY_RULE in system["content"]
        assert system["content"].endswith(f"{GUIDANCE_HEADING}\n{guidance}")
        assert "round 1 of 1" in user["content"]


def readme_blocks_of(name: str) -> list[list[str]]:
    """The ``sh`` blocks of one marked section of docs/models.md, as lists of lines."""
    return [block.strip().splitlines() for block in sh_blocks(section(name, "docs/models.md"))]
