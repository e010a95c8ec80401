"""Agents an account registers once and the league matches continuously (`POST /agents`).

Four kinds: ``remote`` (a program that stays connected on ``/ws/agent``), ``model`` (a
prompt and a model from the season's allowed list, with a daily token budget), ``policy`` (an
uploaded trained-policy file, checked against each game's spaces on upload) and ``baseline``
(a game's scripted policy; operator only, labelled as a baseline everywhere). A new prompt or
policy makes a new *version*: a new row with its own rating; the older rows stay on the board,
marked. Every refusal names the field and the allowed values (400), or the state (409).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from secrets import token_hex
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from cogleague.core.errors import ConfigError
from cogleague.core.text import text_fault
from cogleague.seats.llm.prompting import MAX_PROMPT_CHARS
from cogleague.server.agent_limits import MAX_CAP, MAX_DESCRIPTION
from cogleague.server.errors import ApiError
from cogleague.server.league_schema import agent_presence, agents, seasons
from cogleague.server.matchmaker import FINAL
from cogleague.server.ratings import token_day
from cogleague.server.store import accounts, now
from cogleague.server.tables import Account

if TYPE_CHECKING:
    from cogleague.server.season_runtime import LeagueRuntime

KINDS = ("remote", "model", "policy", "baseline")
ACTIVE, PAUSED, RETIRED = "active", "paused", "retired"
NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
PLAY_FIELDS = ("prompt", "model", "token_budget", "policy_file", "baseline")
PLAY_FIELDS_OF = {"remote": (), "model": ("prompt", "model", "token_budget"),
                  "policy": ("policy_file",), "baseline": ("baseline",)}
MAX_POLICY_BYTES = 700 * 1024
"""A policy file, base64 in a JSON body under the server's 1 MiB body limit."""


CHANGE_FIELDS = ("cap", "games", "description")
"""What `PATCH /agents/NAME` changes in place (the rest makes a new version, or is fixed)."""


BY_OPERATOR = "paused by the operator"
"""The reason an operator's pause stores (`set_state`): only the operator lifts it."""


def bad(message: str) -> ApiError:
    return ApiError(400, "bad_request", message)


def policy_name(row: Mapping[str, Any]) -> str:
    """The name a version plays and is stored under (`league_seats.policy`)."""
    return f"{row['name']}@v{row['version']}"


SOCKET_FIELDS = ("agent", "version", "cap", "games", "state", "reason", "phase")
"""What an agent socket is told of its agent and its season's phase (``running``, ``final``,
``ended``: an agent online after the end would otherwise wait for tables that never come):
in ``hello``, then in ``changed`` whenever one of them changes while the socket is open
(`agent_socket.py`, `LeagueRuntime._tell`)."""


def socket_fields(row: Mapping[str, Any], phase: str | None) -> dict[str, Any]:
    """`SOCKET_FIELDS` of an agent row and the season's phase (`hello` and `changed` carry
    the same)."""
    return {"agent": row["name"], "version": row["version"], "cap": row["cap"],
            "games": json.loads(row["games"]), "state": row["state"], "reason": row["reason"],
            "phase": phase}


def describe(row: Mapping[str, Any], owner: str, online: bool | None = None) -> dict[str, Any]:
    """The public face of one agent version (no prompt, no file path)."""
    doc: dict[str, Any] = {
        "id": row["id"], "name": row["name"], "version": row["version"],
        "current": bool(row["current"]), "kind": row["kind"],
        "baseline": row["kind"] == "baseline", "games": json.loads(row["games"]),
        "cap": row["cap"], "description": row["description"], "state": row["state"],
        "reason": row["reason"], "owner": owner, "policy": policy_name(row),
        "created_at": row["created_at"]}
    if row["kind"] == "model":
        doc.update(model=row["model"], token_budget=row["token_budget"],
                   tokens_used=row["tokens_used"], tokens_day=row["tokens_day"])
    if online is not None:
        doc["online"] = online
    return doc


