"""Determinism (§4): byte-identical output across processes with different PYTHONHASHSEED."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

COGLEAGUE = Path(sys.executable).with_name("cogleague")
SCRIPT = r"""
import asyncio, sys
from cogleague.core import jsonio
from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.games.ledger import GAME
from cogleague.seats import ScriptedSeat

class Chatty:
    kind, name = "remote", "chatty"
    async def decide(self, turn, hint):
        return {"move": turn.legal_actions["move"]["max"], "note": f"Zürich ✓ {turn.round}",
                "memo": f"plan {turn.seat}"}

names = ["mirror", "shark", "grim", "saint", "opportunist", "mirror", "grim", "opportunist"]
game = GAME.make("standard", {}, 1234, names)
seats = [ScriptedSeat(game.make_baseline(n, i), n) for i, n in enumerate(names)]
seats[3] = Chatty()
outcome = asyncio.run(run_episode(game, seats, clock=FakeClock()))
doc = game.replay_document(outcome.log, frames=True)
sys.stdout.buffer.write(jsonio.dumps({"results": outcome.results, "replay": doc}).encode())
"""


def _run(hash_seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, check=True,
                          capture_output=True, timeout=120).stdout


def test_output_is_byte_identical_across_processes_and_hash_seeds() -> None:
    first, second = _run("0"), _run("4242")
    assert first == second
    assert "Zürich ✓".encode() in first  # UTF-8, not ASCII escapes
    assert b"NaN" not in first and b", " not in first.split(b'"text"')[0]


def test_the_cli_writes_identical_artifacts_in_separate_processes(tmp_path: Path) -> None:
    outputs = []
    for hash_seed in ("1", "999"):
        out = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([str(COGLEAGUE), "play", "ledger", "--seed", "21", "--out", str(out)],
                       env=env, check=True, capture_output=True, timeout=120)
        outputs.append(((out / "results.json").read_bytes(), (out / "replay.json").read_bytes()))
    assert outputs[0] == outputs[1]
