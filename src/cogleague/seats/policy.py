"""``policy:PATH`` seats: a trained policy saved as a numpy ``.npz`` file (`docs/rl.md`).

Why this format: every RL library can write it (PyTorch: ``{k: v.numpy() for k, v in
model.state_dict().items()}``; JAX/numpy arrays as they are), and playing it needs numpy only
— no framework at play time, and ``np.load(allow_pickle=False)`` runs no code from the file.

A file holds the weights of a multilayer perceptron plus one JSON header (the array
``header``, UTF-8 bytes)::

    {"format": "cogleague.policy.v1", "game": GAME,
     "signature": {"encoding": "GAME.rl.v1", "observation_size": 24, "actions": 2},
     "layers": [{"weight": "0.weight", "bias": "0.bias", "activation": "tanh"},
                {"weight": "2.weight", "bias": "2.bias", "activation": "linear"}],
     "meta": {...anything...}}

Layer weights are PyTorch-shaped ``[out, in]`` (``y = W x + b``); the input is the game's
observation (`cogleague.envs.encoding.observe`), the last layer's output one logit per
action. The seat plays the legal action with the highest logit (deterministic, so replays
reproduce). A file whose game, encoding, sizes or layer shapes do not fit the table is refused
with a `ConfigError` naming the mismatch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cogleague.core.errors import ConfigError
from cogleague.core.game import Action, Game, Turn
from cogleague.envs.encoding import Encoding, encoding_of, observe

FORMAT = "cogleague.policy.v1"
ACTIVATIONS = ("tanh", "relu", "linear")
PREFIX = "policy:"

Array = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class PolicyFile:
    path: str
    header: dict[str, Any]
    layers: tuple[tuple[Array, Array, str], ...]

    def logits(self, x: np.ndarray[Any, Any]) -> Array:
        y: Array = x.astype(np.float64)
        for w, b, act in self.layers:
            y = w @ y + b
            if act == "tanh":
                y = np.tanh(y)
            elif act == "relu":
                y = np.maximum(y, 0.0)
        return y


def _refuse(path: str, why: str) -> ConfigError:
    return ConfigError("seats", f"seats: policy file {path}: {why}")


def load_policy(path: str | Path) -> PolicyFile:
    """Read and check a policy file's own consistency (not yet against a game)."""
    p = str(path)
    try:
        data = np.load(p, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise _refuse(p, f"cannot be read as a .npz file ({exc})") from exc
    with data:
        if "header" not in data.files:
            raise _refuse(p, "has no 'header' array (see docs/rl.md)")
        try:
            header = json.loads(bytes(data["header"]).decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise _refuse(p, f"header is not UTF-8 JSON ({exc})") from exc
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise _refuse(p, f"header format must be {FORMAT!r} (got "
                             f"{header.get('format') if isinstance(header, dict) else header!r})")
        specs = header.get("layers")
        if not isinstance(specs, list) or not specs:
            raise _refuse(p, "header layers must be a non-empty list")
        layers: list[tuple[Array, Array, str]] = []
        for i, spec in enumerate(specs):
            if not isinstance(spec, dict):
                raise _refuse(p, f"layers[{i}] must be an object with weight, bias, activation")
            act = spec.get("activation", "linear")
            if act not in ACTIVATIONS:
                raise _refuse(p, f"layers[{i}].activation must be one of "
                                 f"{', '.join(ACTIVATIONS)} (got {act!r})")
            names = (spec.get("weight"), spec.get("bias"))
            for key in names:
                if key not in data.files:
                    raise _refuse(p, f"layers[{i}] names array {key!r}, which the file lacks")
            w = np.asarray(data[names[0]], dtype=np.float64)
            b = np.asarray(data[names[1]], dtype=np.float64)
            if w.ndim != 2 or b.shape != (w.shape[0],):
                raise _refuse(p, f"layers[{i}]: weight must be [out, in] and bias [out] (got "
                                 f"{list(w.shape)} and {list(b.shape)})")
            if layers and layers[-1][0].shape[0] != w.shape[1]:
                raise _refuse(p, f"layers[{i}] takes {w.shape[1]} inputs but layers[{i - 1}] "
                                 f"gives {layers[-1][0].shape[0]}")
            layers.append((w, b, act))
    return PolicyFile(p, header, tuple(layers))


def check_fits(policy: PolicyFile, game: Game, enc: Encoding) -> None:
    """Refuse a policy that was not made for this game's spaces, naming the mismatch."""
    p, header = policy.path, policy.header
    if header.get("game") != game.name:
        raise _refuse(p, f"was trained for game {header.get('game')!r}, not {game.name!r}")
    want = enc.signature(game)
    have = header.get("signature")
    if not isinstance(have, Mapping):
        raise _refuse(p, "header signature must be an object (see docs/rl.md)")
    for key, value in want.items():
        if have.get(key) != value:
            raise _refuse(p, f"signature {key} is {have.get(key)!r} but this {game.name} "
                             f"table needs {value!r}")
    inputs = policy.layers[0][0].shape[1]
    outputs = policy.layers[-1][0].shape[0]
    # What the seat will really be fed and asked for: `acting` plus the encoding's fields, one
    # logit per action. A signature that says otherwise would make every turn fail (and fall
    # back) at play time; refuse it here, once, naming both sizes.
    observed, actions = enc.obs_size(game) + 1, enc.num_actions(game)
    if inputs != observed:
        raise _refuse(p, f"its first layer takes {inputs} inputs but the observation has "
                         f"{observed} (acting + {observed - 1} fields of {enc.name})")
    if outputs != actions:
        raise _refuse(p, f"its last layer gives {outputs} logits but the game has {actions} "
                         "actions")
    if want.get("observation_size") != observed or want.get("actions") != actions:
        raise _refuse(p, f"the game's signature says observation_size "
                         f"{want.get('observation_size')!r} and actions {want.get('actions')!r}, "
                         f"but its encoding gives {observed} (acting + {observed - 1} fields) "
                         f"and {actions}: the encoding's signature must count the acting field")


def save_policy(path: str | Path, game: str, signature: Mapping[str, Any],
                layers: Sequence[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], str]],
                meta: Mapping[str, Any] | None = None) -> Path:
    """Write weights ``[(W [out, in], b [out], activation), …]`` as a policy file."""
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    specs = []
    for i, (w, b, act) in enumerate(layers):
        arrays[f"{i}.weight"] = np.asarray(w, dtype=np.float32)
        arrays[f"{i}.bias"] = np.asarray(b, dtype=np.float32)
        specs.append({"weight": f"{i}.weight", "bias": f"{i}.bias", "activation": act})
    header = {"format": FORMAT, "game": game, "signature": dict(signature), "layers": specs,
              "meta": dict(meta or {})}
    arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]
    return out


