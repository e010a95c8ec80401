"""Schemathesis hooks for `test_openapi.py` (loaded by name through ``SCHEMATHESIS_HOOKS``).

JSON Schema's ``integer`` counts ``2004.0`` as an integer, and no keyword can say "written
without a fraction"; the server refuses such a number for an integer field (a float where a
count belongs is the client's bug, never rounded). A case carrying an integer-valued float is
therefore left out: what the OpenAPI document cannot state is tested in
`test_create_refusals.py` instead."""

from __future__ import annotations

from typing import Any

import schemathesis


def _has_whole_float(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_whole_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_whole_float(v) for v in value)
    return False


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    return not _has_whole_float(case.body)
