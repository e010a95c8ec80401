"""`DocTemplate` renders, table by table, exactly `jsonio.dumps` of the document with its values
in place, whatever the values (floats, strings to escape, None) and however its holes are
fused into items."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.batch import DocTemplate, coded, hole

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))


def _fill(doc: Any, values: dict[str, Any]) -> Any:
    if isinstance(doc, dict):
        return {k: _fill(v, values) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_fill(v, values) for v in doc]
    return values.get(doc, doc) if isinstance(doc, str) else doc


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 6), st.booleans(), st.data())
def test_rendered_texts_are_the_documents_encoded(holes: int, tables: int, sort_keys: bool,
                                                  data: st.DataObject) -> None:
    domains = [data.draw(st.lists(SCALARS, min_size=1, max_size=9, unique_by=repr))
               for _ in range(holes)]
    picks = [[data.draw(st.integers(0, len(d) - 1)) for d in domains] for _ in range(tables)]
    keys = [f"h{j}" for j in range(holes)]
    doc = {"z": "fixed", "a": [hole(k) for k in keys[::2]],
           "m": {"x": 1.5, "seats": [{"v": hole(k), "w": None} for k in keys[1::2]]}}
    fill = {k: ([jsonio.dumps(v) for v in d], np.array([row[j] for row in picks]))
            for j, (k, d) in enumerate(zip(keys, domains, strict=True))}
    got = DocTemplate(doc, sort_keys=sort_keys).render(fill, tables)
    for row, text in zip(picks, got, strict=True):
        values = {hole(k): domains[j][row[j]] for j, k in enumerate(keys)}
        assert text == jsonio.dumps(_fill(doc, values), sort_keys=sort_keys)


def test_a_document_without_holes_and_coded_values() -> None:
    assert DocTemplate({"b": [1, 2.5], "a": "x"}, sort_keys=True).render({}, 2) == [
        '{"a":"x","b":[1,2.5]}'] * 2
    texts, index = coded(np.array([[3, 1], [1, 1e-5]]))
    assert [texts[i] for i in index.ravel()] == ["3.0", "1.0", "1.0", "1e-05"]
