"""The parts of model seats that need no server: the runner hooks, the request budget on a fake
clock, JSON extraction, prompt building and validation, accounting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogleague.core.clock import FakeClock
from cogleague.core.episode import Attempt, current_attempt, run_episode
from cogleague.core.errors import ConfigError, SeatUnavailable
from cogleague.core.game import Decision, Timing, Turn
from cogleague.core.model_limits import DEFAULT_REQUESTS_PER_MINUTE
from cogleague.core.text import first_object, first_object_span
from cogleague.seats.factory import ModelOptions, make_seats
from cogleague.seats.llm import MAX_PROMPT_CHARS, ModelSeat, accounting_for, make_model_seat
from cogleague.seats.llm.budget import BACKOFF_BASE_S, WINDOW_S, RequestBudget
from cogleague.seats.llm.prompting import GUIDANCE_HEADING, REPLY_RULE, chat_turns
from helpers.model_toys import TextToyGame

# -- runner hooks --------------------------------------------------------------------------


class HookedSeat:
    """Records what the runner tells it: the attempt context, final decisions, the close."""

    kind = "remote"
    name = "hooked"

    def __init__(self, clock: FakeClock, replies: list[Any]) -> None:
        self.clock = clock
        self.replies = replies
        self.attempts: list[Attempt | None] = []
        self.decisions: list[tuple[str, Decision]] = []
        self.closed = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.attempts.append(current_attempt())
        await self.clock.sleep(1.0)
        return self.replies.pop(0)

    def on_decision(self, turn: Turn, decision: Decision) -> None:
        self.decisions.append((turn.turn_id, decision))

    async def aclose(self) -> None:
        self.closed += 1


async def test_the_runner_tells_a_seat_its_attempt_deadline_decisions_and_the_end() -> None:
    clock = FakeClock()
    timing = Timing(decision_timeout_s=4.5, retries=1, step_deadline_s=5.0)
    game = TextToyGame(seats=1, rounds=2, timing=timing)
    seat = HookedSeat(clock, ["junk", {"n": 3}, {"n": 5}])
    await run_episode(game, [seat], clock=clock)
    assert [(a.deadline, a.number) for a in seat.attempts if a is not None] == [
        (4.5, 1), (5.0, 2), (6.5, 1)]  # the retry (from t = 1) is cut by the step deadline
    assert all(a is not None and a.clock is clock for a in seat.attempts)
    assert [(tid, d.source, d.attempts) for tid, d in seat.decisions] == [
        ("r0s0p0", "seat", 2), ("r1s0p0", "seat", 1)]
    assert seat.closed == 1
    assert current_attempt() is None  # reset outside an attempt


def test_scripted_line_ups_keep_the_no_event_loop_path() -> None:
    from cogleague.core.episode import play_headless

    game = TextToyGame(seats=2, rounds=3)
    seats = make_seats(game, ["const2", "const3"])
    assert play_headless(game, seats).results["scores"] == [6, 9]


# -- the request budget on a fake clock ----------------------------------------------------


async def test_budget_waits_for_a_slot_that_frees_before_the_deadline() -> None:
    clock = FakeClock()
    budget = RequestBudget(2, clock)
    await budget.acquire(deadline=1.0)
    clock.advance(10.0)
    await budget.acquire(deadline=11.0)
    await budget.acquire(deadline=100.0)  # the first slot frees at t = 60
    assert clock.now() == pytest.approx(WINDOW_S)


async def test_budget_refuses_at_once_when_no_slot_frees_in_time() -> None:
    clock = FakeClock()
    budget = RequestBudget(1, clock)
    await budget.acquire(deadline=1.0)
    with pytest.raises(SeatUnavailable) as refused:
        await budget.acquire(deadline=30.0)
    assert refused.value.cause == "rate_budget"
    assert clock.now() == 0.0  # it did not wait


async def test_429_pauses_every_caller_with_exponential_backoff_until_a_success() -> None:
    clock = FakeClock()
    budget = RequestBudget(DEFAULT_REQUESTS_PER_MINUTE, clock)
    pauses = [budget.rate_limited(None) for _ in range(3)]
    assert pauses == [BACKOFF_BASE_S, 2 * BACKOFF_BASE_S, 4 * BACKOFF_BASE_S]
    await budget.acquire(deadline=100.0)
    assert clock.now() == pytest.approx(4 * BACKOFF_BASE_S)
    budget.succeeded()
    assert budget.rate_limited(None) == BACKOFF_BASE_S
    assert budget.rate_limited(2.5) == 2.5  # the server's Retry-After wins when it sends one


# -- JSON extraction -----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=10)


@given(doc=st.dictionaries(st.text(max_size=10), json_values, max_size=4),
       before=st.text(alphabet=st.characters(blacklist_characters="{"), max_size=30),
       after=st.text(max_size=30))
def test_the_first_balanced_object_is_found_inside_any_prose(doc: dict[str, Any], before: str,
                                                            after: str) -> None:
    assert first_object(before + json.dumps(doc, ensure_ascii=False) + after) == doc


@pytest.mark.parametrize(("text", "span"), [
    ('Here: ```json\n{"move": 1, "note": "a } b"}\n``` done', '{"move": 1, "note": "a } b"}'),
    ('{"a": {"b": 2}} {"c": 3}', '{"a": {"b": 2}}'),
    ('{ unbalanced {"move": 0}', '{"move": 0}'),
    ("no object at all", None),
    ('{"s": "\\"}"}', '{"s": "\\"}"}'),
])
def test_first_object_span_examples(text: str, span: str | None) -> None:
    assert first_object_span(text) == span


def test_first_object_refuses_what_is_not_a_json_object() -> None:
    assert first_object("{not json}") is None
    assert first_object("[1, 2]") is None


# -- prompts -------------------------------------------------------------------------------


def test_the_system_message_is_the_games_rules_then_the_operators_guidance() -> None:
    game = TextToyGame(seats=2, rounds=1)
    seat = make_model_seat(game, 1, "llm", ModelOptions(), prompt="Always name 9.")
    assert seat.system_text == (f"{game.system_text(1)}\n\n{REPLY_RULE}\n\n"
                                f"{GUIDANCE_HEADING}\nAlways name 9.")
    bare = make_model_seat(game, 0, "llm", ModelOptions())
    assert GUIDANCE_HEADING not in bare.system_text


def test_a_retry_shows_the_failed_reply_and_the_hint() -> None:
    game = TextToyGame(seats=1, rounds=1)
    game.start()
    game.open_round()
    (turn,) = game.pending()
    assert chat_turns(turn, None, None) == [{"role": "user", "content": turn.prompt_text}]
    retry = chat_turns(turn, "use {n}", "nope")
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert retry[1]["content"] == "nope" and "use {n}" in retry[2]["content"]
    after_timeout = chat_turns(turn, "answer faster", None)
    assert len(after_timeout) == 1 and "answer faster" in after_timeout[0]["content"]


def test_a_prompt_file_is_read_and_limited_to_4000_code_points(tmp_path: Path) -> None:
    game = TextToyGame(seats=1, rounds=1)
    ok = tmp_path / "ok.txt"
    ok.write_text("😀" * MAX_PROMPT_CHARS, encoding="utf-8")  # 4000 code points, 16000 bytes
    assert make_model_seat(game, 0, f"llm:{ok}", ModelOptions()).prompt == "😀" * 4000
    long = tmp_path / "long.txt"
    long.write_text("x" * (MAX_PROMPT_CHARS + 1), encoding="utf-8")
    with pytest.raises(ConfigError) as too_long:
        make_model_seat(game, 0, f"llm:{long}", ModelOptions())
    assert too_long.value.field == "seats"  # a bad line-up entry, as any other
    # the file is named: with two model seats the writer must know which prompt is too long
    assert str(too_long.value) == (f"seats: prompt file {str(long)!r} must hold 0..4000 code "
                                   "points once its surrounding blanks are stripped (got 4001)")
    with pytest.raises(ConfigError) as missing:
        make_model_seat(game, 0, f"llm:{tmp_path / 'absent.txt'}", ModelOptions())
    assert missing.value.field == "seats" and "absent.txt" in str(missing.value)
    with pytest.raises(ConfigError) as inline:
        make_model_seat(game, 0, "llm", ModelOptions(), prompt="y" * 4001)
    assert inline.value.field == "prompt"


@pytest.mark.parametrize(("options", "field"), [
    (ModelOptions(provider="openai"), "model"),
    (ModelOptions(provider="gemini", model="m"), "provider"),
    (ModelOptions(provider="openai", model="m", base_url="http://127.0.0.1:9/v1",
                  requests_per_minute=0), "requests_per_minute"),
    (ModelOptions(provider="openai", model="m", base_url="localhost:11434/v1"), "base_url"),
    (ModelOptions(provider="anthropic", model="m", base_url="ftp://h/v1"), "base_url"),
])
def test_bad_model_settings_name_their_field(options: ModelOptions, field: str) -> None:
    with pytest.raises(ConfigError) as bad:
        make_model_seat(TextToyGame(seats=1), 0, "llm", options)
    assert bad.value.field == field


def test_the_factory_routes_llm_seats_here() -> None:
    game = TextToyGame(seats=3, rounds=1)
    seats = make_seats(game, ["llm", "const1", "llm"], ModelOptions())
    assert [type(s).__name__ for s in seats] == ["ModelSeat", "ScriptedSeat", "ModelSeat"]
    assert all(s.kind == "model" for s in seats if isinstance(s, ModelSeat))
    assert seats[0].episode is seats[2].episode  # one shared state per episode


# -- accounting ----------------------------------------------------------------------------


def test_accounting_is_none_without_model_seats_and_indexed_by_seat_with_them() -> None:
    game = TextToyGame(seats=3, rounds=1)
    assert accounting_for(make_seats(game, ["const1", "const2", "const3"])) is None
    seats = make_seats(game, ["const1", "llm", "const3"], ModelOptions())
    seats[1].stats.latencies_ms.extend([10.0, 30.0, 20.0, 400.0])
    models = accounting_for(seats)
    assert models is not None
    assert models["latency_p50_ms"] == [None, 25.0, None]
    assert models["latency_max_ms"] == [None, 400.0, None]
    assert all(len(v) == 3 for v in models.values())


def test_a_prompt_file_saved_with_a_byte_order_mark_is_read_without_it(tmp_path: Path) -> None:
    """Editors on Windows save UTF-8 with a byte order mark: a file marker, not guidance. Kept,
    it led the operator's guidance as an invisible character, counted against the 4,000."""
    game = TextToyGame(seats=1, rounds=1)
    marked = tmp_path / "marked.txt"
    marked.write_text("Always name 9.\n", encoding="utf-8-sig")
    seat = make_model_seat(game, 0, f"llm:{marked}", ModelOptions())
    assert seat.prompt == "Always name 9."
    assert seat.system_text.endswith(f"{GUIDANCE_HEADING}\nAlways name 9.")
    full = tmp_path / "full.txt"
    full.write_text("x" * MAX_PROMPT_CHARS, encoding="utf-8-sig")
    assert len(make_model_seat(game, 0, f"llm:{full}", ModelOptions()).prompt) == 4000


