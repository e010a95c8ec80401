"""The agents API's request bodies as they really are: one branch per kind (and per game for
baselines), with the season's games, baselines and allowed models as enums, so a request the
document calls valid is never refused for its shape (schemathesis holds it to that).
Fields a kind does not take may be absent or null."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from cogleague.server.agent_limits import MAX_CAP, MAX_DESCRIPTION
from cogleague.server.openapi import no_nul_in_request_text

OPTIONAL = ("prompt", "model", "token_budget", "policy_file", "baseline")


def _branch(base: dict[str, Any], title: str, props: dict[str, Any], required: list[str]
            ) -> dict[str, Any]:
    nulls = {k: {"type": "null"} for k in OPTIONAL if k in base and k not in props}
    return {"type": "object", "title": title, "additionalProperties": False,
            "properties": {**{k: v for k, v in base.items() if k not in OPTIONAL},
                           **nulls, **props},
            "required": required}


def agent_body(base: dict[str, Any], games: list[str], baselines: dict[str, list[str]],
               models: list[str], token_budget: int, text_max: int) -> dict[str, Any]:
    props = base["properties"]
    games_of = {"type": "array", "minItems": 1, "items": {"type": "string", "enum": games}}
    prompt = {"type": "string", "minLength": 1, "maxLength": text_max}
    budget = {"anyOf": [{"type": "integer", "minimum": 1, "maximum": token_budget},
                        {"type": "null"}]}
    branches = [_branch(props, "remote agent", {"kind": {"const": "remote"}, "games": games_of},
                        ["name", "games"]),
                _branch(props, "policy agent", {"kind": {"const": "policy"}, "games": games_of,
                                                "policy_file": {"type": "string",
                                                                "minLength": 1}},
                        ["name", "kind", "games", "policy_file"])]
    if models:
        branches.append(_branch(props, "model agent", {
            "kind": {"const": "model"}, "games": games_of, "prompt": prompt,
            "model": {"type": "string", "enum": models}, "token_budget": budget},
            ["name", "kind", "games", "prompt", "model"]))
    for game, names in baselines.items():
        branches.append(_branch(props, f"baseline agent ({game}, operator only)", {
            "kind": {"const": "baseline"},
            "games": {"type": "array", "minItems": 1, "items": {"const": game}},
            "baseline": {"type": "string", "enum": names}},
            ["name", "kind", "games", "baseline"]))
    return {"title": "AgentBody", "anyOf": branches,
            "description": "An agent of one kind: remote (connects on /ws/agent), model (a "
                           "prompt and an allowed model), policy (a .npz file, base64; checked "
                           "against each game on upload, 400 naming the mismatch) or baseline "
                           "(the operator's)."}


def version_body(base: dict[str, Any], models: list[str], token_budget: int, text_max: int
                 ) -> dict[str, Any]:
    props = base["properties"]
    branches = [_branch(props, "a new policy file", {"policy_file": {"type": "string",
                                                                     "minLength": 1}},
                        ["policy_file"])]
    if models:
        branches.append(_branch(props, "a new prompt", {
            "prompt": {"type": "string", "minLength": 1, "maxLength": text_max},
            "model": {"type": "string", "enum": models},
            "token_budget": {"anyOf": [{"type": "integer", "minimum": 1,
                                        "maximum": token_budget}, {"type": "null"}]}},
            ["prompt", "model"]))
    return {"title": "VersionBody", "anyOf": branches}


def change_body(games: list[str], cap_max: int, description_max: int) -> dict[str, Any]:
    """`PATCH /agents/NAME`: at least one field, none null (null is refused, not "unchanged")."""
    return {"title": "ChangeBody", "type": "object", "additionalProperties": False,
            "minProperties": 1,
            "properties": {
                "cap": {"type": "integer", "minimum": 1, "maximum": cap_max},
                "games": {"type": "array", "minItems": 1,
                          "items": {"type": "string", "enum": games}},
                "description": {"type": "string", "maxLength": description_max}},
            "description": "New values for the agent's current version, in place: they count "
                           "from the next table the matchmaker forms; running tables go on. "
                           "A baseline or policy agent's games are checked as at "
                           "registration."}


def install(app: FastAPI, games: list[str], baselines: dict[str, list[str]], models: list[str],
            token_budget: int, text_max: int) -> None:
    """Wrap the app's OpenAPI builder (after `openapi.truthful_openapi`)."""
    inner: Callable[[], dict[str, Any]] = app.openapi

    def build() -> dict[str, Any]:
        doc = inner()
        schemas = doc.get("components", {}).get("schemas", {})
        if "properties" in schemas.get("AgentBody", {}):
            schemas["AgentBody"] = agent_body(schemas["AgentBody"], games, baselines, models,
                                              token_budget, text_max)
        if "properties" in schemas.get("VersionBody", {}):
            schemas["VersionBody"] = version_body(schemas["VersionBody"], models, token_budget,
                                                  text_max)
        if "properties" in schemas.get("ChangeBody", {}):
            schemas["ChangeBody"] = change_body(games, MAX_CAP, MAX_DESCRIPTION)
        no_nul_in_request_text(doc, schemas)
        return doc

    app.openapi = build  # type: ignore[method-assign]
