"""The daily deal on the platform: a player plays the day's boards of a profile in order, each at a table of
his own (a bot partner, bot opponents), dealt from the day's set; the set's commitment is stored when the
first player starts, its seed when the day closes (docs/daily.md).

Times (UTC): boards of day D may be started until D+1 00:00 (``open_until``); the set closes at D+1 01:00
(``closes_at``), when every board started in time has ended (a player's turn clock is ``turn_seconds``,
then a bot plays his seat). Until the close, a board's table is visible only to its player
(``services/access/policy.py``), and its tables hold their seeds back; after it, its replay, record and
audit are public: the set's seed is revealed on the set's stream by the first request (or the workers' pass)
that finds the set due (``board_set``), and the workers reveal each board table's seed
(``reveal_closed_sets``).
"""

from __future__ import annotations

import datetime as dt
from typing import Callable, Literal

import asyncpg
import msgspec

from domain.baloot import daily
from domain.baloot.bots import LEVELS
from domain.baloot.profiles import PROFILES, profile_named
from services.daily import names
from services.errors import Conflict, NotFound
from services.commands import CommandLoop, Decision
from services.eventstore import Codec, read_stream, reads
from domain.table import Boards
from services.tables import TableOpened, TableService

CODEC = Codec(daily.SET_EVENTS)
BOARDS = 8
TURN_SECONDS = 60.0
BOT_PACE = 1.0             # a person plays with bot partners: he sees each bot's card before the next one's
CLOSE_GRACE = dt.timedelta(hours=1)
MAX_ATTEMPTS = 5           # a set's stream takes three events: its opening, its close, its tables revealed
BOT_SEATS = ("daily-bot-1", "daily-bot-2", "daily-bot-3")      # not user ids (those are hex): nobody's seat


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def set_stream(day: dt.date, profile: str) -> str:
    return f"dailyset-{names.set_id(day, profile)}"


def open_until(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.timezone.utc)


def closes_at(day: dt.date) -> dt.datetime:
    return open_until(day) + CLOSE_GRACE


class BoardStatus(msgspec.Struct, frozen=True):
    board: int
    table_id: str
    status: Literal["playing", "finished"]
    margin: int | None = None         # the player's team's GP minus the other's, once finished


class Entry(msgspec.Struct, frozen=True):
    """A player's day: the boards started so far, in order."""

    day: dt.date
    profile: str
    user_id: str
    boards: int
    played: list[BoardStatus]


def board_margin(table) -> int | None:
    """The result of a finished board table: seat 0's team's margin on its one deal."""
    if table.game.phase != "ended":
        return None
    return daily.margin(tuple(table.game.results[0]) if table.game.results else (0, 0), 0)


