"""``/agents``: register, list, change, version, pause, resume and retire agents (`agents.py`).

Anyone may read the agent list (what the board shows); changing an agent needs its account's
API key (or the operator's). Bodies refuse unknown keys and unstorable text; each field is
checked by `AgentBook`, whose 400s name the field and the allowed values.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import Field

from cogleague.seats.llm.prompting import MAX_PROMPT_CHARS
from cogleague.server.agent_limits import MAX_CAP, MAX_DESCRIPTION
from cogleague.server.agents import NAME_RE
from cogleague.server.errors import responses
from cogleague.server.lobby import JsonInt, Who
from cogleague.server.lobby import _Body as RequestBody
from cogleague.server.season_runtime import LeagueRuntime

router = APIRouter(tags=["agents"])


class AgentBody(RequestBody):
    """The fields of every kind; which go together, and their allowed values, are in the
    API document (`agent_openapi.py`) and checked by `AgentBook` (400 naming the field).
    Like every request body: unknown keys refused, text no database stores refused first
    (400 `bad_text`, `textguard.py`)."""

    name: str = Field(pattern=NAME_RE.pattern,  # said in words, not as the expression
                      json_schema_extra={"x-in-words": "1..64 letters, digits, _ . or -"})
    kind: Literal["remote", "model", "policy", "baseline"] = "remote"
    games: list[str] = Field(min_length=1)
    cap: JsonInt = Field(1, ge=1, le=MAX_CAP)
    description: str = Field("", max_length=MAX_DESCRIPTION)
    prompt: str | None = Field(None, min_length=1, max_length=MAX_PROMPT_CHARS)
    model: str | None = None
    token_budget: JsonInt | None = Field(None, ge=1)
    policy_file: str | None = Field(None, description="kind policy: the .npz file, base64")
    baseline: str | None = None


class VersionBody(RequestBody):
    prompt: str | None = Field(None, min_length=1, max_length=MAX_PROMPT_CHARS)
    model: str | None = None
    token_budget: JsonInt | None = Field(None, ge=1)
    policy_file: str | None = None


class ChangeBody(RequestBody):
    """What changes in place (`AgentBook.change`): at least one field; null is not "leave
    it", it is refused like any value outside the range (the API document says so)."""

    cap: JsonInt | None = Field(None, ge=1, le=MAX_CAP)
    games: list[str] | None = Field(None, min_length=1)
    description: str | None = Field(None, max_length=MAX_DESCRIPTION)


def _rt(request: Request) -> LeagueRuntime:
    rt: LeagueRuntime = request.app.state.league
    return rt


@router.post("/agents", status_code=201, responses=responses(400, 401, 403, 409, 413))
async def register(body: AgentBody, who: Who, request: Request) -> dict[str, Any]:
    return await _rt(request).book.register(who, body.model_dump(exclude_none=True))


@router.get("/agents", responses=responses(401))
async def list_agents(request: Request, mine: bool = False) -> dict[str, Any]:
    """Every agent version; ``mine=true`` with a key: only this account's. The operator's
    key lists the season's held-out agents too (it manages them); the public list leaves them
    out until the season ends."""
    from cogleague.server.lobby import account, by_operator

    rt = _rt(request)
    authorization = request.headers.get("authorization")
    if mine:
        return {"agents": await rt.book.all((await account(request, authorization)).id)}
    return {"agents": await rt.book.all(reveal=await by_operator(request, authorization))}


@router.get("/agents/{name}", responses=responses(404))
async def get_agent(name: str, request: Request) -> dict[str, Any]:
    """Every version of one agent, newest first (a held-out one: to the operator only, until
    the season ends)."""
    from cogleague.server.lobby import by_operator

    reveal = await by_operator(request, request.headers.get("authorization"))
    return {"versions": await _rt(request).book.get(name, reveal)}


@router.patch("/agents/{name}", responses=responses(400, 401, 403, 404, 409))
async def change_agent(name: str, body: ChangeBody, who: Who, request: Request
                       ) -> dict[str, Any]:
    """Change the cap, games or description of an agent's current version in place. It
    counts from the next table the matchmaker forms; tables already running go on as they
    are; a remote agent connected on /ws/agent is sent a `changed` frame with its new values.
    New games need open registration (409 once the final line-ups are frozen)."""
    return await _rt(request).book.change(who, name, body.model_dump(exclude_unset=True))


@router.post("/agents/{name}/versions", status_code=201,
             responses=responses(400, 401, 403, 404, 409, 413))
async def new_version(name: str, body: VersionBody, who: Who, request: Request
                      ) -> dict[str, Any]:
    return await _rt(request).book.new_version(who, name, body.model_dump(exclude_none=True))


@router.post("/agents/{name}/{action}", responses=responses(401, 403, 404, 409))
async def change_state(name: str, action: Literal["pause", "resume", "retire"], who: Who,
                       request: Request) -> dict[str, Any]:
    return await _rt(request).book.set_state(who, name, action)
