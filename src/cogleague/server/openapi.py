"""The OpenAPI document tells the truth (checked by schemathesis in `tests/server/`).

FastAPI declares a 422 for every validated route, but this server answers validation errors
with 400 and its own error document (`app.py`): the 422s become 400s. A request body can be
refused for its size by the body-limit middleware before any route runs: such routes declare
413. The game a table plays is one of the installed games: its schema says so (an enum built
from the registry when the app is made), so a schema-valid request is never refused for it.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from cogleague.core.options import scalar_fields
from cogleague.server.catalog import Catalog
from cogleague.server.errors import ErrorDocument, responses
from cogleague.server.tables import MIN_START_TIMEOUT_S

ERROR_REF = "#/components/schemas/ErrorDocument"


def _error_response(status: int) -> dict[str, Any]:
    why = responses(status)[status]["description"]
    return {"description": why, "content": {"application/json": {"schema": {"$ref": ERROR_REF}}}}


def _create_table(schemas: dict[str, Any], base: dict[str, Any], catalog: Catalog,
                  max_start_timeout_s: float) -> dict[str, Any]:
    """`POST /tables` as one branch per installed game: its name, its variants, its config
    model's JSON Schema, its baselines for `fill_with`, its seed range, and a stake only where
    the game has paid tables."""
    branches = []
    for desc in catalog.available():
        options = desc.options.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, sub in options.pop("$defs", {}).items():
            schemas.setdefault(name, sub)
        name = f"{desc.options.__name__}"
        if desc.paid_tables is not None:  # the table's own `stake` sets it
            options["properties"].pop(desc.paid_tables.stake_field, None)
        scalars = scalar_fields(desc.options)  # tables take one-value options only
        options["properties"] = {k: v for k, v in options["properties"].items() if k in scalars}
        schemas[name] = options
        props = {**base["properties"]}
        props["game"] = {"type": "string", "const": desc.name}
        props["variant"] = {"anyOf": [{"type": "string", "enum": list(desc.variants)},
                                      {"type": "null"}]}
        props["config"] = {"$ref": f"#/components/schemas/{name}"}
        props["fill_with"] = {"anyOf": [{"type": "string", "enum": list(desc.baselines)},
                                        {"type": "null"}],
                              "description": base["properties"]["fill_with"].get("description",
                                                                                 "")}
        props["seed"] = {"anyOf": [{"type": "integer", "minimum": 0,
                                    "maximum": desc.seed_max},
                                   {"type": "null"}]}
        props["start_timeout_s"] = {"anyOf": [{"type": "number", "minimum": MIN_START_TIMEOUT_S,
                                               "maximum": max_start_timeout_s},
                                              {"type": "null"}]}
        free = {**props, "stake": {"type": "integer", "minimum": 0, "maximum": 0,
                                   "description": "a free table (the default)"}}
        fixed = desc.fixed_by_variant
        open_variants = [v for v in desc.variants if v not in fixed]
        branches.append({"type": "object", "title": f"CreateTable ({desc.name}, free)",
                         "properties": {**free, "variant": {"anyOf": [
                             {"type": "string", "enum": open_variants}, {"type": "null"}]}},
                         "required": ["game"], "additionalProperties": False})
        for variant, values in fixed.items():  # the rules fix these: that value or nothing
            config = {**options, "properties": {
                k: ({"enum": [values[k], None]} if k in values else v)
                for k, v in options["properties"].items()}}
            branches.append({"type": "object", "title": f"CreateTable ({desc.name}, {variant})",
                             "properties": {**free, "variant": {"const": variant},
                                            "config": config,
                                            "seed": {"enum": [values.get("seed"), None]}
                                            if "seed" in values else free["seed"]},
                             "required": ["game", "variant"], "additionalProperties": False})
        if desc.paid_tables is not None:  # every seat staked: no filler seats
            paid = {**props, "stake": {**props["stake"], "minimum": 1},
                    "fill_with": {"type": "null"}}
            branches.append({"type": "object", "title": f"CreateTable ({desc.name}, paid)",
                             "properties": paid, "required": ["game", "stake"],
                             "additionalProperties": False})
    return {"title": "CreateTable", "oneOf": branches,
            "description": "A table of one installed game. Rules that tie several fields "
                           "together are checked by the game and answered with 400 naming "
                           "the field (a paid table takes no fill_with seats)."}


TEXT_PATTERN = "^[^\\u0000]*$"
"""What a request's free text may hold (`core/text.py` refuses NUL and lone surrogates with
400 `bad_text`; JSON Schema can name the NUL, and schema generators make no lone surrogates)."""


def no_nul_in_request_text(doc: dict[str, Any], schemas: dict[str, Any]) -> None:
    """Every free-text string of a request body (and the schemas it refers to) says so."""
    seen: set[int] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen.add(id(node))
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            walk(schemas.get(ref.rsplit("/", 1)[1]))
        if node.get("type") == "string" and not {"enum", "const", "pattern", "format"} & set(node):
            node["pattern"] = TEXT_PATTERN
        for value in node.values():
            walk(value)

    for path_item in doc.get("paths", {}).values():
        for operation in path_item.values():
            if isinstance(operation, dict):
                walk(operation.get("requestBody"))


def truthful_openapi(app: FastAPI, catalog: Catalog, max_start_timeout_s: float) -> None:
    def build() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description,
                          routes=app.routes)
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        schemas.setdefault("ErrorDocument", ErrorDocument.model_json_schema(
            ref_template="#/components/schemas/{model}"))
        for name, sub in ErrorDocument.model_json_schema().get("$defs", {}).items():
            schemas.setdefault(name, sub)
        for path_item in doc.get("paths", {}).values():
            for operation in path_item.values():
                answers = operation.setdefault("responses", {})
                if answers.pop("422", None) is not None:
                    answers.setdefault("400", _error_response(400))
                if "requestBody" in operation:
                    answers.setdefault("413", _error_response(413))
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        for path_item in doc.get("paths", {}).values():
            for operation in path_item.values():
                for param in operation.get("parameters", []):
                    if param.get("name") == "game":  # a game is one of the installed games
                        param["schema"] = {**param.get("schema", {}), "enum": catalog.names()}
        if "CreateTable" in schemas:
            schemas["CreateTable"] = _create_table(schemas, schemas["CreateTable"], catalog,
                                                   max_start_timeout_s)
        no_nul_in_request_text(doc, schemas)
        app.openapi_schema = doc
        return doc

    app.openapi = build  # type: ignore[method-assign]