class DailyService:
    """``clock`` gives the time (UTC) the day, the opening and the close are read from; ``bot_pace`` the
    least time between two bot actions at a board's table (``TableOpened.bot_pace``)."""

    def __init__(self, pool: asyncpg.Pool, tables: TableService, *, boards: int = BOARDS,
                 bot_level: str = "normal", turn_seconds: float = TURN_SECONDS, bot_pace: float = BOT_PACE,
                 clock: Callable[[], dt.datetime] = utc_now):
        if bot_level not in LEVELS:
            raise ValueError(f"unknown bot level {bot_level!r}")
        self.pool, self.tables, self.boards, self.bot_level = pool, tables, boards, bot_level
        self.turn_seconds, self.bot_pace, self.clock = turn_seconds, bot_pace, clock
        self.commands = CommandLoop(pool, attempts=MAX_ATTEMPTS, rule="daily_set_busy")

    def today(self) -> dt.date:
        return self.clock().date()

    def closed(self, day: dt.date) -> bool:
        return self.clock() >= closes_at(day)

    def takes_boards(self, day: dt.date) -> bool:
        """Whether a player may still start a board of ``day``'s set (``play`` opens today's, until midnight)."""
        return day == self.today() and self.clock() < open_until(day)

    def set_seed(self, day: dt.date, profile: str) -> str:
        return self.tables.seeds.set_seed(names.board_set(day, profile))

    # ------------------------------------------------------------ the set

    async def board_set(self, day: dt.date, profile: str) -> daily.BoardSet:
        """The day's set as published (404 before anyone started it); opens it for the day's first player,
        closes it when due."""
        check_profile(profile)
        state = await self._set(day, profile)
        if state.opened is None:
            if self.closed(day) or day > self.today():
                raise NotFound("unknown_set", f"nobody played the daily set {names.set_id(day, profile)}")
            state = await self._command(day, profile, daily.OpenSet(
                set_id=names.set_id(day, profile), seed=self.set_seed(day, profile), boards=self.boards,
                profile=profile, bot_level=self.bot_level), state)
        elif state.seed is None and self.closed(day):
            state = await self._command(day, profile, daily.CloseSet(self.set_seed(day, profile)), state)
        return state.board_set

    async def _set(self, day: dt.date, profile: str) -> daily.SetState:
        rows = await read_stream(self.pool, set_stream(day, profile))
        state = daily.SetState(version=rows[-1].version if rows else 0)
        for r in rows:
            state = daily.evolve(state, CODEC.decode(r))
        return state

    async def _command(self, day: dt.date, profile: str, command, state: daily.SetState | None = None
                       ) -> daily.SetState:
        """Run a command of the set's stream (``domain.baloot.daily.decide``), decided on ``state`` first if
        given; whoever opens or closes the set first does it (the others find it done). The set after it."""
        async def load(attempt: int) -> daily.SetState:
            return state if attempt == 0 and state is not None else await self._set(day, profile)

        def decide(s: daily.SetState) -> Decision:
            events = daily.decide(s, command)
            return Decision(events, [CODEC.encode(e) for e in events], s.version)

        step = await self.commands.run(set_stream(day, profile), load, decide,
                                       busy=f"the daily set {names.set_id(day, profile)} kept changing; try again")
        after = step.fold
        for e in step.decision.events:
            after = daily.evolve(after, e)
        return after

    async def reveal_closed_sets(self) -> int:
        """Reveal the seeds held back at the finished boards of every set whose day has closed (closing the
        set first, if no request did); once none of its tables is still playing, the set is marked revealed
        (``board_set_revealed``) and not looked at again. Returns how many tables revealed their seeds."""
        streams = await reads.streams_begun_by(self.pool, "board_set_opened", lacking=("board_set_revealed",))
        revealed = 0
        for stream in streams:
            opened = CODEC.decode((await read_stream(self.pool, stream, 1, 1))[0])
            day = dt.date.fromisoformat(opened.set_id.partition("/")[0])
            if not self.closed(day):
                continue
            await self.board_set(day, opened.profile)           # the close, if no request made it
            prefix = names.tables_prefix(day, opened.profile) + "%"
            for table_id in await self.tables.holding_seeds("t.table_id LIKE $1", prefix):
                await self.tables.reveal_held_seeds(table_id)
                revealed += 1
            counts = await self.pool.fetchrow(
                "SELECT count(*) AS tables, count(*) FILTER (WHERE status = 'live') AS live FROM tables_index "
                "WHERE table_id LIKE $1", prefix)
            if counts["live"] == 0:
                await self._command(day, opened.profile, daily.MarkRevealed(counts["tables"]))
        return revealed

    def boards_done(self, opened: TableOpened) -> bool | None:
        """Whether the daily set of ``opened``'s boards has closed; None: they are not a daily set's."""
        day_profile = names.set_of_boards(opened.boards.set) if opened.boards is not None else None
        return None if day_profile is None else self.closed(day_profile[0])

    async def set_opening(self, day: dt.date, profile: str) -> daily.BoardSetOpened | None:
        rows = await read_stream(self.pool, set_stream(day, profile), 1, 1)
        return CODEC.decode(rows[0]) if rows else None

    # ------------------------------------------------------------ a player's day

    async def entry(self, user_id: str, day: dt.date, profile: str) -> Entry:
        check_profile(profile)
        opened = await self.set_opening(day, profile)
        size = opened.boards if opened else self.boards
        played = []
        for n in range(1, size + 1):
            tid = names.table_id(day, profile, n, user_id)
            try:
                table = await self.tables.load(tid)
            except NotFound:
                break
            margin = board_margin(table)
            played.append(BoardStatus(n, tid, "playing" if margin is None else "finished", margin))
        return Entry(day, profile, user_id, size, played)

    async def play(self, user_id: str, profile: str) -> BoardStatus:
        """Open the player's next board of today's set (one attempt: each board once, in order)."""
        day = self.today()
        if self.clock() >= open_until(day):     # unreachable with a real clock; a guard for injected ones
            raise Conflict("day_closed", f"the daily set {names.set_id(day, profile)} takes no new boards")
        bs = await self.board_set(day, profile)
        opening = await self.set_opening(day, profile)
        entry = await self.entry(user_id, day, profile)
        if entry.played and entry.played[-1].status == "playing":
            raise Conflict("board_in_progress", f"finish board {entry.played[-1].board} first (table "
                                                f"{entry.played[-1].table_id})")
        n = len(entry.played) + 1
        if n > bs.size:
            raise Conflict("day_finished", f"you have played the {bs.size} boards of {bs.set_id}; one attempt a "
                                           "day")
        level = opening.bot_level
        tid = names.table_id(day, profile, n, user_id)
        opened = TableOpened(table_id=tid, seats=(user_id, *BOT_SEATS), profile=profile_named(profile),
                             hands_policy="after_deal", opened_by=user_id, bots=(None, level, level, level),
                             turn_seconds=self.turn_seconds, on_timeout="bot", timeout_bot_level=level, deals=1,
                             bot_pace=self.bot_pace,
                             boards=Boards(set=names.board_set(day, profile), first=n))
        await self.tables.open_table(opened)
        return BoardStatus(n, tid, "playing")

    # ------------------------------------------------------------ hidden information

    def why_hidden(self, opened: TableOpened) -> str:
        day, profile = names.set_of_boards(opened.boards.set)
        return (f"the boards of the daily set {names.set_id(day, profile)} stay hidden until it closes at "
                f"{closes_at(day).isoformat()}; each player sees only his own")


def check_profile(profile: str) -> None:
    if profile not in PROFILES:
        raise NotFound("unknown_profile", f"no rule profile {profile!r} (profiles: {', '.join(PROFILES)})")
