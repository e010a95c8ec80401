"""Determinism: the same episode gives byte-identical replays in this process and in child
processes with other `PYTHONHASHSEED`s (set iteration order and `hash()` differ there).

The child (``python -m cogleague.testing.determinism REF VARIANT SEED LINEUP``) loads the
descriptor by reference — a registered game's name, or ``module:NAME`` — plays the episode
and writes the replay bytes to stdout.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from typing import Any

from cogleague.core import jsonio
from cogleague.core.descriptor import GameDescriptor
from cogleague.testing.episodes import Episode, play
from cogleague.testing.subject import ConformanceError, Subject

HASH_SEEDS = ("0", "2718281")
CHILD_TIMEOUT_S = 300


def descriptor_ref(desc: GameDescriptor) -> str:
    """How a child process finds `desc`: its registered name, else ``module:NAME`` of a loaded
    module that holds it."""
    from cogleague.games import registry

    try:
        known = registry.get(desc.name)
    except Exception:
        known = None
    if known is not None and known.make is desc.make and \
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
    ep = subject.played[0].episode
    here = replay_bytes(desc, ep)
    again = replay_bytes(desc, ep)
    if here != again:
        raise ConformanceError(f"{ep.label()}: two runs in one process differ at "
                               f"{_difference(here, again)}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    for hash_seed in HASH_SEEDS:
        env["PYTHONHASHSEED"] = hash_seed
        child = subprocess.run(
            [sys.executable, "-m", "cogleague.testing.determinism", ref, json.dumps(ep.variant),
             str(ep.seed), json.dumps(list(ep.lineup))],
            capture_output=True, env=env, timeout=CHILD_TIMEOUT_S, check=False)
        if child.returncode != 0:
            raise ConformanceError(f"the child process (PYTHONHASHSEED={hash_seed}) failed: "
                                   f"{child.stderr.decode('utf-8', 'replace')[-2000:]}")
        there = child.stdout.decode("utf-8")
        if there != here:
            raise ConformanceError(f"{ep.label()}: PYTHONHASHSEED={hash_seed} gives another "
                                   f"replay, first difference at {_difference(here, there)}")
    return f"{len(HASH_SEEDS) + 2} runs of {ep.label()} byte-identical"


def _difference(a: str, b: str) -> str:
    try:
        return jsonio.first_difference(json.loads(a), json.loads(b))
    except ValueError:
        return "(not JSON)"


def _main(argv: list[str]) -> None:
    ref, variant, seed, lineup = argv
    desc = load(ref)
    ep = Episode(json.loads(variant), int(seed), tuple(json.loads(lineup)))
    out: Any = sys.stdout
    out.buffer.write(replay_bytes(desc, ep).encode("utf-8"))


if __name__ == "__main__":
    _main(sys.argv[1:])
