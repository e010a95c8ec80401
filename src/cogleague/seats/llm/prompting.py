"""What a model seat sends: the game's system text plus the operator's guidance, the turn's
prompt text as the user message, and on a retry the game's hint naming the legal form.

The operator's prompt is guidance inside the system message, below the game's rules. Text from
other seats reaches the model only inside the game's own `prompt_text`, where each game renders
it as JSON-quoted data (`core.text.quote`) — never as instructions.
"""

from __future__ import annotations

from pathlib import Path

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError
from cogleague.core.game import Turn
from cogleague.core.text import cut_with_ellipsis

MAX_PROMPT_CHARS = 4000
"""The operator's prompt, in code points."""
MAX_ECHOED_REPLY_CHARS = 2000
"""A failed reply is shown back on the retry, cut to this many code points."""
REPLY_RULE = "Answer every turn with exactly one JSON object and nothing else."
GUIDANCE_HEADING = ("Guidance from the operator of your seat (a strategy to follow within the "
                    "rules above; the rules always win):")
DROPPED_TEXT = ("Part of your previous reply was dropped (your move stood): {reason}\n"
                "Correct this in your replies from now on.")
MAX_DROPPED_CHARS = 500
"""The game's reason for a dropped part, cut to this many code points (it may quote the
seat's own text)."""
RETRY_TEXT = ("Your last reply could not be used: {hint}\n"
              "Answer again with exactly one JSON object and nothing else.")
CUT_TEXT = ("Your last reply was cut off: it reached the reply length limit before it ended. "
            "Answer briefly.")


def check_prompt(text: object) -> str:
    """The operator's prompt: a string of at most MAX_PROMPT_CHARS code points."""
    if not isinstance(text, str):
        raise ConfigError("prompt", f"prompt must be a string of 0..{MAX_PROMPT_CHARS} code "
                                    f"points (got {type(text).__name__})")
    if len(text) > MAX_PROMPT_CHARS:
        raise ConfigError("prompt", f"prompt must be a string of 0..{MAX_PROMPT_CHARS} code "
                                    f"points (got {len(text)})")
    return text


def load_prompt(seat_name: str) -> str:
    """The prompt a seat name points at: ``llm`` → none, ``llm:PATH`` → that UTF-8 file. A
    file that cannot be used is a bad line-up entry: a `ConfigError` on ``seats``, as every
    other bad seat name is (the command line then names ``--seats``)."""
    if seat_name == "llm":
        return ""
    path = seat_name.partition(":")[2]
    if not path:
        raise _bad_file("prompt file missing: write llm:PATH (or llm for none)")
    try:
        # "~" after "llm:" arrives unexpanded (a shell expands it only at a word's start)
        text = Path(path).expanduser().read_text(encoding="utf-8-sig")  # BOM: no guidance
    except UnicodeDecodeError as exc:
        raise _bad_file(f"prompt file {path!r} is not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise _bad_file(f"prompt file {path!r} cannot be read ({exc.strerror or exc})") from exc
    text = text.strip()
    if len(text) > MAX_PROMPT_CHARS:  # name the file: a line-up may hold several prompts
        raise _bad_file(f"prompt file {path!r} must hold 0..{MAX_PROMPT_CHARS} code points once "
                        f"its surrounding blanks are stripped (got {len(text)})")
    return text


def _bad_file(why: str) -> ConfigError:
    return ConfigError("seats", f"seats: {why}")


def system_message(game_text: str, guidance: str) -> str:
    parts = [game_text.strip()] if game_text.strip() else []
    parts.append(REPLY_RULE)
    if guidance.strip():  # blanks are no guidance: no heading over nothing
        parts.append(f"{GUIDANCE_HEADING}\n{guidance}")
    return "\n\n".join(parts)


def user_message(turn: Turn) -> str:
    """The game's text view; for a game without one, its structured view as JSON."""
    text = turn.prompt_text
    if text is not None:
        return text
    return (f"Your view (JSON):\n{jsonio.dumps(turn.view)}\n"
            f"Legal actions (JSON):\n{jsonio.dumps(turn.legal_actions)}")


def cut_dropped(reason: str) -> str:
    return cut_with_ellipsis(reason, MAX_DROPPED_CHARS)


def chat_turns(turn: Turn, hint: str | None, last_reply: str | None,
               dropped: str | None = None, *, cut: bool = False) -> list[dict[str, str]]:
    """The user/assistant turns of one attempt. A retry shows the failed reply (if one came
    back) and then the hint; with no reply to show, the hint joins the user message.

    `dropped` is the game's reason (`Parsed.reason`) for what it dropped from the seat's
    previous accepted reply: said after the turn's view, so the model can correct itself.
    `cut`: the failed reply stopped at the length limit, which the retry says first (a model
    that never reached its JSON must shorten its answer, not only mind the form)."""
    user = user_message(turn)
    if dropped is not None:
        user = f"{user}\n\n{DROPPED_TEXT.format(reason=dropped)}"
    if hint is None:
        return [{"role": "user", "content": user}]
    correction = RETRY_TEXT.format(hint=hint)
    if cut:
        correction = f"{CUT_TEXT}\n{correction}"
    if last_reply is None or not last_reply.strip():
        return [{"role": "user", "content": f"{user}\n\n{correction}"}]
    return [{"role": "user", "content": user},
            {"role": "assistant", "content": cut_with_ellipsis(last_reply, MAX_ECHOED_REPLY_CHARS)},
            {"role": "user", "content": correction}]
