"""A refused value's message names the field and the whole allowed range, on every endpoint
(the project's rule for bad input), read from what the API document declares: a value below
the least or above the most of any bounded field of any request body says both bounds."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogleague.server.openapi import TEXT_PATTERN
from server.support import OPERATOR_KEY, ServerProcess

AUTH = {"Authorization": f"Bearer {OPERATOR_KEY}"}
PATH_VALUES = {"account_id": "1", "table_id": "nosuchtable", "name": "nosuchagent"}


def _resolve(node: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schemas[node["$ref"].rsplit("/", 1)[-1]]
    branches = [b for b in node.get("anyOf", ()) if b.get("type") != "null"]
    return _resolve(branches[0], schemas) if len(branches) == 1 else node


def _valid(node: dict[str, Any], schemas: dict[str, Any]) -> Any:
    """A small value the schema accepts (the other fields of a body under test)."""
    node = _resolve(node, schemas)
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "string":
        return "a" * max(node.get("minLength", 1), 1)
    if kind in ("integer", "number"):
        return node.get("minimum", 1)
    if kind == "array":
        return [_valid(node.get("items", {"type": "string"}), schemas)] * max(
            node.get("minItems", 1), 1)
    if kind == "boolean":
        return False
    return {}


def bounded_fields(doc: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any],
                                                        dict[str, Any]]]:
    """(method, path, field, field schema, a valid body) for every bounded top-level field of
    every request body the document declares as one object."""
    schemas = doc["components"]["schemas"]
    found = []
    for path, item in doc["paths"].items():
        url = re.sub(r"\{(\w+)\}", lambda m: PATH_VALUES.get(m.group(1), "x"), path)
        for method, op in item.items():
            content = op.get("requestBody", {}).get("content", {}).get("application/json")
            if content is None:
                continue
            body = _resolve(content["schema"], schemas)
            body = body.get("anyOf", [body])[0]  # POST /agents: one branch per kind
            if body.get("type") != "object":  # POST /tables: one branch per game
                continue
            base = {k: _valid(body["properties"][k], schemas) for k in body.get("required", [])}
            for name, prop in body["properties"].items():
                prop = _resolve(prop, schemas)
                if "maximum" in prop or "maxLength" in prop:
                    found.append((method.upper(), url, name, prop, base))
    return found


def refused(server: ServerProcess, method: str, url: str, body: dict[str, Any]) -> str:
    content = json.dumps(body).encode()  # ASCII: a lone surrogate is sent as its escape
    answer = httpx.request(method, server.url + url, content=content,
                           headers={**AUTH, "content-type": "application/json"})
    assert answer.status_code == 400, (method, url, body, answer.text)
    error = answer.json()["error"]
    assert error["code"] == "bad_request", error
    return str(error["message"])


def test_every_bounded_body_field_is_found(shared_server: ServerProcess) -> None:
    doc = httpx.get(f"{shared_server.url}/openapi.json").json()
    names = {(path, name) for _, path, name, _, _ in bounded_fields(doc)}
    assert {("/accounts", "credits"), ("/accounts", "name"), ("/accounts/1/credits", "amount"),
            ("/people", "password"), ("/agents", "cap")} <= names, names


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_out_of_range_value_names_the_field_and_both_bounds(
        shared_server: ServerProcess, data: st.DataObject) -> None:
    doc = httpx.get(f"{shared_server.url}/openapi.json").json()
    method, url, name, prop, base = data.draw(st.sampled_from(bounded_fields(doc)))
    if prop.get("type") == "string":
        low, high = prop.get("minLength", 0), prop["maxLength"]
        size = data.draw(st.integers(high + 1, high + 300) if low == 0 else
                         st.one_of(st.integers(0, low - 1), st.integers(high + 1, high + 300)))
        message = refused(shared_server, method, url, {**base, name: "a" * size})
        length = f"{low}..{high}" if low else f"at most {high}"
        assert message.startswith(f"{name}: must be a text of {length} characters"), message
        assert message.endswith(f" (got {size} characters)"), message
        if prop.get("pattern", TEXT_PATTERN) != TEXT_PATTERN:  # (a NUL is `bad_text`'s)
            assert f" matching {prop['pattern']} " in message, message
        return
    high = int(prop["maximum"])
    low = int(prop["minimum"]) if "minimum" in prop else int(prop["exclusiveMinimum"]) + 1
    value = data.draw(st.one_of(st.integers(low - 10**6, low - 1),
                                st.integers(high + 1, high + 10**6)))
    message = refused(shared_server, method, url, {**base, name: value})
    assert message.startswith(f"{name}: must be an integer"), message
    assert message.endswith(f" (got {value})"), message
    bounds = [int(prop[k]) for k in ("minimum", "exclusiveMinimum", "maximum") if k in prop]
    words = re.split(r"[ ,.]+", message.replace("..", " "))
    assert all(str(b) in words for b in bounds), (bounds, message)


@pytest.mark.parametrize(("method", "url", "body", "says"), [
    ("POST", "/tables", {"game": "dilemma", "stake": -5},
     "stake: must be an integer in 0..1000000000 (got -5)"),
    ("POST", "/tables", {"game": "dilemma", "stake": "10"},
     "stake: must be an integer in 0..1000000000 (got '10')"),
    ("POST", "/tables", {"game": "dilemma", "seed": -1},
     "seed: must be an integer in 0..9223372036854775807 (got -1)"),
    ("POST", "/tables", {"game": "dilemma", "start_timeout_s": 0},
     "start_timeout_s: must be a number, at least 0.1 (got 0)"),
    ("POST", "/accounts/1/credits", {"amount": 0, "idempotency_key": "k"},
     "amount: must be an integer, greater than 0 and at most 1000000000000 (got 0)"),
    ("POST", "/accounts/1/credits", {"idempotency_key": "k"},
     "amount: required; must be an integer, greater than 0 and at most 1000000000000"),
    ("POST", "/accounts/1/credits", {"amount": 1, "idempotency_key": "k", "colour": 1},
     "colour: not a field of this request (the fields are amount, idempotency_key)"),
    ("POST", "/accounts/0/credits", {"amount": 1, "idempotency_key": "k"},
     "path.account_id: must be an integer in 1..9223372036854775807 (got '0')"),
    ("POST", "/tables/x/join", {"kind": "bogus"},
     "kind: must be one of remote, human, llm, scripted, policy (got 'bogus')"),
    ("GET", "/tables?state=sideways", None,
     "query.state: must be one of open, running, finished, aborted (got 'sideways')"),
    ("POST", "/agents", {"name": "a", "games": []},
     "games: must be a list of at least 1 item (got 0 items)"),
    ("POST", "/agents/a/versions", {"token_budget": 0},
     "token_budget: must be an integer, at least 1 (got 0)"),
    ("POST", "/agents/a/frob", None,
     "path.action: must be one of pause, resume, retire (got 'frob')"),
    ("POST", "/session", {"name": "ann", "password": "short"},
     "password: must be a text of 8..200 characters (got 5 characters)"),
    ("POST", "/people", {"name": "ann", "password": "\ud800 is not text"},
     "password: must be a text of 8..200 characters, in valid Unicode (a lone surrogate is "
     "not) (got '\\ud800 is not text')"),
])
def test_refusals_across_endpoints_say_what_is_allowed(
        shared_server: ServerProcess, method: str, url: str, body: Any, says: str) -> None:
    assert refused(shared_server, method, url, body) == says


def test_a_huge_refused_value_is_not_echoed(shared_server: ServerProcess) -> None:
    message = refused(shared_server, "POST", "/tables/x/join", {"kind": "x" * 100_000})
    assert message.startswith("kind: must be one of remote,") and len(message) < 200, message
    answer = httpx.post(f"{shared_server.url}/session", headers={
        "content-type": "application/json"}, content=b'{"name": "\\ud800", "password": "x"}')
    assert answer.status_code == 400, answer.text  # the echo is JSON-escaped, never a 500
    assert answer.json()["error"]["message"].endswith("(got '\\ud800')"), answer.text
