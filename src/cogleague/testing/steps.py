"""One step, however the runner asks for it: the same bytes on every path through the runner.

The runner batches a seat's turns into one `decide_step` call when the seat has it, asks a seat
turn by turn when it has not, and an observer (the server) reads each step's events as soon as
they are applied, while a headless run reads them only at the end. For each shared episode the
check replays the line-up with the scripted seats' step hook hidden, and again with an observer
that reads every entry at once and asks the game for its step twice; the results, the log and
the replay document must be byte-identical to the shared episode's, `step()` must describe the
same step each time it is asked, and `pending()` must list that step's turns. A game whose
events renderer reads live state instead of the step's own data, or a baseline whose
`act_step` differs from `act`, fails here.
"""

from __future__ import annotations

import asyncio
from typing import Any

from cogleague.core import jsonio
from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.game import Game, Turn
from cogleague.core.replay import LogEntry
from cogleague.testing.episodes import seats_for
from cogleague.testing.subject import ConformanceError, Played, Subject


class TurnByTurn:
    """A scripted seat without its step hook: the runner must ask it one turn at a time."""

    def __init__(self, seat: Any) -> None:
        self.kind, self.name = seat.kind, seat.name
        self.decide_now = seat.decide_now

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return self.decide_now(turn)


def _stable_step(game: Game, where: str) -> None:
    """`step()` asked twice is the same step, and `pending()` lists its turns."""
    if game.done or game.between_rounds:
        return
    first, second = game.step(), game.step()
    if first.turn_ids() != second.turn_ids() or list(first.seats) != list(second.seats):
        raise ConformanceError(f"{where}: step() asked twice describes two different steps "
                               f"({first.turn_ids()} then {second.turn_ids()})")
    pending = [t.turn_id for t in game.pending()]
    if pending != first.turn_ids():
        raise ConformanceError(f"{where}: pending() lists {pending}, the step "
                               f"{first.turn_ids()}")


def _bytes(subject: Subject, game: Game, outcome: Any) -> dict[str, str]:
    return {"results": jsonio.dumps(outcome.results),
            "log": jsonio.dumps(outcome.log.to_json()),
            "replay": subject.dumps(subject.desc.replay_document(game, outcome.log))}


def _replayed(subject: Subject, played: Played, path: str) -> dict[str, str]:
    game = subject.fresh(played.episode)
    seats = seats_for(subject.desc, game, played.episode)
    observer = None
    if path == "turn by turn":
        seats = [TurnByTurn(s) if getattr(s, "decide_step", None) else s for s in seats]
    else:
        async def observer(entry: LogEntry, live: Game) -> None:
            entry.events  # noqa: B018 - read at once, as the server does
            _stable_step(live, f"{played.episode.label()}, after log entry {entry.op!r}")

    outcome = asyncio.run(run_episode(game, seats, clock=FakeClock(), observer=observer))
    return _bytes(subject, game, outcome)


def check_steps(subject: Subject) -> str:
    paths = ("turn by turn", "observed")
    for played in subject.played:
        expected = _bytes(subject, played.game, played.outcome)
        for path in paths:
            got = _replayed(subject, played, path)
            for part, text in expected.items():
                if got[part] != text:
                    at = next((i for i, (a, b) in enumerate(zip(text, got[part], strict=False))
                               if a != b), min(len(text), len(got[part])))
                    raise ConformanceError(
                        f"{played.episode.label()}: played {path}, the {part} differs from the "
                        f"headless run at character {at}: {text[at:at + 60]!r} vs "
                        f"{got[part][at:at + 60]!r}")
    return f"{len(subject.played)} episodes give the same bytes {' and '.join(paths)}"
