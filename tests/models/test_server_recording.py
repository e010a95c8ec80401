"""Server tables record model calls by operator setting (`Settings.model_recording`), and a
table replayed from that recording needs no provider."""

from __future__ import annotations

from pathlib import Path

from cogleague.core import jsonio
from cogleague.core.episode import run_episode
from cogleague.games.registry import get
from cogleague.server.seat_kinds import make_runner_seat
from cogleague.server.settings import Settings
from helpers.provider_server import ProviderServer, Reply

ACCOUNTS = ["alice", "bob", "carol"]


async def table(settings: Settings) -> bytes:
    desc = get("dilemma")
    game = desc.make(None, {"rounds_total": 3}, 21, ACCOUNTS, None)
    rows = [{"seat": 0, "kind": "llm", "policy_name": "alice", "prompt": "Be fair.",
             "model": None},
            {"seat": 1, "kind": "scripted", "policy_name": "bob", "baseline": "tit_for_tat"},
            {"seat": 2, "kind": "scripted", "policy_name": "carol",
             "baseline": "always_defect"}]
    seats = [make_runner_seat(game, r, None, settings, desc)  # type: ignore[arg-type]
             for r in rows]  # llm and scripted seats use no channel
    outcome = await run_episode(game, seats)
    return jsonio.dumps(desc.replay_document(game, outcome.log)).encode()


async def test_operator_setting_records_then_replays_a_server_table(tmp_path: Path) -> None:
    counter = iter(range(1000))

    def script(_req: object) -> Reply:
        return Reply('{"action": "%s"}' % ("defect" if next(counter) % 2 else "cooperate"))

    with ProviderServer(script) as live:  # type: ignore[arg-type]
        recorded = await table(Settings(model_provider="openai", model_name="m",
                                        model_base_url=live.openai_url,
                                        model_recording=str(tmp_path)))
        assert len(live.requests) == 6  # 3 rounds x 2 pairings of the model seat
    replayed = await table(Settings(model_provider="openai", model_name="m",
                                    model_recording=str(tmp_path),
                                    model_recording_mode="replay"))
    assert replayed == recorded and len(list(tmp_path.glob("*.jsonl"))) == 1
