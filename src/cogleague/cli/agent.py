"""`cogleague agent register|set|list|pause|resume|retire|version|run`: join the league.

Each command is one call of the server's ``/agents`` API (`server/agent_api.py`); `run` keeps
a remote agent online on ``/ws/agent`` and plays every table it is assigned with the same SDK
`Bot` class `cogleague bot run` plays one table with. The server and key may also come from
``COGLEAGUE_SERVER`` and ``COGLEAGUE_KEY``.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import signal
from pathlib import Path
from typing import Annotated, Any

import typer

from cogleague.cli import COMMANDS, app
from cogleague.cli.common import console, fail, guarded, int_in
from cogleague.server.agent_limits import MAX_CAP

agent_app = typer.Typer(no_args_is_help=True, help=COMMANDS["agent"][1])
app.add_typer(agent_app, name="agent")

Server = Annotated[str, typer.Option(envvar="COGLEAGUE_SERVER",
                                     help="server URL, e.g. http://127.0.0.1:8000")]
Key = Annotated[str, typer.Option(envvar="COGLEAGUE_KEY", help="your account's API key")]


# The API's field names → the options that set them (the server's refusals name the field).
OPTION_FOR = {"name": "NAME", "kind": "--kind", "cap": "--cap", "games": "--games",
              "description": "--description", "prompt": "--prompt", "model": "--model",
              "token_budget": "--token-budget", "policy_file": "--policy",
              "baseline": "--baseline"}


def _call(server: str, key: str | None, method: str, path: str,
          body: dict[str, Any] | None = None) -> Any:
    from cogleague.cli.remote import call

    return call(server, key, lambda lobby: lobby.request(method, path, body), OPTION_FOR)


def _line(a: dict[str, Any]) -> str:
    extra = f" — {a['reason']}" if a.get("reason") else ""
    online = " online" if a.get("online") else ""
    mark = "" if a.get("current", True) else " (old version)"
    return (f"{a['name']} v{a['version']}{mark}  {a['kind']}  {', '.join(a['games'])}  "
            f"cap {a['cap']}  {a['state']}{online}  owner {a['owner']}{extra}")


@agent_app.command("register")
def register(
    name: Annotated[str, typer.Argument(help="the agent's public name (unique in the league)")],
    server: Server, key: Key,
    games: Annotated[str, typer.Option(help="comma-separated games it plays")],
    kind: Annotated[str, typer.Option(help="remote | model | policy | baseline")] = "remote",
    cap: Annotated[int, typer.Option(help=f"most tables it plays at once (1..{MAX_CAP})",
                                     parser=int_in("--cap", 1, MAX_CAP))] = 1,
    description: Annotated[str, typer.Option(help="free text shown on its page")] = "",
    prompt: Annotated[Path | None, typer.Option(help="kind model: the prompt file")] = None,
    model: Annotated[str | None, typer.Option(help="kind model: one of the server's "
                                                   "allowed models")] = None,
    token_budget: Annotated[int | None, typer.Option(help="kind model: tokens per day",
                                                     parser=int_in("--token-budget", 1))
                            ] = None,
    policy: Annotated[Path | None, typer.Option(help="kind policy: a .npz policy file")
                      ] = None,
    baseline: Annotated[str | None, typer.Option(help="kind baseline (operator): the "
                                                      "baseline's name")] = None,
) -> None:
    """Register NAME once; the matchmaker seats it from then on."""
    body: dict[str, Any] = {"name": name, "kind": kind, "cap": cap, "description": description,
                            "games": [g.strip() for g in games.split(",") if g.strip()]}
    body.update(_plays(prompt, model, token_budget, policy))
    if baseline is not None:
        body["baseline"] = baseline
    console.print(_line(_call(server, key, "POST", "/agents", body)), highlight=False)


def _plays(prompt: Path | None, model: str | None, token_budget: int | None,
           policy: Path | None) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if prompt is not None:
        try:
            body["prompt"] = prompt.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"--prompt {prompt}: cannot read it ({getattr(exc, 'strerror', None) or exc})")
    if model is not None:
        body["model"] = model
    if token_budget is not None:
        body["token_budget"] = token_budget
    if policy is not None:
        try:
            body["policy_file"] = base64.b64encode(policy.read_bytes()).decode("ascii")
        except OSError as exc:
            fail(f"--policy {policy}: cannot read it ({exc.strerror or exc})")
    return body


@agent_app.command("version")
def version(
    name: Annotated[str, typer.Argument(help="the agent")], server: Server, key: Key,
    prompt: Annotated[Path | None, typer.Option(help="kind model: the new prompt file")] = None,
    model: Annotated[str | None, typer.Option(help="kind model: the model")] = None,
    policy: Annotated[Path | None, typer.Option(help="kind policy: the new .npz file")] = None,
) -> None:
    """Upload a new prompt or policy: a new version, rated from scratch."""
    body = _plays(prompt, model, None, policy)
    console.print(_line(_call(server, key, "POST", f"/agents/{name}/versions", body)),
                  highlight=False)


@agent_app.command("set")
def change(
    name: Annotated[str, typer.Argument(help="the agent")], server: Server, key: Key,
    cap: Annotated[int | None, typer.Option(help=f"most tables it plays at once (1..{MAX_CAP})",
                                            parser=int_in("--cap", 1, MAX_CAP))] = None,
    games: Annotated[str | None, typer.Option(help="comma-separated games it plays (all of "
                                                   "them: the list replaces the old one)")
                     ] = None,
    description: Annotated[str | None, typer.Option(help="free text shown on its page")
                           ] = None,
) -> None:
    """Change NAME's cap, games or description; counts from its next table (running tables
    go on)."""
    body: dict[str, Any] = {}
    if cap is not None:
        body["cap"] = cap
    if games is not None:
        body["games"] = [g.strip() for g in games.split(",") if g.strip()]
    if description is not None:
        body["description"] = description
    if not body:
        fail("give at least one of --cap, --games, --description")
    console.print(_line(_call(server, key, "PATCH", f"/agents/{name}", body)), highlight=False)


@agent_app.command("list")
def list_agents(
    server: Server,
    key: Annotated[str | None, typer.Option(envvar="COGLEAGUE_KEY",
                                            help="with --mine: your API key")] = None,
    mine: Annotated[bool, typer.Option(help="only this key's agents")] = False,
) -> None:
    """Every agent version in the league (or only yours)."""
    if mine and not key:
        fail("--mine needs --key")
    doc = _call(server, key, "GET", "/agents" + ("?mine=true" if mine else ""))
    for a in doc["agents"]:
        console.print(_line(a), highlight=False)
    if not doc["agents"]:
        console.print("no agents yet", highlight=False)


def _state_command(action: str) -> None:
    def command(name: Annotated[str, typer.Argument(help="the agent")], server: Server,
                key: Key) -> None:
        console.print(_line(_call(server, key, "POST", f"/agents/{name}/{action}")),
                      highlight=False)
    command.__doc__ = {"pause": "Stop matching NAME (its running tables finish).",
                       "resume": "Match NAME again.",
                       "retire": "Retire NAME for good (it stays on the board, marked)."
                       }[action]
    agent_app.command(action)(command)


for _action in ("pause", "resume", "retire"):
    _state_command(_action)


@agent_app.command("run")
def run(
    bot: Annotated[str, typer.Argument(help="FILE.py:CLASS or MODULE:CLASS of a cogleague Bot")],
    server: Server, key: Key,
    agent: Annotated[str, typer.Option(help="the registered agent's name")],
    max_tables: Annotated[int | None, typer.Option(help="stop after this many tables, ended "
                                                        "or failed (default: run until "
                                                        "stopped)",
                                                   parser=int_in("--max-tables", 1))
                          ] = None,
    also: Annotated[list[str] | None, typer.Option(
        "--also", help="another process of the same deployment, to reconnect to when "
                       "--server goes away (repeat for more)")] = None,
    give_up_after: Annotated[float, typer.Option(
        "--give-up-after", min=0.0, help="seconds without reaching any server before it "
                                         "gives up (exit 2)")] = 3600.0,
) -> None:
    """Keep AGENT online: play every table the league assigns it, several at once."""
    from cogleague.client.agent import AgentRefused, AgentRunner, check_url
    from cogleague.seats.botref import load_bot_class

    for option, url in [("--server", server), *(("--also", u) for u in also or [])]:
        try:
            check_url(url)
        except ValueError as exc:
            fail(f"{option} {exc}")
    cls: Any = guarded(lambda: load_bot_class(bot, field="BOT"))
    try:  # made once now: one that cannot be made would fail every table it is assigned
        cls()
    except Exception as exc:
        fail(f"BOT {bot}: cannot make a {cls.__name__} ({type(exc).__name__}: {exc})")
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    logging.getLogger("cogleague.agent").setLevel(logging.INFO)  # "online at …"
    console.print(f"agent {agent}: connecting to {server} (Ctrl-C to stop)", highlight=False)
    runner = AgentRunner(cls, server, key, agent, max_tables=max_tables,
                         servers=[server, *(also or [])], reconnect_for_s=give_up_after)
    stopped_by = ["Ctrl-C"]

    def terminate(signum: int, frame: Any) -> None:  # a service manager's stop, `kill`
        stopped_by[0] = "SIGTERM"
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)  # goes offline as Ctrl-C does, saying so
    try:
        done = asyncio.run(runner.run())
    except AgentRefused as exc:
        if runner.unfit is None:  # refused at the upgrade: nothing said yet
            fail(str(exc))
        done = runner.run_state  # the SDK logged why as it went offline: not twice
        console.print(f"agent {agent}: offline: {_tally(done)}", highlight=False)
        raise typer.Exit(2) from None
    except (ConnectionError, OSError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:  # what it did, so a Ctrl-C is not a silent exit
        done = runner.run_state
        left = len(set(done.assigned)) - len(done.finished) - len(done.failures)
        console.print(f"agent {agent}: offline ({stopped_by[0]}): {_tally(done)}"
                      + (f", {left} left mid-play (the server times out its seats there)"
                         if left > 0 else ""), highlight=False)
        return
    console.print(f"agent {agent}: {_tally(done)}", highlight=False)


def _tally(done: Any) -> str:
    """What a run of `agent run` did (an `AgentRun`), as its last line says it."""
    return f"{len(done.finished)} table(s) played, {len(done.failures)} failed"
