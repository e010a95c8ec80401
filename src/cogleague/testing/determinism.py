"""Determinism: every shared episode (one per seed) gives byte-identical replays in this
process and in child processes with other `PYTHONHASHSEED`s (set iteration order and `hash()`
differ there).

The child (``python -m cogleague.testing.determinism REF EPISODES``) loads the descriptor by
reference — a registered game's name, or ``module:NAME`` — plays each episode of the JSON list
``[[variant, seed, line-up], …]`` and writes their replays to stdout as one JSON list of
strings.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from importlib import metadata
from typing import Any

from cogleague.core import jsonio
from cogleague.core.descriptor import GameDescriptor
from cogleague.testing.episodes import Episode, play
from cogleague.testing.subject import ConformanceError, Subject

HASH_SEEDS = ("0", "2718281")
CHILD_TIMEOUT_S = 300


def descriptor_ref(desc: GameDescriptor) -> str:
    """How a child process finds `desc`: its name when it is an installed game (an entry
    point: a game registered by hand is unknown to the child's registry), else
    ``module:NAME`` of a loaded module that holds it."""
    from cogleague.games import registry

    try:
        known = registry.get(desc.name)
    except Exception:
        known = None
    installed = any(True for _ in metadata.entry_points(group=registry.GROUP, name=desc.name))
    if installed and known is not None and known.make is desc.make and \
            known.replay_format == desc.replay_format:
        return desc.name
    for name, module in list(sys.modules.items()):
        if name == "__main__" or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if value is desc:
                return f"{name}:{attr}"
    raise ConformanceError(f"{desc.name}: no loaded module holds this descriptor; pass "
                           "ref='package.module:NAME' so a child process can load it")


def load(ref: str) -> GameDescriptor:
    if ":" not in ref:
        from cogleague.games import registry

        return registry.get(ref)
    module, _, attr = ref.partition(":")
    value = getattr(importlib.import_module(module), attr)
    if not isinstance(value, GameDescriptor):
        raise TypeError(f"{ref} is not a GameDescriptor")
    return value


def replay_bytes(desc: GameDescriptor, ep: Episode) -> str:
    game, outcome = play(desc, ep)
    return jsonio.dumps(desc.replay_document(game, outcome.log),
                        sort_keys=desc.replay_sort_keys)


def check_determinism(subject: Subject) -> str:
    desc = subject.desc
    ref = subject.ref or descriptor_ref(desc)
    episodes = [p.episode for p in subject.played]
    here = []
    for ep in episodes:
        first, again = replay_bytes(desc, ep), replay_bytes(desc, ep)
        if first != again:
            raise ConformanceError(f"{ep.label()}: two runs in one process differ at "
                                   f"{text_difference(first, again)}")
        here.append(first)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    listed = json.dumps([[ep.variant, ep.seed, list(ep.lineup)] for ep in episodes])
    for hash_seed in HASH_SEEDS:
        env["PYTHONHASHSEED"] = hash_seed
        child = subprocess.run(
            [sys.executable, "-m", "cogleague.testing.determinism", ref, listed],
            capture_output=True, env=env, timeout=CHILD_TIMEOUT_S, check=False)
        if child.returncode != 0:
            raise ConformanceError(f"the child process (PYTHONHASHSEED={hash_seed}) failed: "
                                   f"{child.stderr.decode('utf-8', 'replace')[-2000:]}")
        there = json.loads(child.stdout.decode("utf-8"))
        for ep, mine, theirs in zip(episodes, here, there, strict=True):
            if theirs != mine:
                raise ConformanceError(f"{ep.label()}: PYTHONHASHSEED={hash_seed} gives "
                                       f"another replay, first difference at "
                                       f"{text_difference(mine, theirs)}")
    return (f"{len(HASH_SEEDS) + 2} runs each of {len(episodes)} episodes (seeds "
            f"{', '.join(str(ep.seed) for ep in episodes)}) byte-identical")


def text_difference(a: str, b: str) -> str:
    """Where two replays (JSON text) first differ, as a path; "(not JSON)" when one is not."""
    try:
        return jsonio.first_difference(json.loads(a), json.loads(b))
    except ValueError:
        return "(not JSON)"


def _main(argv: list[str]) -> None:
    ref, listed = argv
    desc = load(ref)
    replays = [replay_bytes(desc, Episode(variant, int(seed), tuple(lineup)))
               for variant, seed, lineup in json.loads(listed)]
    out: Any = sys.stdout
    out.buffer.write(json.dumps(replays).encode("utf-8"))


if __name__ == "__main__":
    _main(sys.argv[1:])
