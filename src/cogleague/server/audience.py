"""What a spectator may see of a running table: one filter for every spectator surface.

The event stream already drops each event's `restricted` fields for anyone not named
(`Event.view_for(None)`); the spectator documents (the `snapshot` frame's state,
`GET /tables/{id}/spectator`, and every `/ws/watch` event) also pass through this filter,
which removes at any depth

- the keys the game declares secret from spectators (`GameDescriptor.spectator_secrets`,
  e.g. Ledger's memos: no one but their author sees one until the replay), and
- the keys that name policies (`POLICY_KEYS`), unless the operator made the table an
  exhibition; they arrive with the end and the replay.

Hosts never name a game: the secret keys come from the descriptor.
"""

from __future__ import annotations

import json
from typing import Any

from cogleague.core import jsonio

POLICY_KEYS = frozenset({"policy", "policies", "policy_name", "policy_names", "policyName",
                         "policyNames", "names"})
"""Fields that name policies: off live spectator documents while a table plays."""


def strip_keys(value: Any, hidden: frozenset[str]) -> Any:
    """`value` without any key in `hidden`, at any depth."""
    if isinstance(value, dict):
        return {k: strip_keys(v, hidden) for k, v in value.items() if k not in hidden}
    if isinstance(value, list):
        return [strip_keys(v, hidden) for v in value]
    return value


class Audience:
    """The spectators of one table: which keys they never see while it plays."""

    def __init__(self, secrets: frozenset[str] = frozenset(), exhibition: bool = False) -> None:
        self.hidden = frozenset(secrets) | (frozenset() if exhibition else POLICY_KEYS)
        # a quoted key can only occur in encoded JSON as '"key"': a cheap test first
        self._marks = tuple(jsonio.dumps(k) for k in sorted(self.hidden))

    def document(self, value: Any) -> Any:
        """A spectator document (a snapshot's state, `/spectator`) as spectators may see it."""
        return strip_keys(value, self.hidden) if self.hidden else value

    def payload_json(self, payload_json: str) -> str:
        """`document` on encoded JSON: the text itself when no hidden key can be in it."""
        if not any(mark in payload_json for mark in self._marks):
            return payload_json
        return jsonio.dumps(strip_keys(json.loads(payload_json), self.hidden))