class PolicySeat:
    """Plays a policy file: observe, mask, argmax, decode. Synchronous and in-process, so the
    runner asks it like a baseline (its decisions are logged with source ``scripted``)."""

    kind = "policy"

    def __init__(self, policy: PolicyFile, game: Game, enc: Encoding, name: str) -> None:
        check_fits(policy, game, enc)
        self.policy = policy
        self.game = game
        self.enc = enc
        self.name = name
        self._size = enc.obs_size(game)

    def act_index(self, turn: Turn) -> int:
        obs = observe(self.enc, self.game, turn, self._size)
        logits = self.policy.logits(obs)
        mask = self.enc.mask(self.game, turn)
        if mask is not None:
            logits = np.where(mask.astype(bool), logits, -np.inf)
        return int(np.argmax(logits))

    def decide_now(self, turn: Turn) -> Action:
        return self.enc.decode(self.game, turn, self.act_index(turn))

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return self.decide_now(turn)


_CACHE: dict[tuple[str, float, int], PolicyFile] = {}


def make_policy_seat(game: Game, seat: int, name: str) -> PolicySeat:
    """The seat for ``policy:PATH`` (files are read once per path and modification)."""
    from cogleague.games import registry

    path = name[len(PREFIX):]
    if not path:
        raise ConfigError("seats", "seats: policy: needs a file path (policy:PATH.npz)")
    try:
        stat = Path(path).stat()
    except OSError as exc:
        raise _refuse(path, f"cannot be opened ({exc.strerror})") from exc
    key = (str(Path(path).resolve()), stat.st_mtime, stat.st_size)
    policy = _CACHE.get(key)
    if policy is None:
        policy = _CACHE[key] = load_policy(path)
    return PolicySeat(policy, game, encoding_of(registry.get(game.name)), name)