def test_a_blank_prompt_adds_no_guidance_heading() -> None:
    """A prompt of blanks (a form left empty but for a newline) is no guidance: the system
    message does not end in a guidance heading over nothing, as a blank prompt file does not."""
    game = TextToyGame(seats=1, rounds=1)
    blank = make_model_seat(game, 0, "llm", ModelOptions(), prompt=" \n\t")
    assert GUIDANCE_HEADING not in blank.system_text
    assert blank.system_text == make_model_seat(game, 0, "llm", ModelOptions()).system_text


def test_a_prompt_path_from_the_home_directory_is_read(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``llm:~/prompt.txt``: a shell expands ``~`` only at a word's start, so after ``llm:`` it
    arrives as written; the file is the one in the home directory, as the writer meant."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "prompt.txt").write_text("Always name 9.\n", encoding="utf-8")
    game = TextToyGame(seats=1, rounds=1)
    assert make_model_seat(game, 0, "llm:~/prompt.txt", ModelOptions()).prompt == "Always name 9."


def test_a_base_url_without_a_scheme_is_one_line_naming_the_flag(tmp_path: Path) -> None:
    """``--base-url localhost:11434/v1`` (Ollama's address as often typed) is not a URL the SDKs
    can send to: say what form it needs, not "cannot reach the model endpoint"."""
    from typer.testing import CliRunner

    from cogleague.cli import app

    done = CliRunner().invoke(app, [
        "play", "dilemma", "--seats", "llm,tit_for_tat,always_defect,pavlov", "--rounds", "1",
        "--model", "m", "--base-url", "localhost:11434/v1", "--out", str(tmp_path / "run")])
    assert done.exit_code == 2
    assert done.output.strip() == ("error: --base-url must be an http:// or https:// URL "
                                   "(got 'localhost:11434/v1')")


def test_the_cost_line_of_a_seat_without_a_provider_says_so(tmp_path: Path) -> None:
    """With no provider the cost line named the model ``None``: say there is none."""
    from typer.testing import CliRunner

    from cogleague.cli import app

    done = CliRunner().invoke(app, [
        "play", "dilemma", "--seats", "llm,tit_for_tat,always_defect,pavlov", "--rounds", "1",
        "--out", str(tmp_path / "run")])
    assert done.exit_code == 0, done.output
    assert "(None)" not in done.output
    assert "seat 0 (no model provider): 0 requests" in done.output


def test_play_takes_the_request_budget_and_names_its_range(tmp_path: Path,
                                                           server: Any) -> None:
    """`requests_per_minute` (docs: 1..100000, default 600) could be set only from Python: a
    prompt writer on a low-quota key had no way to keep `cogleague play` inside it."""
    from typer.testing import CliRunner

    from cogleague.cli import app
    from helpers.provider_server import Reply

    server.script = lambda _req: Reply('{"action": "cooperate"}')
    base = ["play", "dilemma", "--seats", "llm,tit_for_tat,always_defect,pavlov", "--rounds",
            "1", "--model", "m", "--base-url", server.openai_url]
    bad = CliRunner().invoke(app, [*base, "--requests-per-minute", "0",
                                   "--out", str(tmp_path / "bad")])
    assert bad.exit_code == 2
    assert bad.output.strip() == "error: --requests-per-minute must be an integer in 1..100000 " \
                                 "(got 0)"
    done = CliRunner().invoke(app, [*base, "--requests-per-minute", "1",
                                    "--out", str(tmp_path / "run")])
    assert done.exit_code == 0, done.output
    models = json.loads((tmp_path / "run" / "results.json").read_text())["models"]
    # round 1 asks seat 0 three times at once: one request fits the minute, two fall back
    assert models["requests"][0] == 1 and models["fallbacks"][0] == {"rate_budget": 2}


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1/"])
def test_an_anthropic_base_url_ending_in_v1_is_refused(url: str) -> None:
    """The Messages API path is ``/v1/messages`` under the base URL, so an OpenAI-style
    ``…/v1`` sent every request to ``/v1/v1/messages``: a 404 on every turn, played by the
    fallback. The error names the field and the form it needs."""
    with pytest.raises(ConfigError) as bad:
        make_model_seat(TextToyGame(seats=1), 0, "llm",
                        ModelOptions(provider="anthropic", model="m", base_url=url))
    assert bad.value.field == "base_url"
    assert str(bad.value) == (f"base_url for anthropic is the host, without /v1 (requests go "
                              f"to BASE_URL/v1/messages): write http://127.0.0.1:9 (got {url!r})")


def test_play_prints_the_error_behind_a_model_seats_fallbacks(tmp_path: Path,
                                                              server: Any) -> None:
    """`fallbacks: seat 0 (llm) 3 transport` said nothing of why (a dead server, a wrong model
    name): the first error of each cause follows it."""
    from typer.testing import CliRunner

    from cogleague.cli import app
    from helpers.provider_server import Reply

    server.script = lambda _req: Reply(fault="500")
    done = CliRunner().invoke(app, [
        "play", "dilemma", "--seats", "llm,tit_for_tat,always_defect,pavlov", "--rounds", "1",
        "--model", "m", "--base-url", server.openai_url, "--out", str(tmp_path / "run")])
    assert done.exit_code == 0, done.output
    assert "3 transport" in done.output
    line = next(x for x in done.output.splitlines() if x.startswith("seat 0 transport: "))
    assert "500" in line and "scripted 500" in line
