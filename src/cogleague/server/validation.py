"""A refused request's message names the field and everything it allows, not only the broken part.

Pydantic says ``Input should be greater than or equal to 0``: the bound that failed, not the
range. Here the route's own declaration of the field (its JSON Schema: bounds, lengths,
pattern, allowed values) is read back, so every endpoint answers the same way:
``stake: must be an integer in 0..1000000000 (got -5)`` (the wording of every other
refusal: `agents.py`, the games' config errors).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any

from pydantic import TypeAdapter

from cogleague.core import jsonio

GOT_CHARS = 60
"""How much of a refused value the message repeats (a huge value is cut, never echoed)."""

Schema = dict[str, Any]
_SCHEMAS: dict[int, Schema] = {}
"""The JSON Schema of a route's parameter or body, by the parameter object's id (routes live
as long as the app)."""


def _schema_of(field: Any) -> Schema:
    key = id(field)
    if key not in _SCHEMAS:
        info = field.field_info
        kind: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else \
            info.annotation
        try:
            _SCHEMAS[key] = TypeAdapter(kind).json_schema()
        except Exception:  # a type without a JSON Schema: the message falls back to pydantic's
            _SCHEMAS[key] = {}
    return _SCHEMAS[key]


def _params(dependant: Any) -> Iterator[Any]:
    """Every path, query, header and cookie parameter of a route and its dependencies."""
    for kind in ("path_params", "query_params", "header_params", "cookie_params"):
        yield from getattr(dependant, kind, ())
    for sub in getattr(dependant, "dependencies", ()):
        yield from _params(sub)


_PYDANTIC_KEYS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum",
                  "lt": "exclusiveMaximum", "min_length": "minLength", "max_length": "maxLength"}
"""Pydantic writes a bound it cannot push into a union (``JsonInt | None``) under its own
name: read as JSON Schema's."""


def _deref(node: Any, root: Schema) -> Any:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        node = root.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[-1])
    if not isinstance(node, dict):
        return node
    node = {_PYDANTIC_KEYS.get(k, k): v for k, v in node.items()}
    branches = [b for b in (_deref(b, root) for b in node.get("anyOf", ()))
                if isinstance(b, dict) and b.get("type") != "null"]
    if len(branches) == 1:  # an optional field: what it allows when given
        return {**{k: v for k, v in node.items() if k != "anyOf"}, **branches[0]}
    return node


def field_schema(route: Any, loc: Sequence[Any]) -> Schema | None:
    """What `route` declares at an error's `loc` (``("body", "stake")``, ``("query",
    "state")``…), or None when the route declares nothing readable there."""
    if not loc or route is None:
        return None
    where, path = loc[0], list(loc[1:])
    if where == "body":
        field = getattr(route, "body_field", None)
    else:
        if not path:
            return None
        field = next((p for p in _params(getattr(route, "dependant", None))
                      if p.alias == path[0]), None)
        path = path[1:]
    if field is None:
        return None
    root = _schema_of(field)
    node: Any = _deref(root, root)
    for step in path:
        if not isinstance(node, dict):
            return None
        child = node.get("items") if isinstance(step, int) else node.get(
            "properties", {}).get(step)
        node = _deref(child, root)
    return node if isinstance(node, dict) else None


def _num(value: Any) -> str:
    return jsonio.dumps(value)


def _range(node: Schema) -> str:
    low = ("at least", node["minimum"]) if "minimum" in node else (
        ("greater than", node["exclusiveMinimum"]) if "exclusiveMinimum" in node else None)
    high = ("at most", node["maximum"]) if "maximum" in node else (
        ("less than", node["exclusiveMaximum"]) if "exclusiveMaximum" in node else None)
    if low and high and low[0] == "at least" and high[0] == "at most":
        return f" in {_num(low[1])}..{_num(high[1])}"
    parts = [f"{side[0]} {_num(side[1])}" for side in (low, high) if side is not None]
    return (", " + " and ".join(parts)) if parts else ""


def _count(node: Schema, low_key: str, high_key: str, unit: str) -> str:
    low, high = node.get(low_key), node.get(high_key)
    if low is not None and high is not None:
        return f" of {low}..{high} {unit}"
    if low is not None:
        return f" of at least {low} {unit if low != 1 else unit[:-1]}"
    if high is not None:
        return f" of at most {high} {unit if high != 1 else unit[:-1]}"
    return ""


def allowed(node: Schema) -> str | None:
    """Everything `node` allows, in words (None when it constrains nothing we can say)."""
    if "enum" in node:
        return "one of " + ", ".join(str(v) for v in node["enum"])
    if "const" in node:
        return f"exactly {_num(node['const'])}"
    kind = node.get("type")
    if kind in ("integer", "number"):
        return ("an integer" if kind == "integer" else "a number") + _range(node)
    if kind == "string" and "x-in-words" in node:  # a pattern a reader need not decode
        return f"a text of {node['x-in-words']}"
    if kind == "string":
        pattern = f" matching {node['pattern']}" if "pattern" in node else ""
        return "a text" + _count(node, "minLength", "maxLength", "characters") + pattern
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        return "a list" + _count(node, "minItems", "maxItems", "items")
    if kind == "object" and node.get("properties"):
        return "an object with the fields " + ", ".join(node["properties"])
    if kind == "object":
        return "an object"
    return None


def got(error: Mapping[str, Any]) -> str:
    """The refused value as the other refusals show it (``repr``: a lone surrogate is
    escaped, never sent), cut to `GOT_CHARS`; a count for a too long or too short text or
    list, the count being what was wrong."""
    value = error.get("input")
    kind = str(error.get("type", ""))
    if kind.startswith("string_too_") and isinstance(value, str):
        return f"{len(value)} characters"
    if kind.startswith("too_") and isinstance(value, (list, dict, str)):
        return f"{len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, str) and len(value) > GOT_CHARS:
        value = value[:GOT_CHARS]  # cut before repr: a huge text is never copied whole
    text = repr(value)
    return text if len(text) <= GOT_CHARS else text[:GOT_CHARS - 1] + "…"


def message(error: Mapping[str, Any], route: Any) -> str:
    """``field: must be … (got …)`` for one of pydantic's errors, read against the route;
    pydantic's own words when the declaration cannot be read (never a 500 instead of a 400)."""
    where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
    try:
        return _message(error, route, where)
    except Exception:
        return f"{where}: {error.get('msg', 'invalid request')}"


def _message(error: Mapping[str, Any], route: Any, where: str) -> str:
    loc = tuple(error.get("loc", ()))
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        parent = field_schema(route, loc[:-1])
        fields = list(parent.get("properties", {})) if parent else []
        known = f" (the fields are {', '.join(fields)})" if fields else ""
        return f"{where}: not a field of this request{known}"
    node = field_schema(route, loc)
    says = allowed(node) if node else None
    if says is None or (kind == "value_error" and node is not None and
                        node.get("type") == "object"):
        text = str(error.get("msg", "invalid request")).removeprefix("Value error, ")
        return f"{where}: {text}"
    if kind == "missing":
        return f"{where}: required; must be {says}"
    if kind == "string_unicode":  # the length and pattern were not what failed
        says += ", in valid Unicode (a lone surrogate is not)"
    return f"{where}: must be {says} (got {got(error)})"