class AgentBook:
    """Registration, versions and states; reads for the CLI and the board."""

    def __init__(self, runtime: LeagueRuntime) -> None:
        self.rt = runtime

    # -- validation ---------------------------------------------------------------------------
    def _games(self, value: Any) -> list[str]:
        allowed = self.rt.game_names()
        if not isinstance(value, list) or not value:
            raise bad(f"games must be a non-empty list of {', '.join(allowed)} (got {value!r})")
        for i, g in enumerate(value):
            if g not in allowed:
                raise bad(f"games[{i}] must be one of {', '.join(allowed)} (got {g!r})")
        return list(dict.fromkeys(value))

    def _plays(self, kind: str, games: list[str], body: Mapping[str, Any],
               who: Account, name: str, version: int) -> dict[str, Any]:
        """The fields that say how the agent plays, checked against every game it names."""
        for key in PLAY_FIELDS:
            if body.get(key) is not None and key not in PLAY_FIELDS_OF[kind]:
                takes = ", ".join(PLAY_FIELDS_OF[kind]) or "none of " + ", ".join(PLAY_FIELDS)
                raise bad(f"{key}: a {kind} agent does not take it (it takes {takes})")
        if kind == "remote":
            return {}
        if kind == "baseline":
            if not who.is_operator:
                raise ApiError(403, "forbidden", "kind: baseline agents are the operator's")
            baseline = body.get("baseline")
            self._baseline_fits(baseline, games)
            return {"baseline": baseline}
        if kind == "model":
            prompt = body.get("prompt")
            if not isinstance(prompt, str) or not 1 <= len(prompt) <= MAX_PROMPT_CHARS:
                raise bad(f"prompt must be a text of 1..{MAX_PROMPT_CHARS} characters")
            allowed = self.rt.allowed_models()
            model = body.get("model")
            if not allowed:
                raise bad("model: this season allows no model agents (the operator lists them "
                          "in [season] models, or serves one with cogleague serve --model) "
                          f"(got {model!r})")
            if model not in allowed:
                raise bad(f"model must be one of {', '.join(allowed)} (got {model!r})")
            cap = self.rt.season.token_budget
            budget = body.get("token_budget", cap)
            if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= cap:
                raise bad(f"token_budget must be an integer in 1..{cap} (got {budget!r})")
            return {"prompt": prompt, "model": model, "token_budget": budget}
        return {"policy_file": self._store_policy(body.get("policy_file"), games, name, version)}

    def _baseline_fits(self, baseline: Any, games: list[str]) -> None:
        for g in games:
            info = self.rt.catalog.get(g)
            if baseline not in info.baselines:
                raise bad(f"baseline must be one of {', '.join(info.baselines)} for {g} "
                          f"(got {baseline!r})")

    def _store_policy(self, data: Any, games: list[str], name: str, version: int) -> str:
        folder = self.rt.settings.policy_dir
        if folder is None:
            raise ApiError(409, "wrong_state", "policy_file: this server hosts no policy files "
                                               "(cogleague serve --policy-dir)")
        if not isinstance(data, str) or not data:
            raise bad("policy_file must be the .npz file as base64 text")
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise bad("policy_file must be base64 text (RFC 4648)") from None
        if len(raw) > MAX_POLICY_BYTES:
            raise bad(f"policy_file must be at most {MAX_POLICY_BYTES} bytes (got {len(raw)})")
        # a file of its own: an upload racing for the same name and version (refused at the
        # write) must not replace the winner's file
        target = Path(folder).resolve() / "agents" / f"{name}-v{version}-{token_hex(6)}.npz"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(raw)
        try:
            for g in games:
                self.rt.check_seat(g, f"policy:{target}")
        except ConfigError as exc:
            target.unlink(missing_ok=True)
            raise bad(f"policy_file: {_unplaced(exc, target)}") from None
        return str(target)

    def _common(self, body: Mapping[str, Any]) -> tuple[int, str]:
        cap = body.get("cap", 1)
        if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= MAX_CAP:
            raise bad(f"cap must be an integer in 1..{MAX_CAP} (got {cap!r})")
        text = body.get("description", "")
        if not isinstance(text, str) or len(text) > MAX_DESCRIPTION:
            raise bad(f"description must be a text of at most {MAX_DESCRIPTION} characters")
        return cap, text

    def _fits(self, row: Mapping[str, Any], games: list[str]) -> None:
        """The check registration makes of how the agent plays, against games it now names:
        a baseline must be one of each game's, a policy file must fit each game's spaces."""
        if row["kind"] == "baseline":
            self._baseline_fits(row["baseline"], games)
        elif row["kind"] == "policy":
            for i, g in enumerate(games):
                try:
                    self.rt.check_seat(g, f"policy:{row['policy_file']}")
                except ConfigError as exc:
                    raise bad(f"games[{i}]: the agent's policy file does not play {g}: "
                              f"{_unplaced(exc, row['policy_file'])}") from None

    # -- writes -------------------------------------------------------------------------------
    async def register(self, who: Account, body: Mapping[str, Any]) -> dict[str, Any]:
        name = body.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise bad(f"name must be 1..64 of A-Z a-z 0-9 _ . - (got {name!r})")
        kind = body.get("kind", "remote")
        if kind not in KINDS:
            raise bad(f"kind must be one of {', '.join(KINDS)} (got {kind!r})")
        games = self._games(body.get("games"))
        cap, text = self._common(body)
        await self.rt.check_open()
        held = await self.rt.store.tx(_latest, name)
        if held is not None:
            raise _taken(name, held, who)
        fields = self._plays(kind, games, body, who, name, 1)
        row = {"name": name, "version": 1, "current": True, "account_id": who.id,
               "kind": kind, "games": json.dumps(games), "cap": cap, "description": text,
               "state": ACTIVE, "created_at": now(), "tokens_used": 0, **fields}

        def write(conn: Connection) -> dict[str, Any]:
            held = _latest(conn, name)
            if held is not None:
                raise _taken(name, held, who)
            key = conn.execute(insert(agents).values(**row)).inserted_primary_key
            assert key is not None
            self.rt.open_in(conn)  # last: agent rows, then the season's (a finish's order)
            return {**row, "id": key[0], "reason": None, "tokens_day": None}

        return describe(await _stored(self.rt, write, fields, name), who.name, False)

    async def new_version(self, who: Account, name: str, body: Mapping[str, Any]
                          ) -> dict[str, Any]:
        """A new prompt or policy file: a new version, rated from scratch."""
        old = await self._mine(who, name)
        if old["kind"] not in ("model", "policy"):
            raise ApiError(409, "wrong_state", (
                f"agent {name} is a {old['kind']} agent, which has no versions (only model and "
                "policy agents do)" + (": its program runs on your side, so run the new code "
                                       "under it (the same rating), or register another "
                                       "agent for a rating of its own (cogleague agent "
                                       "register NAME)" if old["kind"] == "remote" else "")))
        if old["state"] == RETIRED:
            raise ApiError(409, "wrong_state", f"agent {name} is retired")
        await self.rt.check_open()  # the final line-ups froze this version at the close
        games = json.loads(old["games"])
        version = old["version"] + 1
        if old["kind"] == "model":  # a new prompt keeps the model and budget unless given
            body = {**{k: old[k] for k in ("model", "token_budget") if old[k] is not None},
                    **body}
        fields = self._plays(old["kind"], games, body, who, name, version)
        row = {k: old[k] for k in ("name", "account_id", "kind", "games", "cap",
                                   "description", "state", "reason")}
        row.update(version=version, current=True, created_at=now(), **fields)

        def write(conn: Connection) -> dict[str, Any]:
            latest = _latest(conn, name, lock=True)  # a finish may be adding tokens to it
            if latest is None or latest["version"] != old["version"]:  # built on a stale one
                raise _changed(name)
            # the day's tokens are the agent's, whichever version spent them
            spent = latest["tokens_used"] if latest["tokens_day"] == token_day() else 0
            row.update(tokens_used=spent, tokens_day=latest["tokens_day"] if spent else None)
            conn.execute(update(agents).where(agents.c.name == name).values(current=False))
            key = conn.execute(insert(agents).values(**row)).inserted_primary_key
            assert key is not None
            self.rt.open_in(conn)  # last: agent rows, then the season's (a finish's order)
            return {**row, "id": key[0]}

        return describe(await _stored(self.rt, write, fields, name), old["owner"])

    async def change(self, who: Account, name: str, body: Mapping[str, Any]
                     ) -> dict[str, Any]:
        """New `cap`, `games` or `description` for the current version (no new version: it
        plays as before). The matchmaker reads them at its next tick, so they count from the
        next table formed; tables already running keep their seats. A change of games waits
        for open registration, as a new version does: the final line-ups are frozen."""
        given = [k for k in CHANGE_FIELDS if k in body]
        if not given:
            raise bad(f"give at least one of {', '.join(CHANGE_FIELDS)} (got none)")
        new: dict[str, Any] = {}
        if "games" in body:
            new["games"] = self._games(body["games"])
        if "cap" in body or "description" in body:
            cap, text = self._common(body)
            if "cap" in body:
                new["cap"] = cap
            if "description" in body:
                new["description"] = text
        old = await self._mine(who, name)
        if old["state"] == RETIRED:
            raise ApiError(409, "wrong_state", f"agent {name} is retired")
        if "games" in new:
            await self.rt.check_open()  # the final line-ups froze the games at the close
            self._fits(old, new["games"])
            new["games"] = json.dumps(new["games"])

        def write(conn: Connection) -> dict[str, Any]:
            latest = _latest(conn, name, lock=True)
            if latest is None or latest["id"] != old["id"]:  # a new version meanwhile
                raise _changed(name)
            if latest["state"] == RETIRED:
                raise ApiError(409, "wrong_state", f"agent {name} is retired")
            conn.execute(update(agents).where(agents.c.id == old["id"]).values(**new))
            if "games" in new:
                self.rt.open_in(conn)  # last: agent rows, then the season's (a finish's order)
            return {**latest, **new}

        return describe(await self.rt.store.tx(write), old["owner"])

    async def set_state(self, who: Account, name: str, action: str) -> dict[str, Any]:
        row = await self._mine(who, name)
        if row["state"] == RETIRED:
            raise ApiError(409, "wrong_state", f"agent {name} is retired")
        state = {"pause": PAUSED, "resume": ACTIVE, "retire": RETIRED}[action]
        if state == ACTIVE and row["kind"] == "model" and row["tokens_day"] == token_day() \
                and row["token_budget"] is not None and row["tokens_used"] >= row["token_budget"]:
            raise ApiError(409, "wrong_state", f"agent {name} is over its token budget: "
                                               f"{row['tokens_used']} of {row['token_budget']} "
                                               f"tokens used on {row['tokens_day']} (UTC)")
        if row["state"] == PAUSED and row["reason"] == BY_OPERATOR and not who.is_operator:
            if state == PAUSED:  # already paused: not re-marked as the owner's own pause
                return describe(row, row["owner"])
            if state == ACTIVE:  # moderation the owner cannot undo
                raise ApiError(403, "forbidden", f"agent {name} was paused by the operator; "
                                                 "only the operator resumes it")
        by = "its owner" if row["account_id"] == who.id else "the operator"
        reason = f"paused by {by}" if state == PAUSED else None

        def write(conn: Connection) -> None:
            conn.execute(update(agents).where(agents.c.name == name)
                         .values(state=state, reason=reason))
            if state == RETIRED and self._finalist(conn, name):  # agents, then the season
                raise ApiError(409, "wrong_state", f"agent {name} plays in the final "
                                                   "evaluation frozen at the close; retire it "
                                                   "once the season has ended (pause stops it "
                                                   "meanwhile)")
        await self.rt.store.tx(write)
        return describe({**row, "state": state, "reason": reason}, row["owner"])

    def _finalist(self, conn: Connection, name: str) -> bool:
        """A version of `name` sits in a final line-up still to play (the matchmaker waits
        for its agents: a retired one would stall the season for ever)."""
        mm = self.rt.matchmaker
        if mm is None or conn.execute(select(seasons.c.phase).where(
                seasons.c.id == self.rt.id).with_for_update()).scalar_one_or_none() != FINAL:
            return False
        plan, done = mm.final_plan(conn)  # the plan the close froze, and how much is played
        ids = set(conn.execute(select(agents.c.id).where(agents.c.name == name)).scalars())
        return any(ids & set(entry["agents"]) for entry in plan[done:])

    async def _mine(self, who: Account, name: str) -> dict[str, Any]:
        # a name from the path: no agent's holds a NUL (PostgreSQL cannot even look it up)
        row = None if text_fault(name) is not None else await self.rt.store.tx(_owned, name)
        if row is None:
            raise ApiError(404, "not_found", f"agent {name!r} does not exist")
        if row["account_id"] != who.id and not who.is_operator:
            raise ApiError(403, "forbidden", f"agent {name!r} belongs to another account")
        return row

    # -- reads -------------------------------------------------------------------------------
    async def all(self, account_id: int | None = None, reveal: bool = False
                  ) -> list[dict[str, Any]]:
        """Every agent version (`account_id`: that account's); the public list (no account,
        not `reveal`: the operator's) leaves out the season's held-out agents until it has
        ended, as the board does."""
        def read(conn: Connection) -> list[dict[str, Any]]:
            hidden = self.rt.hidden_now(conn) if account_id is None and not reveal else set()
            q = select(agents, accounts.c.name.label("owner")).join(
                accounts, accounts.c.id == agents.c.account_id).order_by(agents.c.name,
                                                                          agents.c.version)
            if account_id is not None:
                q = q.where(agents.c.account_id == account_id)
            online = set(conn.execute(select(agent_presence.c.agent_id).where(
                agent_presence.c.until >= now())).scalars())
            return [describe(dict(r), r["owner"], r["id"] in online)
                    for r in conn.execute(q).mappings() if r["name"] not in hidden]
        return await self.rt.store.tx(read)

    async def get(self, name: str, reveal: bool = False) -> list[dict[str, Any]]:
        """Every version of one agent, newest first."""
        rows = [a for a in await self.all(reveal=reveal) if a["name"] == name]
        if not rows:
            raise ApiError(404, "not_found", f"agent {name!r} does not exist")
        return sorted(rows, key=lambda a: -a["version"])


