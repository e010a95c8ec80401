"""`cogleague profile POLICY --game GAME`: a policy's behaviour profile against the game's probe
battery — measured traits with 95% intervals (`cogleague.profiles`, docs/profiles.md).

POLICY is any seat string: a baseline, ``llm:PROMPT`` (with the model options, and
``--record`` / ``--replay`` as for ``play``), ``MODULE:CLASS`` or ``axelrod:NAME``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cogleague.cli import app
from cogleague.cli.common import (
    console,
    fail,
    guarded,
    int_in,
    model_options,
    replaying,
    split_seats,
    with_recording,
)
from cogleague.cli.model_opts import (
    BaseUrlOpt,
    MaxReplyTokensOpt,
    ModelOpt,
    ProviderOpt,
    TranscriptOpt,
)
from cogleague.core import jsonio
from cogleague.games import registry
from cogleague.profiles import probes_for, profile
from cogleague.profiles.render import cell
from cogleague.profiles.runner import EPISODES_MAX


@app.command("profile")
def profile_command(
    policy: Annotated[str, typer.Argument(help="seat string: baseline, llm:PROMPT, "
                                               "MODULE:CLASS or axelrod:NAME")],
    game: Annotated[str, typer.Option("--game", help="an installed game with a probe battery")],
    episodes: Annotated[int, typer.Option(
        "--episodes", help=f"battery episodes (1..{EPISODES_MAX})",
        parser=int_in("--episodes", 1, EPISODES_MAX))] = 10,
    seed: Annotated[int, typer.Option("--seed", help="first episode's seed",
                                      parser=int_in("--seed", 0))] = 0,
    opponents: Annotated[str | None, typer.Option(
        "--opponents", help="extra comma-separated opponents seated beside the probes "
                            "(e.g. axelrod:Random)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the profile as JSON")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="write the profile JSON here")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="print each trait's definition")
                       ] = False,
    model: ModelOpt = None, base_url: BaseUrlOpt = None, provider: ProviderOpt = None,
    transcript: TranscriptOpt = None, max_reply_tokens: MaxReplyTokensOpt = None,
    record: Annotated[Path | None, typer.Option("--record", help="record model calls here")
                      ] = None,
    replay: Annotated[Path | None, typer.Option("--replay", help="answer model calls from this "
                                                                  "recording")] = None,
    replay_or_live: Annotated[bool, typer.Option("--replay-or-live", help="with --replay: send "
                                                 "what is missing live")] = False,
) -> None:
    """Profile POLICY: how it plays (nice, retaliating, forgiving…), with intervals."""
    desc = guarded(lambda: registry.get(game), {"game": "--game"})
    if out is not None and out.is_dir():  # refused before the battery runs, not after
        fail(f"--out {out} is a folder: name the profile's JSON file")
    guarded(lambda: probes_for(desc), {"game": "--game"})
    options = with_recording(model_options(model, base_url, provider, transcript,
                                           max_reply_tokens=max_reply_tokens), record,
                             replay, replay_or_live)
    if policy == "llm" or policy.startswith("llm:"):  # as `play` does, before the battery
        from cogleague.seats.llm.preflight import check_provider

        guarded(lambda: check_provider(options), {"base_url": "--base-url", "model": "--model"})
    if transcript is not None:  # one file for the whole battery: started here, then added to
        from cogleague.seats.llm.transcript import TranscriptWriter

        guarded(lambda: TranscriptWriter(transcript), {"transcript": "--transcript"})
        options = dataclasses.replace(options, transcript_append=True)
    result = replaying(lambda: guarded(lambda: profile(
        desc, policy, episodes=episodes, seed=seed, model=options,
        opponents=split_seats(opponents, "--opponents") or []),
        {"episodes": "--episodes", "seed": "--seed", "opponents": "--opponents",
         "seats": "POLICY"}))
    doc = result.to_json()
    if out is not None:
        try:
            jsonio.write(out, doc)
        except OSError as exc:
            fail(f"--out {out}: cannot write the profile there ({exc.strerror or exc})")
    if as_json:
        typer.echo(jsonio.dumps(doc))
        return
    table = Table(title=f"{policy} on {desc.title}: {episodes} battery episodes from seed {seed}")
    for column in ("trait", "value [95% interval] verdict", "n"):
        table.add_column(column, justify="right" if column == "n" else "left")
    for t in doc["traits"]:
        table.add_row(t["label"], cell(t), str(t["n"]))
    console.print(table)
    if doc["fallbacks"]:
        causes = ", ".join(f"{cause} {n}" for cause, n in doc["fallbacks"].items())
        console.print(f"[yellow]{escape(policy)} fell back on {sum(doc['fallbacks'].values())} "
                      f"decisions ({causes}): the game's fallback played them, so these traits "
                      "measure the fallback as much as the policy[/]", soft_wrap=True)
    if explain:
        for trait in probes_for(desc).traits:
            console.print(f"[bold]{trait.label}[/]: {trait.definition}", highlight=False)
    if out is not None:
        console.print(f"wrote {out}", highlight=False)
