"""Transcripts (`--transcript`) and their export to chat-format JSONL."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.cli import export as _export  # noqa: F401  (registers `cogleague export`)
from cogleague.core.episode import run_episode
from cogleague.core.game import Timing
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm import accounting_for
from cogleague.seats.llm.transcript import chat_example
from helpers.model_toys import HINT, TextToyGame, model_seats, options_for
from helpers.provider_server import GARBAGE_TEXT, ProviderServer, Recorded, Reply, sequence

ROW_KEYS = ["seat", "round", "turn_id", "attempt", "provider", "model", "prompt", "reply",
            "action", "cause", "requests", "input_tokens", "output_tokens", "latency_ms"]


def rows_of(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_every_attempt_is_a_row_and_the_last_carries_the_decision(
        server: ProviderServer, tmp_path: Path) -> None:
    def script(req: Recorded) -> Reply:
        if "seat 0." in req.user_text:
            return Reply(fault="garbage")
        return Reply('{"n": 8}', input_tokens=100, output_tokens=7)

    server.script = script
    path = tmp_path / "t.jsonl"
    game = TextToyGame(seats=2, rounds=2)
    await run_episode(game, model_seats(game, options_for(server, transcript=str(path))))
    rows = rows_of(path)
    # per round, in turn order: seat 0 (attempt, retry), then seat 1
    assert [(r["round"], r["seat"], r["attempt"]) for r in rows] == [
        (0, 0, 1), (0, 0, 2), (0, 1, 1), (1, 0, 1), (1, 0, 2), (1, 1, 1)]
    assert all(list(r)[:len(ROW_KEYS)] == ROW_KEYS for r in rows)
    bad, retry, good = rows[:3]
    assert (bad["reply"], bad["action"], bad["cause"]) == (GARBAGE_TEXT, None, "parse")
    assert "decision" not in bad
    assert retry["prompt"][-2:] == [
        {"role": "assistant", "content": GARBAGE_TEXT},
        {"role": "user", "content": retry["prompt"][-1]["content"]}]
    assert HINT in retry["prompt"][-1]["content"]
    assert retry["decision"]["source"] == "fallback" and retry["decision"]["cause"] == "parse"
    assert good["prompt"][0]["role"] == "system" and good["prompt"][1]["role"] == "user"
    assert (good["action"], good["cause"], good["requests"]) == ({"n": 8}, None, 1)
    assert (good["input_tokens"], good["output_tokens"]) == (100, 7)
    assert good["latency_ms"] > 0 and good["decision"]["source"] == "seat"
    assert good["provider"] == "openai" and good["model"] == "test-openai"


async def test_timeouts_and_disabled_seats_are_recorded_too(server: ProviderServer,
                                                           tmp_path: Path) -> None:
    server.script = lambda _req: Reply(fault="hang")
    hung, off = tmp_path / "hung.jsonl", tmp_path / "off.jsonl"
    game = TextToyGame(seats=1, rounds=1, timing=Timing(decision_timeout_s=0.2))
    await run_episode(game, model_seats(game, options_for(server, transcript=str(hung))))
    assert [(r["cause"], r["reply"]) for r in rows_of(hung)] == [("timeout", None)] * 2
    game = TextToyGame(seats=1, rounds=1)
    await run_episode(game, model_seats(game, ModelOptions(transcript=str(off))))
    (row,) = rows_of(off)
    assert (row["cause"], row["requests"], row["provider"]) == ("disabled", 0, None)
    assert row["decision"]["cause"] == "disabled"


async def test_a_failed_call_says_why_in_its_row(server: ProviderServer,
                                                 tmp_path: Path) -> None:
    """A `transport` or `disabled` attempt has no reply to read: its row keeps the provider's
    error (the HTTP status and body, or the refused key), so a prompt writer can tell a 500
    from a wrong model name; a plain timeout and a success say nothing there."""
    server.script = lambda _req: Reply(fault="500")
    path = tmp_path / "t.jsonl"
    game = TextToyGame(seats=1, rounds=1)
    await run_episode(game, model_seats(game, options_for(server, transcript=str(path))))
    rows = rows_of(path)
    assert [r["cause"] for r in rows] == ["transport", "transport"]
    assert all("500" in r["error"] and "scripted 500" in r["error"] for r in rows)
    server.script = lambda _req: Reply(fault="401")
    await run_episode(game := TextToyGame(seats=1, rounds=1),
                      model_seats(game, options_for(server, transcript=str(path))))
    (row,) = rows_of(path)
    assert row["cause"] == "disabled" and "refused the key" in row["error"]
    assert "401" in row["error"]
    await run_episode(game := TextToyGame(seats=1, rounds=1),
                      model_seats(game, ModelOptions(transcript=str(path))))
    (row,) = rows_of(path)
    assert row["error"] == "no model provider configured"
    server.script = lambda _req: Reply('{"n": 1}')
    await run_episode(game := TextToyGame(seats=1, rounds=1),
                      model_seats(game, options_for(server, transcript=str(path))))
    (row,) = rows_of(path)
    assert row["cause"] is None and row["error"] is None


def test_a_chat_example_is_an_accepted_reply_with_earlier_mistakes_weighted_zero() -> None:
    prompt = [{"role": "system", "content": "rules"}, {"role": "user", "content": "view"},
              {"role": "assistant", "content": "oops"}, {"role": "user", "content": "hint"}]
    row = {"prompt": prompt, "reply": '{"n": 1}', "action": {"n": 1}, "cause": None}
    assert chat_example(row) == {"messages": [
        {"role": "system", "content": "rules"}, {"role": "user", "content": "view"},
        {"role": "assistant", "content": "oops", "weight": 0},
        {"role": "user", "content": "hint"}, {"role": "assistant", "content": '{"n": 1}'}]}
    assert chat_example({**row, "cause": "parse", "action": None}) is None
    assert chat_example({**row, "reply": None, "cause": "timeout", "action": None}) is None


def test_a_reply_the_game_had_to_mend_is_no_chat_example() -> None:
    """A reply the game took only after clamping its move (Ledger ``{"move": 99}`` played as 6)
    or dropping a part (a note about the wrong partner, a key it does not know) is the mistake
    the next prompt asks the model to correct: exported as the answer to learn, it would teach
    the mistake."""
    prompt = [{"role": "system", "content": "rules"}, {"role": "user", "content": "view"}]
    decision = {"action": {"move": 6}, "source": "seat", "cause": None, "attempts": 1,
                "timeouts": 0, "clamped": False}
    row = {"prompt": prompt, "reply": '{"move": 6}', "action": {"move": 6}, "cause": None,
           "dropped": None, "decision": decision}
    assert chat_example(row) is not None
    clamped = {**row, "reply": '{"move": 99}', "decision": {**decision, "clamped": True}}
    assert chat_example(clamped) is None
    assert chat_example({**row, "dropped": "note: about Gizmo, not your partner"}) is None


def test_export_of_only_mended_replies_says_so(tmp_path: Path) -> None:
    """With every reply mended by the game, "0 examples" must say that, not "no reply"."""
    decision = {"action": {"move": 6}, "source": "seat", "cause": None, "clamped": True}
    row = {"prompt": [{"role": "user", "content": "view"}], "reply": '{"move": 99}',
           "action": {"move": 6}, "cause": None, "dropped": None, "decision": decision}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["export", "transcripts", str(path), "--out",
                                    str(tmp_path / "o.jsonl")])
    assert done.exit_code == 0, done.output
    assert "0 examples: no reply was accepted by the game (1 mended)" in done.output


async def test_export_turns_transcripts_into_chat_jsonl(server: ProviderServer,
                                                       tmp_path: Path) -> None:
    server.script = sequence(Reply(fault="garbage"), then=Reply('{"n": 4}'))
    paths = []
    for i in range(2):
        path = tmp_path / f"t{i}.jsonl"
        game = TextToyGame(seats=1, rounds=2)
        await run_episode(game, model_seats(game, options_for(server, transcript=str(path))))
        paths.append(str(path))
    out = tmp_path / "out" / "chat.jsonl"
    result = CliRunner().invoke(app, ["export", "transcripts", *paths, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 4 examples from 5 transcript rows" in result.output
    examples = rows_of(out)
    assert len(examples) == 4
    assert all(e["messages"][-1] == {"role": "assistant", "content": '{"n": 4}'}
               for e in examples)
    retried = examples[0]["messages"]  # the first episode's first turn needed the retry
    assert [m.get("weight") for m in retried if m["role"] == "assistant"] == [0, None]


def test_export_refuses_bad_input_with_one_line_and_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["export", "transcripts", str(tmp_path / "nope.jsonl"),
                                  "--out", str(tmp_path / "o.jsonl")])
    assert missing.exit_code == 2 and "nope.jsonl does not exist" in missing.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": []}\nnot json\n', encoding="utf-8")
    garbled = runner.invoke(app, ["export", "transcripts", str(bad), "--out",
                                  str(tmp_path / "o.jsonl")])
    assert garbled.exit_code == 2 and f"{bad}:2: not a JSON line" in garbled.output
    assert "Traceback" not in garbled.output
    same = runner.invoke(app, ["export", "transcripts", str(bad), "--out", str(bad)])
    assert same.exit_code == 2 and "is one of the inputs" in same.output


def test_a_profile_transcript_keeps_every_episode(server: ProviderServer,
                                                  tmp_path: Path) -> None:
    """`cogleague profile … --transcript FILE` plays a battery of episodes: the file held only
    the last one's rows (each episode started it afresh). It holds them all, each row naming
    its episode's seed, so the same turn of two episodes can be told apart."""
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    path = tmp_path / "profile.jsonl"
    path.write_text("an older run's rows\n", encoding="utf-8")
    done = CliRunner().invoke(app, [
        "profile", "llm", "--game", "dilemma", "--episodes", "2", "--model", "test-openai",
        "--base-url", server.openai_url, "--transcript", str(path)])
    assert done.exit_code == 0, done.output
    rows = rows_of(path)  # the older content is gone: the command starts the file once
    assert len(rows) == len(server.requests) == 2 * 10 * 4  # 2 episodes, 10 rounds, 4 pairings
    assert sorted({r["seed"] for r in rows}) == [0, 1]
    assert len({(r["seed"], r["turn_id"]) for r in rows}) == len(rows)