async def _stored(rt: LeagueRuntime, write: Callable[[Connection], dict[str, Any]],
                  fields: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Write the agent's row; refused, the policy file uploaded for it is removed."""
    try:
        return await rt.store.tx(write)
    except BaseException as exc:
        if fields.get("policy_file"):
            Path(fields["policy_file"]).unlink(missing_ok=True)
        if isinstance(exc, IntegrityError):  # another process wrote this name and version
            raise _changed(name) from None
        raise


def _unplaced(exc: ConfigError, path: str | Path) -> str:
    """A policy file's refusal without where the server keeps it: the path on the server's
    disk means nothing to the uploader and is none of its business."""
    return str(exc).replace(f"seats: policy file {path}: ", "").replace(str(path),
                                                                        "the policy file")


def _changed(name: str) -> ApiError:
    return ApiError(409, "wrong_state", f"agent {name} changed at the same time (another "
                                        "registration or version); read it and try again")


def _taken(name: str, held: Mapping[str, Any], who: Account) -> ApiError:
    """The 409 for a registered name: the owner running the join steps again is told the
    agent is theirs and what to do with it, anyone else only that the name is taken."""
    if held["account_id"] == who.id:
        return ApiError(409, "wrong_state", (
            f"name {name!r} is already your agent (registered once; keep it online with "
            f"cogleague agent run BOT --agent {name}, change it with cogleague agent set "
            f"{name})"))
    return ApiError(409, "wrong_state", f"name {name!r} is taken in this league")


def _latest(conn: Connection, name: str, lock: bool = False) -> dict[str, Any] | None:
    q = select(agents).where(agents.c.name == name).order_by(agents.c.version.desc()).limit(1)
    row = conn.execute(q.with_for_update() if lock else q).mappings().first()
    return dict(row) if row is not None else None


def _owned(conn: Connection, name: str) -> dict[str, Any] | None:
    """The latest version and, as `owner`, its account's name: an answer to the operator's
    change names the agent's owner, not the operator."""
    row = _latest(conn, name)
    if row is not None:
        row["owner"] = conn.execute(select(accounts.c.name).where(
            accounts.c.id == row["account_id"])).scalar_one()
    return row


def count_agents(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(agents)).scalar_one())
