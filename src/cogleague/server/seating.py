"""Seating: what a table or a join request may ask for, checked against the table's game
before anything is written — a name, a baseline the game has, a model prompt, a policy file the
operator hosts. A refusal is an `ApiError` naming the field and what it accepts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogleague.core.config import check_str
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.seats.factory import make_seat
from cogleague.seats.llm.prompting import MAX_PROMPT_CHARS
from cogleague.server.catalog import Catalog
from cogleague.server.errors import ApiError
from cogleague.server.lineup import SeatPlan, build_game, plans
from cogleague.server.seat_kinds import llm_note, llm_policy_name
from cogleague.server.settings import Settings
from cogleague.server.store import loads

MAX_NAME_CHARS = 64


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    role: str

    @property
    def is_operator(self) -> bool:
        return self.role == "operator"


def config_error(exc: ConfigError) -> ApiError:
    return ApiError(400, "bad_request", str(exc))


def probe(info: GameDescriptor, variant: str | None, config: dict[str, Any], seed: int,
          seats: Sequence[SeatPlan] | None = None) -> Game:
    """The game a table of this config would play (refused as a 400 naming the field)."""
    try:
        return build_game(info, variant, config, seed, seats)
    except ConfigError as exc:
        raise config_error(exc) from None


def check_baseline(info: GameDescriptor, game: Game, name: str, field: str) -> None:
    try:
        game.make_baseline(name, 0)
    except ConfigError:
        raise ApiError(400, "bad_request", f"{field} must be one of "
                                           f"{', '.join(info.baselines)} (got {name!r})"
                       ) from None


def game_of(catalog: Catalog, row: dict[str, Any],
            seat_list: list[dict[str, Any]] | None = None) -> Game:
    """The table's game: a probe while open, the real line-up once seats are known."""
    info = catalog.get(row["game"])
    return probe(info, row["variant"], loads(row["config"]), row["seed"],
                 plans(seat_list) if seat_list is not None else None)


def seat_fields(catalog: Catalog, settings: Settings, row: dict[str, Any], account: Account,
                kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The seat row's fields a join of `kind` asks for, checked."""
    try:
        name = check_str("name", body.get("name", account.name), MAX_NAME_CHARS, 1)
        if kind == "scripted":
            baseline = check_str("baseline", body.get("baseline"), MAX_NAME_CHARS, 1)
            check_baseline(catalog.get(row["game"]), game_of(catalog, row), baseline,
                           "baseline")
            return {"policy_name": body.get("name", baseline), "baseline": baseline}
        if kind == "llm":
            prompt = check_str("prompt", body.get("prompt"), MAX_PROMPT_CHARS, 1)
            model = body.get("model")
            if model is not None:
                check_str("model", model, 200, 1)
            info = catalog.get(row["game"])
            return {"policy_name": llm_policy_name(f"llm:{name}", info), "prompt": prompt,
                    "model": model, "note": llm_note(settings, info)}
        if kind == "policy":
            return policy_fields(catalog, settings, row, account, body)
        return {"policy_name": name}
    except ConfigError as exc:
        raise config_error(exc) from None


def policy_fields(catalog: Catalog, settings: Settings, row: dict[str, Any], account: Account,
                  body: Mapping[str, Any]) -> dict[str, Any]:
    """A trained policy file the operator hosts (`Settings.policy_dir`), checked against the
    table's game now: a file that does not fit is refused naming the mismatch."""
    if not account.is_operator:
        raise ApiError(403, "forbidden", "policy seats are hosted by the operator")
    folder = settings.policy_dir
    if folder is None:
        raise ApiError(409, "wrong_state", "policy: this server hosts no policy files "
                                           "(start it with cogleague serve --policy-dir)")
    name = check_str("policy", body.get("policy"), MAX_NAME_CHARS, 1)
    base = Path(folder).resolve()
    path = (base / name).resolve()
    if not path.is_relative_to(base) or not path.is_file():
        raise ApiError(404, "not_found", f"policy: {name!r} is not a file in the server's "
                                         f"policy folder ({_policy_files(base)})")
    ref = f"policy:{path}"
    make_seat(game_of(catalog, row), 0, ref)  # refuses a file that does not fit the game
    return {"policy_name": check_str("name", body.get("name", f"policy:{name}"),
                                     MAX_NAME_CHARS, 1), "baseline": ref}


def _policy_files(folder: Path, shown: int = 20) -> str:
    """The policy files an operator may seat (the allowed values of `policy`), for a refusal."""
    names = sorted(p.name for p in folder.glob("*.npz") if p.is_file()) \
        if folder.is_dir() else []
    if not names:
        return "it holds no .npz policy file" if folder.is_dir() else f"{folder} does not exist"
    more = f", … {len(names) - shown} more" if len(names) > shown else ""
    return "its policy files: " + ", ".join(names[:shown]) + more
