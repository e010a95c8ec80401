"""Record and replay of model calls against the local provider test server: a recorded episode
replays with the server stopped, byte-identical, with zero requests and tokens; a request the
recording lacks is an error naming seat, turn and request; --replay-or-live fills the gap."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core import jsonio
from cogleague.core.episode import run_episode
from cogleague.core.errors import ConfigError
from cogleague.games.registry import get
from cogleague.seats.factory import ModelOptions, make_seats
from cogleague.seats.llm import RecordingMiss, accounting_for
from cogleague.seats.llm.recording import request_key
from cogleague.seats.llm.transcript import export_chat, read_rows
from helpers.model_toys import TextToyGame, model_seats, options_for
from helpers.provider_server import ProviderServer, Recorded, Reply

LINEUP = ["llm", "tit_for_tat", "llm", "always_defect"]


def varying_script() -> object:
    """A "model" whose answers change from call to call: only a recording can reproduce it."""
    counter = itertools.count()

    def script(_req: Recorded) -> Reply:
        n = next(counter)
        word = "defect" if n % 3 == 0 else "cooperate"
        return Reply(json.dumps({"action": word}), input_tokens=10 + n % 7, output_tokens=4)
    return script


async def play(options: ModelOptions, seed: int = 11) -> tuple[bytes, dict[str, object]]:
    desc = get("dilemma")
    game = desc.make(None, {"rounds_total": 4}, seed, LINEUP, None)
    seats = make_seats(game, LINEUP, options)
    outcome = await run_episode(game, seats)
    document = jsonio.dumps(desc.replay_document(game, outcome.log)).encode()
    models = accounting_for(seats)
    assert models is not None
    return document, models


@pytest.mark.parametrize("shape", ["openai", "anthropic"])
async def test_recorded_episode_replays_byte_identical_with_the_provider_stopped(
        tmp_path: Path, shape: str) -> None:
    with ProviderServer(varying_script()) as live:  # type: ignore[arg-type]
        options = options_for(live, shape, recording=str(tmp_path), recording_mode="record")
        recorded, live_models = await play(options)
        sent = len(live.requests)
    assert sent > 0 and sum(live_models["requests"]) == sent  # type: ignore[arg-type]
    assert sum(live_models["input_tokens"]) > 0  # type: ignore[arg-type]
    files = list(tmp_path.glob("*.jsonl"))
    assert len(files) == 1 and len(files[0].read_text().splitlines()) == sent
    # the server is stopped: any request would fail as transport and change the replay
    replay = dataclasses.replace(options, recording_mode="replay", api_key=None)
    replayed, models = await play(replay)
    assert replayed == recorded
    assert sum(models["requests"]) == 0 and sum(models["input_tokens"]) == 0  # type: ignore
    assert sum(models["replayed"]) == sent  # type: ignore[arg-type]
    assert models["fallbacks"] == live_models["fallbacks"]


@pytest.mark.parametrize("fault", ["500", "malformed"])
async def test_replayed_failures_count_as_replayed_not_as_requests(
        tmp_path: Path, fault: str) -> None:
    calls = itertools.count()

    def script(_req: Recorded) -> Reply:  # every third call fails: transport, then retried
        return Reply(fault=fault) if next(calls) % 3 == 0 else Reply('{"action": "defect"}')

    with ProviderServer(script) as live:
        options = options_for(live, recording=str(tmp_path), recording_mode="record")
        recorded, live_models = await play(options)
        sent = len(live.requests)
    rows = [json.loads(line) for line in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    assert len(rows) == sent and any(r["response"].get("error") == "failure" for r in rows)
    assert sum(live_models["requests"]) == sent  # type: ignore[arg-type]
    replay = dataclasses.replace(options, recording_mode="replay", api_key=None)
    replayed, models = await play(replay)
    assert replayed == recorded
    # no request went out: a replayed 500 is a replayed call like any other
    assert models["requests"] == [0, 0, 0, 0]
    assert sum(models["replayed"]) == sent  # type: ignore[arg-type]


async def test_recording_is_plain_json_lines_keyed_by_provider_model_and_request(
        tmp_path: Path, server: ProviderServer) -> None:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    await play(options_for(server, recording=str(tmp_path)))
    rows = [json.loads(line) for f in tmp_path.glob("*.jsonl")
            for line in f.read_text().splitlines()]
    assert rows and {r["seat"] for r in rows} == {0, 2}
    for row in rows:
        req = row["request"]
        assert row["key"] == request_key(row["provider"], row["model"], req["system"],
                                         req["messages"])
        assert row["turn_id"] and row["response"]["text"] == '{"action": "cooperate"}'
        assert "test-key" not in json.dumps(row)  # no API key is ever stored


async def test_a_request_missing_from_the_recording_names_seat_turn_and_request(
        tmp_path: Path, server: ProviderServer) -> None:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    options = options_for(server, recording=str(tmp_path))
    await play(options)
    # a different prompt for every seat: the recorded requests no longer match
    path = next(tmp_path.glob("*.jsonl"))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(jsonio.dumps(r) + "\n" for r in rows if r["seat"] != 2))
    with pytest.raises(RecordingMiss) as miss:
        await play(dataclasses.replace(options, recording_mode="replay"))
    text = str(miss.value)
    assert "seat 2" in text and "turn " in text and "request not in the recording" in text
    assert "last message" in text and str(path) in text


async def test_replay_or_live_sends_only_what_is_missing_and_adds_it(
        tmp_path: Path, server: ProviderServer) -> None:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    options = options_for(server, recording=str(tmp_path))
    first, _ = await play(options)
    total = len(server.requests)
    path = next(tmp_path.glob("*.jsonl"))
    rows = path.read_text().splitlines()
    path.write_text("".join(line + "\n" for line in rows[:-3]))
    server.reset(lambda _req: Reply('{"action": "cooperate"}'))
    again, models = await play(dataclasses.replace(options, recording_mode="replay_or_live"))
    assert again == first
    assert len(server.requests) == 3 and sum(models["replayed"]) == total - 3  # type: ignore
    assert len(path.read_text().splitlines()) == total


async def test_replay_without_the_recorded_provider_is_an_error_not_silent_fallbacks(
        tmp_path: Path, server: ProviderServer) -> None:
    server.script = lambda _req: Reply('{"action": "defect"}')
    options = options_for(server, recording=str(tmp_path), recording_mode="record")
    await play(options)
    assert next(tmp_path.glob("*.jsonl")).read_text().strip()
    # the same episode replayed without --model/--provider: no endpoint for the model seats
    bare = ModelOptions(recording=str(tmp_path), recording_mode="replay")
    with pytest.raises(ConfigError) as error:
        await play(bare)
    assert error.value.field == "replay"
    assert "test-openai" in str(error.value)


async def test_replayed_calls_are_not_in_the_request_latencies(
        tmp_path: Path, server: ProviderServer) -> None:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    options = options_for(server, recording=str(tmp_path))
    await play(options)
    _, models = await play(dataclasses.replace(options, recording_mode="replay"))
    assert models["latency_p50_ms"] == models["latency_max_ms"] == [None] * 4
    # with the last calls of seat 2 sent live (each 50 ms), only they make its latencies
    path = next(tmp_path.glob("*.jsonl"))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    kept = [r for r in rows if r["seat"] != 2] + [r for r in rows if r["seat"] == 2][:-2]
    path.write_text("".join(jsonio.dumps(r) + "\n" for r in kept))
    server.reset(lambda _req: Reply('{"action": "cooperate"}', latency=0.05))
    _, models = await play(dataclasses.replace(options, recording_mode="replay_or_live"))
    assert models["requests"] == [0, 0, 2, 0] and len(server.requests) == 2
    assert models["latency_p50_ms"][2] >= 50  # type: ignore[index]
    assert models["latency_p50_ms"][0] is None


async def test_a_replay_plays_the_recorded_rate_budget_fallbacks_and_takes_no_slots(
        tmp_path: Path) -> None:
    """How fast a replay runs, or its budget, must not decide which seat falls back: a live run
    spread over minutes would otherwise hit the per-minute budget only when replayed."""
    with ProviderServer(lambda _req: Reply('{"action": "cooperate"}')) as server:
        tight = options_for(server, recording=str(tmp_path / "tight"), requests_per_minute=5)
        recorded, live = await play(tight)
        loose = options_for(server, recording=str(tmp_path / "loose"), requests_per_minute=600)
        recorded_loose, live_loose = await play(loose)
    assert any(f.get("rate_budget") for f in live["fallbacks"])  # type: ignore[attr-defined]
    assert not any(f for f in live_loose["fallbacks"])  # type: ignore[attr-defined]
    for options, document, models in ((tight, recorded, live), (loose, recorded_loose, live_loose)):
        for per_minute in (1, 5, 600):
            replay = dataclasses.replace(options, recording_mode="replay",
                                         requests_per_minute=per_minute)
            again, replayed = await play(replay)
            assert again == document
            assert replayed["fallbacks"] == models["fallbacks"]
            assert replayed["errors"] == models["errors"]  # in the live run's words
            assert replayed["replayed"] == models["requests"]


def test_replay_of_an_unrecorded_episode_is_a_config_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "play", "dilemma", "--seats", ",".join(LINEUP), "--seed", "3", "--provider", "openai",
        "--model", "m", "--replay", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "no recording of this episode" in result.output


def test_cli_records_then_replays_with_the_server_stopped(tmp_path: Path) -> None:
    args = ["play", "dilemma", "--seats", ",".join(LINEUP), "--seed", "5", "--rounds", "3",
            "--provider", "openai", "--model", "test-openai"]
    with ProviderServer(varying_script()) as live:  # type: ignore[arg-type]
        first = CliRunner().invoke(app, [*args, "--base-url", live.openai_url,
                                         "--record", str(tmp_path / "rec"),
                                         "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(app, [*args, "--replay", str(tmp_path / "rec"),
                                      "--out", str(tmp_path / "b")])
    assert second.exit_code == 0, second.output
    assert ((tmp_path / "a" / "replay.json").read_bytes()
            == (tmp_path / "b" / "replay.json").read_bytes())
    assert "0 requests" in second.output and "replayed" in second.output
    both = CliRunner().invoke(app, [*args, "--replay", "x", "--record", "y"])
    assert both.exit_code == 2 and "exclude each other" in both.output


def test_python_api_records_and_replays(tmp_path: Path, server: ProviderServer) -> None:
    from cogleague.seats.llm.api import play as api_play

    server.script = varying_script()  # type: ignore[assignment]
    options = options_for(server)
    results, first = api_play("dilemma", LINEUP, seed=2, overrides={"rounds_total": 3},
                              model=options, record=tmp_path)
    sent = len(server.requests)
    server.reset(lambda _req: Reply(fault="500"))  # the provider is broken now: unused
    again, second = api_play("dilemma", LINEUP, seed=2, overrides={"rounds_total": 3},
                             model=options, replay=tmp_path)
    assert jsonio.dumps(first) == jsonio.dumps(second) and server.requests == []
    assert sum(again["models"]["replayed"]) == sent == sum(results["models"]["requests"])


def test_cogleague_play_takes_record_and_replay(tmp_path: Path, server: ProviderServer) -> None:
    import cogleague.api as api

    server.script = varying_script()  # type: ignore[assignment]
    live = api.play("dilemma", LINEUP, seed=4, rounds_total=2, provider="openai",
                    model="test-openai", base_url=server.openai_url, api_key="k",
                    record=str(tmp_path))
    again = api.play("dilemma", LINEUP, seed=4, rounds_total=2, provider="openai",
                     model="test-openai", replay=str(tmp_path))
    assert jsonio.dumps(again.replay) == jsonio.dumps(live.replay)


@pytest.mark.parametrize("response", ["oops", None, {"text": 5}, {"error": "gremlins"}, {}])
async def test_a_corrupt_recorded_response_is_refused_when_the_recording_opens(
        tmp_path: Path, server: ProviderServer, response: object) -> None:
    """Before: a recorded response that is not an answer (not an object, a text that is not a
    string, an unknown error) was found only when played: an AttributeError or a made-up
    text became a transport fallback or another move, and the replay silently differed."""
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    options = options_for(server, recording=str(tmp_path))
    await play(options)
    path = next(tmp_path.glob("*.jsonl"))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1]["response"] = response
    path.write_text("".join(jsonio.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigError) as refused:
        await play(dataclasses.replace(options, recording_mode="replay", api_key=None))
    assert f"{path}:2" in str(refused.value)


async def test_text_holding_unicode_line_breaks_records_replays_and_reads_back(
        tmp_path: Path) -> None:
    """U+2028, U+2029 and U+0085 are line breaks to `str.splitlines`, and JSON writes them raw
    inside strings: a recording or transcript holding one (a reply, or an operator's prompt
    pasted from a word processor) could not be read back ("not a recorded interaction", "not
    a JSON line"). Each file is read a ``\\n``-ended line at a time."""
    reply = Reply('Sure\u2028here:\x85{"action": "cooperate"}\u2029')
    with ProviderServer(lambda _req: reply) as live:
        options = options_for(live, "openai", recording=str(tmp_path / "rec"),
                              recording_mode="record", transcript=str(tmp_path / "t.jsonl"))
        recorded, _ = await play(options)
    replay = dataclasses.replace(options, recording_mode="replay", api_key=None,
                                 transcript=str(tmp_path / "again.jsonl"))
    replayed, models = await play(replay)
    assert replayed == recorded and sum(models["requests"]) == 0  # type: ignore[arg-type]
    rows = list(read_rows(tmp_path / "t.jsonl"))
    assert rows and all(row["reply"] == reply.text for row in rows)
    assert export_chat([tmp_path / "t.jsonl"], tmp_path / "chat.jsonl") == (len(rows),
                                                                             len(rows))


async def test_a_reply_cut_at_the_length_limit_replays_with_the_same_retry(
        tmp_path: Path) -> None:
    """A cut reply's retry says it was cut off, so the recording keeps the cut: a replay sends
    the same retry, found in the recording (without it, a different request: a miss)."""
    replies = iter([Reply("Thinking it over at length, and", cut=True)])

    def script(_req: Recorded) -> Reply:
        return next(replies, Reply('{"n": 7}'))

    async def run(options: ModelOptions) -> list[object]:
        game = TextToyGame(seats=1, rounds=2)
        seats = model_seats(game, options)
        outcome = await run_episode(game, seats)
        models = accounting_for(seats)
        assert models is not None
        return [outcome.results, models["requests"], models["replayed"]]

    with ProviderServer(script) as live:
        options = options_for(live, "anthropic", recording=str(tmp_path),
                              recording_mode="record")
        recorded = await run(options)
        assert any("cut off" in m["content"] for r in live.requests for m in r.messages)
    replay = dataclasses.replace(options, recording_mode="replay", api_key=None)
    assert await run(replay) == [recorded[0], [0], [3]]


async def test_replay_with_another_model_names_the_recorded_one(
        tmp_path: Path, server: ProviderServer) -> None:
    """`--replay` with a different `--model` (or provider) cannot match a single request: say
    which model the recording holds for the seat, not just that a request is missing."""
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    options = options_for(server, recording=str(tmp_path), recording_mode="record")
    await play(options)
    other = dataclasses.replace(options, model="another-model", recording_mode="replay")
    with pytest.raises(ConfigError) as error:
        await play(other)
    text = str(error.value)
    assert error.value.field == "replay"
    assert "openai/test-openai" in text and "openai/another-model" in text and "seat 0" in text
    # replay_or_live may send the new model's requests live: no error there
    server.reset(lambda _req: Reply('{"action": "cooperate"}'))
    await play(dataclasses.replace(other, recording_mode="replay_or_live"))


async def test_a_replayed_transcript_row_says_it_was_replayed(
        tmp_path: Path, server: ProviderServer) -> None:
    """A replay's transcript gave every call a measured-looking ``latency_ms`` of 0.0: a call
    answered from the recording sent nothing and took no time to measure, as the results'
    latencies say (null). Its row says ``replayed``; a live row does not."""
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    calls, live, again = tmp_path / "calls", tmp_path / "live.jsonl", tmp_path / "again.jsonl"
    options = options_for(server, recording=str(calls), transcript=str(live))
    await play(options)
    await play(dataclasses.replace(options, recording_mode="replay", transcript=str(again)))
    live_rows, replay_rows = list(read_rows(live)), list(read_rows(again))
    assert len(live_rows) == len(replay_rows) > 0
    assert all(r["replayed"] is False and r["latency_ms"] is not None for r in live_rows)
    assert all(r["replayed"] is True and r["latency_ms"] is None for r in replay_rows)
    assert all(r["requests"] == 0 for r in replay_rows)


async def test_a_replay_with_another_seed_names_the_recorded_seeds(
        tmp_path: Path, server: ProviderServer) -> None:
    """`cogleague play` picks a random seed unless given one, so recording and then replaying
    the same command line finds no recording; the error named no seed to replay with."""
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    options = options_for(server, recording=str(tmp_path), recording_mode="record")
    await play(options, seed=5)
    await play(options, seed=12)
    with pytest.raises(ConfigError) as error:
        await play(dataclasses.replace(options, recording_mode="replay"), seed=6)
    text = str(error.value)
    assert error.value.field == "replay" and "no recording of this episode" in text
    assert "this game and line-up were recorded with seed 5, 12" in text


def test_the_python_api_results_say_why_a_seat_fell_back(tmp_path: Path,
                                                         server: ProviderServer) -> None:
    """`cogleague.seats.llm.api.play` returned the results without the `faults` section that
    results.json (and `cogleague.play`) carry: a script could not see why a seat fell back."""
    from cogleague.seats.llm.api import play as api_play

    server.script = lambda _req: Reply(fault="garbage")
    results, _ = api_play("dilemma", LINEUP, seed=2, overrides={"rounds_total": 1},
                          model=options_for(server))
    seat = results["faults"]["seats"][0]
    assert seat["policy"] == "llm" and seat["fallbacks"] == {"parse": 3}
    assert seat["reasons"]["parse"] == "no JSON object found in the reply"
    assert results["faults"]["fallbacks"] == 6  # both model seats, three pairings each


async def test_a_miss_after_an_edited_prompt_says_the_system_message_differs(
        tmp_path: Path, server: ProviderServer) -> None:
    """The common miss: the writer edited the prompt file and replayed. The last message is
    the same as recorded, so the error says what differs from the request recorded for that
    seat and turn; a miss with no request recorded there says that instead."""
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    prompt = tmp_path / "mine.txt"
    prompt.write_text("Cooperate.", encoding="utf-8")
    lineup = [f"llm:{prompt}", "tit_for_tat", "always_defect"]
    desc = get("dilemma")

    async def play_with(options: ModelOptions) -> None:
        game = desc.make(None, {"rounds_total": 2}, 5, lineup, None)
        await run_episode(game, make_seats(game, lineup, options))

    options = options_for(server, recording=str(tmp_path / "rec"))
    await play_with(options)
    prompt.write_text("Cooperate, always.", encoding="utf-8")
    replay = dataclasses.replace(options, recording_mode="replay")
    with pytest.raises(RecordingMiss) as edited:
        await play_with(replay)
    assert "the system message differs from the one recorded for this seat and turn" in str(
        edited.value)
    prompt.write_text("Cooperate.", encoding="utf-8")
    path = next((tmp_path / "rec").glob("*.jsonl"))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(jsonio.dumps(r) + "\n" for r in rows[1:]))  # the first call lost
    with pytest.raises(RecordingMiss) as lost:
        await play_with(replay)
    assert f"nothing was recorded for seat 0 at turn {rows[0]['turn_id']}" in str(lost.value)
