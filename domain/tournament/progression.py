"""How a championship moves on by itself: from its state, its check-in window and the clock, the next step the
workers take (``next_step``); the workers carry each step out and ask again, until a step leaves it waiting.

Which championships run by themselves: those with a schedule (the schedule is the organiser's consent), from
the round of its first slot on. A schedule whose first slot is round 2 or later leaves the rounds before it
to the organiser (registration, the draw and round 1 when he chooses) and starts the next ones itself: the
console's "the next rounds start as soon as the last one is decided" with no time for round 1. For them:

* a slot for round 1, registration open, its time come, at least two teams registered: close registration,
  make the draw (a random draw; a championship seeded by rating or by hand waits for its organiser's draw)
  and start round 1;
* a round being played with a check-in window: until the window closes, bots check in and a match's table
  opens once both its teams are in; once it has closed, a team not in forfeits the match (both not in: a
  double forfeit);
* a round whose every match has its result: the next round starts at its slot's time, or at once when it has
  none; when no round is left, the championship finishes.

A championship with no schedule is run by its organiser; only the check-in windows of the rounds he starts
are closed by the workers. Each step that changes the championship names the command id it is stored under
(``tick/round-3/start``...): a step taken twice, or by two workers at once, has one effect.

Pure and deterministic: the clock is an argument (the database's, read once by the worker).
"""

from __future__ import annotations

import datetime as dt
from typing import ClassVar

import msgspec

from domain.tournament.formats import next_round
from domain.tournament.events import Settings
from domain.tournament.state import ChampionshipState


class Course(msgspec.Struct, frozen=True):
    """What moves a championship on besides the clock: its state, and of the round being played, when its
    check-in window closes (None: the championship has no check-in) and whether it was closed (stored)."""

    state: ChampionshipState
    window_closes: dt.datetime | None = None
    window_closed: bool = False


# ---- the steps

class Wait(msgspec.Struct, frozen=True):
    """Nothing to do now: ``reason`` says what it waits for; ``until``: when to look again (None: until
    something is stored)."""

    reason: str
    until: dt.datetime | None = None


class ClosingRegistration(msgspec.Struct, frozen=True):
    """Close registration (which publishes the draw's commitment)."""

    command_id: ClassVar[str] = "tick/registration/close"


class Drawing(msgspec.Struct, frozen=True):
    """Make the random draw."""

    command_id: ClassVar[str] = "tick/draw"


class RoundStarting(msgspec.Struct, frozen=True):
    """Start round ``round``."""

    round: int

    @property
    def command_id(self) -> str:
        return f"tick/round-{self.round}/start"


class Finishing(msgspec.Struct, frozen=True):
    """Finish the championship: every round is decided and none remains."""

    command_id: ClassVar[str] = "tick/finish"


class Playing(msgspec.Struct, frozen=True):
    """The round is being played with no check-in: its tables are open (``open_tables``: open any missing,
    for a tick that may find the round's tables not all opened)."""

    round: int
    open_tables: bool


class CheckingIn(msgspec.Struct, frozen=True):
    """The round's check-in window is open until ``closes``: bots check in, ready tables open; look again
    then."""

    round: int
    closes: dt.datetime


class NoShows(msgspec.Struct, frozen=True):
    """The round's check-in window has ended: close it (``close``: not stored closed yet), forfeit the teams
    not in (command ``tick/round-N/no-shows``), open the tables of the matches both teams of which are in."""

    round: int
    close: bool

    @property
    def command_id(self) -> str:
        return f"tick/round-{self.round}/no-shows"


Step = Wait | ClosingRegistration | Drawing | RoundStarting | Finishing | Playing | CheckingIn | NoShows
# After these the championship has moved: the worker stores it, and asks for the next step.
GOES_ON = (ClosingRegistration, Drawing, RoundStarting)


# ---- the schedule

def slot_times(settings: Settings) -> dict[int, dt.datetime]:
    """Each scheduled round's start as an aware datetime (a time without zone is UTC)."""
    out = {}
    for slot in settings.schedule:
        at = dt.datetime.fromisoformat(slot.starts_at)
        out[slot.round] = at if at.tzinfo else at.replace(tzinfo=dt.UTC)
    return out


def runs_itself(state: ChampionshipState) -> bool:
    """Whether the workers run (some rounds of) this championship: it has a schedule."""
    return state.settings is not None and bool(state.settings.schedule)


# ---- the next step

def next_step(course: Course, now: dt.datetime, *, full: bool = True) -> Step:
    """The next step that moves the championship on at ``now``. ``full`` False: asked after a move of its
    stream (one per match result), not at a round's start nor by the reconciler, so a round being played
    without check-in does not have its tables looked at again (a round of N matches costs O(N), not
    O(N²))."""
    state = course.state
    if state.status == "finished":
        return Wait("finished")
    if not runs_itself(state):
        if state.status == "running" and state.rounds and state.rounds[-1].undecided \
                and course.window_closes is not None:
            return _playing(course, now, full)
        return Wait("run by its organiser")
    slots = slot_times(state.settings)
    first = min(slots)
    if not state.rounds:
        if first > 1:
            return Wait("waiting for the organiser's round 1")
        if now < slots[1]:
            return Wait("waiting for round 1", slots[1])
        if state.status == "registration":
            return ClosingRegistration() if state.active_count >= 2 else Wait("waiting for teams")
        if state.status == "closed":
            return Drawing() if state.settings.seeding == "draw" else Wait("waiting for the organiser's draw")
        return RoundStarting(1)
    current = state.rounds[-1]
    if current.undecided:
        return _playing(course, now, full)
    if next_round(state) is None:
        return Finishing()
    n = current.number + 1
    if n < first:
        return Wait(f"round {n} is the organiser's to start")
    due = slots.get(n)
    if due is not None and now < due:
        return Wait(f"waiting for round {n}", due)
    return RoundStarting(n)


def _playing(course: Course, now: dt.datetime, full: bool) -> Step:
    """The current round has matches to decide: its check-in, or its tables."""
    n = course.state.rounds[-1].number
    if course.window_closes is None:
        return Playing(n, full)
    if not course.window_closed and now < course.window_closes:
        return CheckingIn(n, course.window_closes)
    return NoShows(n, not course.window_closed)
