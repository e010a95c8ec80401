"""Model transcripts: one JSONL row per attempt, and their export to chat-format JSONL.

A row: ``seat``, ``round``, ``turn_id``, ``attempt``, ``provider``, ``model``, ``prompt`` (the
chat messages sent, system first), ``reply`` (raw text, or null when none came back),
``action`` (what the game's parser made of it, with any private part the game keeps off the
episode log, such as a Commons note; or null), ``cause`` (why this attempt failed:
``parse``, ``illegal``, ``timeout``, ``transport``, ``rate_budget``, ``disabled``; null when it
succeeded), ``requests`` (HTTP requests it took, 429s included), ``input_tokens``,
``output_tokens``, ``latency_ms``, ``dropped`` (what the game dropped from a reply it accepted,
such as a note with the wrong subject, and why: `Parsed.reason`, told to the model in its
next turn's prompt; null when nothing was dropped), ``error`` (why a ``transport``,
``disabled`` or ``rate_budget`` attempt failed, in the provider's or the seat's words; null
otherwise), ``cut`` (the reply stopped at the length limit), ``replayed`` (answered from a
recording: no request, no tokens, and ``latency_ms`` null), ``seed`` (the episode's: one
transcript may hold several episodes). The last row of each turn also carries ``decision``:
the runner's final `Decision` (so a fallback shows with its cause).

Rows are written when the runner settles a step, in turn order, so a transcript's order is
deterministic; only token counts and latencies vary between runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError
from cogleague.core.game import Decision
from cogleague.core.seat import FallbackCause


@dataclass
class AttemptRecord:
    """One attempt as the seat saw it; becomes one transcript row."""

    seat: int
    round: int
    turn_id: str
    attempt: int
    prompt: list[dict[str, str]]
    reply: str | None = None
    action: dict[str, Any] | None = None
    cause: FallbackCause | None = None
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    dropped: str | None = None
    """What the game dropped from this reply (`Parsed.reason`), though it accepted it."""
    told: str | None = None
    """The previous turn's `dropped`, told to the model in this attempt's prompt."""
    cut: bool = False
    """The reply stopped at the length limit: a retry tells the model so."""
    replayed: bool = False
    """Answered from a recording: nothing was sent, so no latency was measured."""
    seed: int | None = None
    """The episode's seed: tells apart the same turn of two episodes in one transcript."""
    error: str | None = None
    """Why a call that brought back no reply failed (the provider's error, a refused key, no
    provider, no request slot): the cause alone cannot tell a 500 from a wrong model name."""

    def to_row(self, decision: Decision | None = None) -> dict[str, Any]:
        row: dict[str, Any] = {
            "seat": self.seat, "round": self.round, "turn_id": self.turn_id,
            "attempt": self.attempt, **self.extra, "prompt": self.prompt, "reply": self.reply,
            "action": self.action, "cause": self.cause, "requests": self.requests,
            "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
            "latency_ms": self.latency_ms, "dropped": self.dropped, "error": self.error,
            "cut": self.cut, "replayed": self.replayed, "seed": self.seed,
        }
        if decision is not None:
            row["decision"] = decision.to_json()
        return row


class TranscriptWriter:
    """Appends rows to one JSONL file. The file is truncated when the writer is created (once
    per episode) and opened per batch, so nothing stays open between steps."""

    def __init__(self, path: str | Path, append: bool = False) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a" if append else "w", encoding="utf-8"):
                pass
        except OSError as exc:
            raise ConfigError("transcript", f"transcript file {str(path)!r} cannot be written "
                                            f"({exc.strerror or exc})") from exc

    def write(self, rows: Iterable[dict[str, Any]]) -> None:
        lines = "".join(jsonio.dumps(r) + "\n" for r in rows)
        if lines:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(lines)


def read_rows(path: str | Path) -> Iterator[dict[str, Any]]:
    """Rows of one transcript; a malformed line is a `ConfigError` naming file and line."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").split("\n")  # not splitlines: JSON writes
        # U+2028, U+2029 and U+0085 raw inside strings, where splitlines would break a line
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("transcripts", f"transcript {str(p)!r} cannot be read ({exc})") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise ConfigError("transcripts", f"{p}:{number}: not a JSON line ({exc})") from exc
        if not isinstance(row, dict) or not isinstance(row.get("prompt"), list):
            raise ConfigError("transcripts", f"{p}:{number}: not a transcript row "
                                             "(needs a prompt list)")
        yield row


def chat_example(row: dict[str, Any]) -> dict[str, Any] | None:
    """A fine-tuning example from a row whose reply the game accepted, else None.

    A reply the game took only after mending it (a clamped move, a dropped part) is no
    example: the next prompt asks the model to correct it. The example is the messages sent
    plus the reply as the final assistant message. Earlier
    assistant messages (a failed reply shown back on a retry) get ``weight: 0`` so a trainer
    learns the correction, not the mistake.
    """
    if left_out(row) is not None:
        return None
    messages: list[dict[str, Any]] = []
    for m in row["prompt"]:
        msg: dict[str, Any] = {"role": m["role"], "content": m["content"]}
        if m["role"] == "assistant":
            msg["weight"] = 0
        messages.append(msg)
    messages.append({"role": "assistant", "content": row["reply"]})
    return {"messages": messages}


def left_out(row: dict[str, Any]) -> str | None:
    """Why a row is no chat example (its cause, ``no reply``, ``mended``), or None."""
    if row.get("cause") is not None:
        return str(row["cause"])
    if row.get("action") is None or not row.get("reply"):
        return "no reply"
    decision = row.get("decision")
    if row.get("dropped") is not None or (isinstance(decision, dict) and decision.get("clamped")):
        return "mended"  # the game mended this reply: learning it would teach the mistake
    return None


def export_chat(paths: Iterable[str | Path], out: str | Path) -> tuple[int, int]:
    """Write the chat examples of every transcript to `out`; returns (examples, rows read)."""
    examples, rows = [], 0
    for path in paths:
        for row in read_rows(path):
            rows += 1
            example = chat_example(row)
            if example is not None:
                examples.append(example)
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(jsonio.dumps(e) + "\n" for e in examples), encoding="utf-8")
    return len(examples), rows
