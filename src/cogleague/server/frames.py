"""Every WebSocket frame of the table protocol (protocol.md §3), as pydantic models.

The models are the contract: `frame_schema()` publishes them as JSON Schema at
`GET /protocol/frames.json`, incoming frames are validated with `parse_client_frame`, and the
tests validate every outgoing frame they receive against `SERVER_FRAMES`. Outgoing frames are
built as plain dicts by the helpers below (they are on the hot path); the models mirror them.

`seq` numbers a connection's *event stream*: each `event` frame advances it by one, and every
other server frame carries the current value, so a seat that reconnects with `last_seq` (or
sends `resume`) gets exactly the events after it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from cogleague.server.validation import allowed, got

PROTOCOL = "table.v1"


class _Server(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seq: int = Field(ge=0)
    table: str


class Hello(_Server):
    type: Literal["hello"]
    protocol: Literal["table.v1"]
    game: str
    rules_version: str
    seat: int | None = Field(description="this connection's own seat; null for spectators")
    alias: str | None
    config: dict[str, Any]
    state: str


class YourTurn(_Server):
    type: Literal["your_turn"]
    turn_id: str
    deadline_ms: int
    deadline_at: int = Field(description="server time of the deadline, Unix epoch milliseconds")
    legal_actions: Any
    visible_state: dict[str, Any]
    prompt_text: str | None = None
    hint: str | None = Field(None, description="set when the runner asks again after a failure")


class EventFrame(_Server):
    type: Literal["event"]
    event: str
    payload: dict[str, Any]


class Ack(_Server):
    type: Literal["ack"]
    turn_id: str


class ErrorFrame(_Server):
    type: Literal["error"]
    code: str
    message: str
    turn_id: str | None = None
    hint: str | None = None
    """For a refused move: the legal form, as the game words it."""
    legal_actions: Any = None
    """For a refused move: the turn's legal actions again, so the seat can correct it."""


class Snapshot(_Server):
    type: Literal["snapshot"]
    state: str
    visible_state: dict[str, Any] | None
    your_turn: YourTurn | None
    rounds_played: int | None = None


class Ping(_Server):
    type: Literal["ping"]


class Pong(_Server):
    type: Literal["pong"]


class End(_Server):
    type: Literal["end"]
    reason: str | None
    results: dict[str, Any] | None


SERVER_FRAMES: dict[str, type[_Server]] = {
    "hello": Hello, "your_turn": YourTurn, "event": EventFrame, "ack": Ack,
    "error": ErrorFrame, "snapshot": Snapshot, "ping": Ping, "pong": Pong, "end": End,
}


class Move(BaseModel):
    """`turn_id` plus the game's own action fields (kept as given; the game parses them)."""

    model_config = ConfigDict(extra="allow")
    type: Literal["move"]
    turn_id: str = Field(min_length=1, max_length=200)  # MAX_TURN_ID_CHARS


class Resume(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["resume"]
    last_seq: int = Field(ge=0, strict=True)  # `true` or `1.0` is refused, not read as 1


class ClientPong(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["pong"]


class ClientPing(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["ping"]


ClientFrame = Move | Resume | ClientPong | ClientPing
_CLIENT = TypeAdapter(ClientFrame)
_CLIENT_TYPES: dict[str, type[Move | Resume | ClientPong | ClientPing]] = {
    "move": Move, "resume": Resume, "pong": ClientPong, "ping": ClientPing}


class BadFrame(ValueError):
    pass


EXCERPT_CHARS = 40
"""What a refusal quotes of a client's own text at most (a type, a field name): a frame may
be 64 KiB, and the server does not write a client's text back at its length."""


def excerpt(text: str) -> str:
    """`text` cut to `EXCERPT_CHARS` characters, with an ellipsis when it was longer."""
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS - 1] + "…"


def parse_client_frame(doc: Any) -> Move | Resume | ClientPong | ClientPing:
    """Validate one decoded client frame; `BadFrame` names what is wrong."""
    if not isinstance(doc, dict):
        raise BadFrame("a frame must be a JSON object with a type")
    kind = doc.get("type")
    model = _CLIENT_TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise BadFrame(f"type must be one of {', '.join(_CLIENT_TYPES)} "
                       f"(got {excerpt(repr(kind))})")
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        raise BadFrame(_words(str(kind), model, exc.errors()[0])) from None


def _words(kind: str, model: type[BaseModel], error: ErrorDetails) -> str:
    """``field: must be … (got …)``, read from the frame's own declaration, as the HTTP
    refusals say it (validation.py); pydantic's words only where the declaration says nothing.
    An unknown field is named by its own key, cut to `EXCERPT_CHARS` like the value."""
    loc = error["loc"]
    where = excerpt(".".join(str(p) for p in loc) or "frame")
    fields = {k: v for k, v in model.model_json_schema().get("properties", {}).items()
              if k != "type"}
    if error["type"] == "extra_forbidden":
        return f"{where}: not a field of {kind} (its fields are {', '.join(fields)})"
    node = fields.get(str(loc[0])) if len(loc) == 1 else None
    says = allowed(node) if isinstance(node, dict) else None
    if says is None:
        return f"{where}: {error['msg']}"
    if error["type"] == "missing":
        return f"{where}: required; must be {says}"
    return f"{where}: must be {says} (got {excerpt(got(error))})"


def not_json(exc: ValueError, text: str) -> str:
    """The refusal of a frame that is not JSON at all: what a frame is, and what was sent."""
    return (f"not JSON ({exc}); a frame is a JSON object with a type, one of "
            f"{', '.join(_CLIENT_TYPES)} (got {excerpt(repr(text))})")


MAX_TURN_ID_CHARS = 200
"""`Move.turn_id`'s length limit (the model's `max_length`)."""


def fast_move(doc: Any) -> tuple[str, dict[str, Any]] | None:
    """`(turn_id, action fields)` of a plainly well-formed `move` — a JSON object whose
    `type` is "move" and whose `turn_id` is a string of 1..200 characters — without building
    the pydantic model (every move of every seat passes here). None for anything else, which
    `parse_client_frame` then validates and words the error for; the fields are the ones
    `move_fields(parse_client_frame(doc))` gives."""
    if type(doc) is not dict or doc.get("type") != "move":
        return None
    turn_id = doc.get("turn_id")
    if type(turn_id) is not str or not 0 < len(turn_id) <= MAX_TURN_ID_CHARS:
        return None
    return turn_id, {k: v for k, v in doc.items() if k != "type" and k != "turn_id"}


def move_fields(move: Move) -> dict[str, Any]:
    """The game's action fields of a `move` (everything but `type` and `turn_id`)."""
    return dict(move.model_extra or {})


def frame_schema() -> dict[str, Any]:
    """JSON Schema for every frame, server → seat and seat → server."""
    return {
        "protocol": PROTOCOL,
        "server": {name: model.model_json_schema() for name, model in SERVER_FRAMES.items()},
        "client": {name: model.model_json_schema() for name, model in _CLIENT_TYPES.items()},
    }


def validate_server_frame(doc: dict[str, Any]) -> None:
    """Raise if `doc` is not a valid server frame (used by tests on every received frame)."""
    SERVER_FRAMES[doc["type"]].model_validate(doc)


# -- builders (hot path: plain dicts) -----------------------------------------------------------
def error(table: str, seq: int, code: str, message: str, turn_id: str | None = None
          ) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "seq": seq, "table": table, "code": code,
                             "message": message}
    if turn_id is not None:
        frame["turn_id"] = turn_id
    return frame