async def test_the_models_section_says_why_a_call_fell_back(server: ProviderServer) -> None:
    """`models.fallbacks` counted `transport` / `disabled` fallbacks with no word of why (the
    results' `faults` give a reason only for refused replies): a wrong model name (404) and a
    dead server read the same. `models.errors` keeps each cause's first error per seat."""
    server.script = lambda req: Reply(fault="500") if "seat 0." in req.user_text else Reply()
    game = TextToyGame(seats=2, rounds=2)
    seats = model_seats(game, options_for(server))
    await run_episode(game, seats)
    models = accounting_for(seats)
    assert models is not None
    assert models["fallbacks"] == [{"transport": 2}, {}]
    (transport,) = models["errors"][0].values()
    assert "500" in transport and "scripted 500" in transport
    assert models["errors"][1] == {}
    game = TextToyGame(seats=1, rounds=1)
    bare = model_seats(game, ModelOptions())
    await run_episode(game, bare)
    assert accounting_for(bare)["errors"] == [  # type: ignore[index]
        {"disabled": "no model provider configured"}]


async def test_a_reply_cut_at_the_length_limit_says_so_in_its_row(
        server: ProviderServer, tmp_path: Path, shape: str) -> None:
    """The recording kept ``cut`` but the transcript did not: a reply that stopped at the
    reply length limit (1024 tokens) and still parsed looked whole."""
    server.script = sequence(Reply('{"n": 2} and then I would expla', cut=True),
                             then=Reply('{"n": 3}'))
    path = tmp_path / "t.jsonl"
    game = TextToyGame(seats=1, rounds=2)
    await run_episode(game, model_seats(game, options_for(server, shape,
                                                          transcript=str(path))))
    rows = rows_of(path)
    assert [(r["cut"], r["cause"]) for r in rows] == [(True, None), (False, None)]


