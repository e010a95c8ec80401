"""``/agents``: register, list, version, pause, resume and retire agents (`agents.py`).

Anyone may read the agent list (what the board shows); changing an agent needs its account's
API key (or the operator's). Bodies refuse unknown keys; each field is checked by
`AgentBook`, whose 400s name the field and the allowed values.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict

from cogleague.server.errors import responses
from cogleague.server.lobby import Who
from cogleague.server.season_runtime import LeagueRuntime

router = APIRouter(tags=["agents"])


class AgentBody(BaseModel):
    """Checked field by field in `AgentBook` (so each message names its allowed values)."""

    model_config = ConfigDict(extra="forbid")
    name: Any = None
    kind: Any = "remote"
    games: Any = None
    cap: Any = 1
    description: Any = ""
    prompt: Any = None
    model: Any = None
    token_budget: Any = None
    policy_file: Any = None
    baseline: Any = None


class VersionBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: Any = None
    model: Any = None
    token_budget: Any = None
    policy_file: Any = None


def _rt(request: Request) -> LeagueRuntime:
    rt: LeagueRuntime = request.app.state.league
    return rt


@router.post("/agents", status_code=201, responses=responses(400, 401, 403, 409, 413))
async def register(body: AgentBody, who: Who, request: Request) -> dict[str, Any]:
    return await _rt(request).book.register(who, body.model_dump(exclude_none=True))


@router.get("/agents")
async def list_agents(request: Request, mine: bool = False) -> dict[str, Any]:
    """Every agent version; ``mine=true`` with a key: only this account's."""
    rt = _rt(request)
    account_id = None
    if mine:
        from cogleague.server.lobby import account

        account_id = (await account(request, request.headers.get("authorization"))).id
    return {"agents": await rt.book.all(account_id)}


@router.get("/agents/{name}", responses=responses(404))
async def get_agent(name: str, request: Request) -> dict[str, Any]:
    return {"versions": await _rt(request).book.get(name)}


@router.post("/agents/{name}/versions", status_code=201,
             responses=responses(400, 401, 403, 404, 409, 413))
async def new_version(name: str, body: VersionBody, who: Who, request: Request
                      ) -> dict[str, Any]:
    return await _rt(request).book.new_version(who, name, body.model_dump(exclude_none=True))


@router.post("/agents/{name}/{action}", responses=responses(401, 403, 404, 409))
async def change_state(name: str, action: Literal["pause", "resume", "retire"], who: Who,
                       request: Request) -> dict[str, Any]:
    return await _rt(request).book.set_state(who, name, action)
