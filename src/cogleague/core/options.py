"""A game's user-settable options as a pydantic model, and its errors in the project's words.

A game declares its options once (`option_model`); hosts derive everything else from the
model: the CLI builds `--flag` options from its fields, the server publishes its JSON Schema
and validates `POST /tables` configs with it, the league validates its TOML tables with it.
Validation failures become `ConfigError` in the one message format of `core/config.py`
(``rounds must be an integer in 4..28 (got 3)``), never pydantic's own wording.

A field may name the command-line flag that sets it (``cli="rounds"`` → ``--rounds``) when the
config key reads badly on a command line (the dilemma's ``rounds_total``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from cogleague.core.config import plain_scalar
from cogleague.core.errors import ConfigError


@dataclass(frozen=True)
class Option:
    """One option: its Python type (int, float, bool or str), range or choices, and help."""

    type: type
    help: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] | None = None
    max_len: int | None = None
    cli: str | None = None


class GameOptions(BaseModel):
    """Base of every game's option model: strict types, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", strict=True)


def option_model(name: str, options: Mapping[str, Option]) -> type[GameOptions]:
    """Build a game's option model; every field is optional (None: the variant's default)."""
    fields: dict[str, Any] = {}
    for key, opt in options.items():
        extra: dict[str, Any] = {}
        if opt.cli:
            extra["cli"] = opt.cli
        if opt.choices:
            extra["enum"] = list(opt.choices)
        constraints: dict[str, Any] = {}
        if opt.lo is not None:
            constraints["ge"] = opt.lo
        if opt.hi is not None:
            constraints["le"] = opt.hi
        if opt.max_len is not None:
            constraints["max_length"] = opt.max_len
        annotation: Any = opt.type | None
        fields[key] = (annotation, Field(default=None, description=opt.help,
                                         json_schema_extra=extra or None, **constraints))
    return create_model(name, __base__=GameOptions, **fields)


def cli_name(model: type[BaseModel], field: str) -> str:
    """The command-line flag for a field (``--rounds`` for ``rounds_total`` when declared)."""
    info = model.model_fields[field]
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    return "--" + str(extra.get("cli") or field).replace("_", "-")


def describe_range(model: type[BaseModel], field: str) -> str:
    """``an integer in 4..28``, ``a number in 0..10``, ``true or false``, ``one of a, b``."""
    info = model.model_fields[field]
    lo = hi = None
    max_len = None
    for meta in info.metadata:
        lo = getattr(meta, "ge", lo)
        hi = getattr(meta, "le", hi)
        max_len = getattr(meta, "max_length", max_len)
    choices = field_choices(model, field)
    kind = base_type(info.annotation)
    if choices:
        return "one of " + ", ".join(str(c) for c in choices)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return "an object with " + ", ".join(sorted(kind.model_fields))
    if kind is list:
        return "a list"
    if kind is bool:
        return "true or false"
    if kind is int:
        return f"an integer in {_num(lo)}..{_num(hi)}"
    if kind is float:
        return f"a number in {_num(lo)}..{_num(hi)}"
    return "a string" if max_len is None else f"a string of 0..{max_len} code points"


def validate_options(model: type[BaseModel], values: Mapping[str, Any],
                     *, section: str = "game") -> dict[str, Any]:
    """The given (non-None) options, checked against the model; raises `ConfigError`.

    A field may also be given by its command-line name (``rounds`` for the dilemma's
    ``rounds_total``); the result uses the field names. Integers are accepted where a number
    is expected, never a float where an integer is; booleans never pass as numbers. A nested
    option model (the dilemma's ``payoffs``) is checked field by field: ``payoffs.reward must
    be an integer in 0..100 (got -1)``."""
    aliases = {cli_name(model, f)[2:].replace("-", "_"): f for f in model.model_fields}
    given: dict[str, Any] = {}
    named: dict[str, str] = {}
    for key, value in values.items():
        field = key if key in model.model_fields else aliases.get(key, key)
        if field not in model.model_fields:
            known = ", ".join(sorted(model.model_fields))
            raise ConfigError(key, f"{key} is not a {section} setting (known: {known})")
        if value is None:
            continue
        if field in named:
            raise ConfigError(field, f"{field} given twice (as {named[field]} and {key})")
        named[field] = key
        given[field] = value
    return _check(model, given, "", section)


def _check(model: type[BaseModel], given: Mapping[str, Any], prefix: str,
           section: str) -> dict[str, Any]:
    """`given` checked against `model` (nested models field by field, named ``prefix.field``);
    numpy scalars come back as Python's. An integer field takes an int only: 203.0 is refused
    like 203.5 (a float where a count belongs is the caller's bug, not a value to round)."""
    given = {key: plain_scalar(value) for key, value in given.items()}
    for key in given:
        if key not in model.model_fields:
            known = ", ".join(sorted(model.model_fields))
            raise ConfigError(prefix + key,
                              f"{prefix}{key} is not a {section} setting (known: {known})")
    coerced: dict[str, Any] = {}
    for key, value in given.items():
        name = prefix + key
        kind = base_type(model.model_fields[key].annotation)
        coerced[key] = value
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if not isinstance(value, Mapping):
                raise ConfigError(name, f"{name} must be an object with "
                                        f"{', '.join(sorted(kind.model_fields))} (got {value!r})")
            coerced[key] = _check(kind, {k: v for k, v in value.items() if v is not None},
                                  name + ".", name)
        choices = field_choices(model, key)
        if choices and value not in choices:
            raise ConfigError(name, f"{name} must be {describe_range(model, key)} (got {value!r})")
    try:
        model.model_validate(coerced)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else "options"
        if field in model.model_fields:
            raise ConfigError(prefix + field, f"{prefix}{field} must be "
                                              f"{describe_range(model, field)} "
                                              f"(got {given.get(field)!r})") from None
        raise ConfigError(prefix + field, f"{prefix}{field}: {first['msg']}") from None
    return {k: coerced[k] if isinstance(coerced[k], dict)
            or base_type(model.model_fields[k].annotation) is int else v
            for k, v in given.items()}


def field_choices(model: type[BaseModel], field: str) -> list[Any]:
    """The allowed values of a field declared with `Option.choices` (else empty)."""
    extra = model.model_fields[field].json_schema_extra
    choices = extra.get("enum") if isinstance(extra, dict) else None
    return list(choices) if isinstance(choices, list) else []


SCALARS = (int, float, bool, str)


def scalar_fields(model: type[BaseModel]) -> list[str]:
    """The fields holding one number, flag or string (command lines and server tables take
    only these; lists and nested objects are set in league files)."""
    return [f for f, info in model.model_fields.items() if base_type(info.annotation) in SCALARS]


def base_type(annotation: Any) -> Any:
    args = getattr(annotation, "__args__", None)
    if args:
        return next((a for a in args if a is not type(None)), annotation)
    return annotation


def _num(value: Any) -> str:
    if value is None:
        return "…"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