async def test_a_404_says_what_to_check(server: ProviderServer) -> None:
    """An OpenAI-compatible base URL without its ``/v1`` (``http://localhost:11434`` for
    Ollama) answers every request 404: the error said only ``Error code: 404``, the same for
    a wrong model name, with nothing to check. It names both, and no URL (a recording keeps
    this text and holds no URL)."""
    game = TextToyGame(seats=1, rounds=1)
    seats = model_seats(game, dataclasses.replace(options_for(server), base_url=server.url))
    await run_episode(game, seats)
    models = accounting_for(seats)
    assert models is not None and models["fallbacks"] == [{"transport": 1}]
    error = models["errors"][0]["transport"]
    assert error.startswith("NotFoundError: Error code: 404")
    assert "model name" in error and "/v1" in error and server.url not in error


def test_export_says_whether_an_input_is_missing_or_a_folder(tmp_path: Path) -> None:
    """A mistyped transcript name was refused as "not a transcript file", as a folder was:
    the writer could not tell a typo from a wrong kind of file."""
    (tmp_path / "runs").mkdir()
    out = str(tmp_path / "o.jsonl")
    for given, said in ((tmp_path / "nope.jsonl", "does not exist"),
                        (tmp_path / "runs", "is a folder, not a transcript file")):
        done = CliRunner().invoke(app, ["export", "transcripts", str(given), "--out", out])
        assert done.exit_code == 2
        assert done.output.strip() == f"error: IN {given} {said}"
