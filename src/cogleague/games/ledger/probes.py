"""The Ledger's probe battery for behaviour profiles (docs/profiles.md).

The subject takes seat 0 of the eight-seat table; the seven probes are the game's baselines
(``mirror``, ``shark``, ``grim``, ``saint``, ``opportunist``, ``mirror``, ``shark``), so it
meets kind, harsh and conditional partners in every subgame and role. Kindness is the game's
own conduct rule (spec §7, `conduct.is_kind`). A note's *tone* is read by a keyword rule (like
the dilemma's promise rule): positive words (`POSITIVE`) without negative ones, or the reverse;
a note with both or neither has no tone and is not judged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.games.ledger.conduct import is_kind
from cogleague.games.ledger.subgames import DILEMMA, TRUST, ULTIMATUM
from cogleague.profiles.battery import ProbeEpisode, Trait

PROBES = ("mirror", "shark", "grim", "saint", "opportunist", "mirror", "shark")
POSITIVE = ("kind", "fair", "generous", "trust", "trustworthy", "cooperative", "cooperated",
            "cooperates", "honest", "reliable", "nice", "good")
NEGATIVE = ("harsh", "unfair", "greedy", "defected", "defects", "betrayed", "cheat", "cheated",
            "shark", "stingy", "selfish", "bad", "avoid")
_POS = re.compile(r"\b(" + "|".join(POSITIVE) + r")\b", re.IGNORECASE)
_NEG = re.compile(r"\b(" + "|".join(NEGATIVE) + r")\b", re.IGNORECASE)
ROLES = ((DILEMMA, None, "dilemma"), (TRUST, 0, "trust_investor"), (TRUST, 1, "trust_trustee"),
         (ULTIMATUM, 0, "ultimatum_proposer"), (ULTIMATUM, 1, "ultimatum_responder"))


def _kind_trait(subgame: str, side: int | None, key: str) -> Trait:
    role = {None: "either player", 0: "the first mover", 1: "the second mover"}[side]
    label = key.replace("_", " ")
    return Trait(f"kind_{key}", f"kind: {label}", "rate",
                 f"Share of the subject's {subgame} meetings as {role} in which its move was "
                 "kind under the game's conduct rule (DILEMMA cooperate; TRUST investor sends ≥ 3, "
                 "trustee returns ≥ 50%; ULTIMATUM proposer offers ≥ 5, responder's floor ≤ 5).")


TRAITS = (
    *(_kind_trait(g, s, k) for g, s, k in ROLES),
    Trait("note_accuracy", "notes match the partner's play", "rate",
          "Over the subject's notes that have a tone (keyword rule: a positive word such as "
          "'kind', 'fair', 'trust' without a negative one such as 'harsh', 'greedy', "
          "'betrayed', or the reverse): the share whose tone matches the reviewed partner's "
          "conduct in their meeting (positive ↔ the partner's move was kind)."),
    Trait("notes", "notes per episode", "mean",
          "Notes the subject posted on the public board, per episode."),
)


def tone(text: str) -> bool | None:
    """True (positive), False (negative) or None (neither, or both)."""
    pos, neg = _POS.search(text) is not None, _NEG.search(text) is not None
    return None if pos == neg else pos


class LedgerProbes:
    """The Ledger's ``extras["probes"]`` (see `cogleague.profiles.battery.GameProbes`)."""

    traits = TRAITS
    probes = PROBES
    pairwise = False

    def episodes(self, subject: str, count: int, seed: int,
                 opponents: Sequence[str]) -> list[ProbeEpisode]:
        if opponents:
            raise ConfigError("opponents", "opponents: the Ledger battery seats its seven "
                                           "probes in all other seats (got extra opponents)")
        return [ProbeEpisode((subject, *PROBES), 0, seed + i, None, {}, f"battery #{i + 1}")
                for i in range(count)]

    def probe_seat(self, game: Game, seat: int, name: str) -> Any | None:
        return None  # the probes are the game's own baselines

    def measure(self, game: Game, outcome: EpisodeOutcome,
                episode: ProbeEpisode) -> dict[str, list[float]]:
        s = episode.subject_seat
        out: dict[str, list[float]] = {t.name: [] for t in TRAITS}
        partner_kind: dict[int, bool] = {}  # round → was the subject's partner kind
        firsts: dict[tuple[int, int], int] = {}
        notes = 0
        for e in outcome.log.events:
            d = e.data
            if e.kind == "round":
                for p in d["pairs"]:
                    firsts[(int(d["round"]), int(p["a"]))] = p["first"]
            elif e.kind == "meeting" and s in (d["a"], d["b"]):
                mine, theirs = ("A", "B") if d["a"] == s else ("B", "A")
                partner = d["b"] if mine == "A" else d["a"]
                subgame = d["subgame"]
                first = firsts.get((int(d["round"]), int(d["a"])))
                side = 0 if subgame == DILEMMA or first == s else 1
                other = 0 if subgame == DILEMMA or first == partner else 1
                partner_kind[int(d["round"])] = is_kind(subgame, other, int(d[f"move{theirs}"]))
                key = next(k for g, sd, k in ROLES if g == subgame and (sd is None or sd == side))
                out[f"kind_{key}"].append(1.0 if is_kind(subgame, side, int(d[f"move{mine}"]))
                                          else 0.0)
            elif e.kind == "gossip" and d.get("author") == s:
                notes += 1
                said = tone(str(d.get("text", "")))
                reviewed = partner_kind.get(int(d["round"]) - 1)
                if said is not None and reviewed is not None:
                    out["note_accuracy"].append(1.0 if said == reviewed else 0.0)
        out["notes"].append(float(notes))
        return out


PROBES_EXTRA = LedgerProbes()
