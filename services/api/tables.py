"""Live tables: one event stream per table (one game), commands decided by the engine, appended with the
expected version.

A command loads the table (cached state + the events after it), asks ``domain.game.decide``, and appends
at the version it read; a concurrent writer makes the append fail and the command is decided again on the
fresh state (bounded). Event ids derive from the client's command id, and the table remembers which
command ids it applied, so a retried request returns the original outcome and stores nothing new.
Deals are dealt from seeds derived from the server secret (HMAC); the commitment is stored when a deal
starts and the seed revealed when it ends, by the same command that ended it.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import secrets
import uuid
from collections import OrderedDict
from typing import ClassVar, Literal

import asyncpg
import msgspec

from domain import game as game_mod
from domain.events import (
    EVENT_TYPES, DealAnnulled, DealNext, DealScored, DealStarted, DealVoided, DomainError, GameEnded, RevealSeed,
    StartGame,
)
from domain.game import GameState
from domain.profiles import RuleProfile
from services.api.problems import Problem
from services.eventstore import Codec, ConcurrencyError, append, append_reporting, read_stream

MAX_ATTEMPTS = 5
NAMESPACE = uuid.UUID("5c1b4f0e-7a0b-4d7e-9a58-2f4a3b1c9d10")


class TableOpened(msgspec.Struct, frozen=True, tag="table_opened", kw_only=True):
    """The first event of a table's stream: who sits where, the rules, what spectators may see."""

    schema_version: ClassVar[int] = 1
    table_id: str
    seats: tuple[str, str, str, str]                      # user ids, by seat
    profile: RuleProfile
    mode: Literal["strict", "recorded"] = "strict"
    hands_policy: Literal["never", "after_deal", "always"] = "after_deal"
    delay_seconds: float = 0.0
    opened_by: str = ""
    championship_id: str | None = None
    match_id: str | None = None
    game_no: int = 1
    bots: tuple[str | None, str | None, str | None, str | None] = (None, None, None, None)  # bot levels
    turn_seconds: float | None = None                     # the turn clock; None: no clock
    on_timeout: Literal["auto_play", "bot", "forfeit"] = "auto_play"
    review_seconds: float = 30.0                          # recorded tables: time for Qayd after the last trick


class SeatHandedToBot(msgspec.Struct, frozen=True, tag="seat_handed_to_bot", kw_only=True):
    """A seat is played by a bot from now on (its player timed out, or left)."""

    schema_version: ClassVar[int] = 1
    seat: int
    level: str
    reason: str


CODEC = Codec(tuple(EVENT_TYPES) + (TableOpened, SeatHandedToBot))


class Table(msgspec.Struct, frozen=True):
    """A table as the service folds it: its opening, the game, its version and the commands applied."""

    opened: TableOpened | None = None
    game: GameState = game_mod.INITIAL
    version: int = 0
    commands: dict[str, int] = msgspec.field(default_factory=dict)   # command id -> version after it
    bots: tuple[str | None, ...] = (None, None, None, None)          # who plays each seat now
    last_at: datetime.datetime | None = None                         # when the last event was stored


def stream_of(table_id: str) -> str:
    return f"table-{table_id}"


def event_id(table_id: str, command_id: str, k: int) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"{table_id}/{command_id}/{k}")


class Outcome(msgspec.Struct):
    version: int
    replayed: bool = False
    events: list[str] = []


class TableService:
    def __init__(self, pool: asyncpg.Pool, secret: bytes, cache_size: int = 4096):
        self.pool = pool
        self.secret = secret
        self._cache: OrderedDict[str, Table] = OrderedDict()
        self._cache_size = cache_size
        self.game_end_hooks: list = []                   # async fn(service, table) after a game ends
        self.after_append_hooks: list = []               # async fn(service, table) after each append

    # ------------------------------------------------------------ seeds

    def deal_seed(self, table_id: str, deal_no: int) -> str:
        return hmac.new(self.secret, f"{table_id}/deal/{deal_no}".encode(), hashlib.sha256).hexdigest()[:32]

    def first_dealer(self, table_id: str) -> int:
        return hmac.new(self.secret, f"{table_id}/first-dealer".encode(), hashlib.sha256).digest()[0] % 4

    # ------------------------------------------------------------ loading

    async def load(self, table_id: str) -> Table:
        """The table folded up to its last stored event (from the cache plus what came after it)."""
        table = self._cache.get(table_id) or Table()
        rows = await read_stream(self.pool, stream_of(table_id), table.version + 1)
        if not rows and table.opened is None:
            raise Problem(404, "unknown_table", f"there is no table {table_id!r}")
        if rows:
            table = fold_rows(table, rows)
            self._remember(table_id, table)
        return table

    def _remember(self, table_id: str, table: Table) -> None:
        self._cache[table_id] = table
        self._cache.move_to_end(table_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    async def events(self, table_id: str) -> list[tuple[int, object, object]]:
        """Every stored event of the table as (version, recorded_at, decoded event)."""
        rows = await read_stream(self.pool, stream_of(table_id))
        if not rows:
            raise Problem(404, "unknown_table", f"there is no table {table_id!r}")
        return [(r.version, r.recorded_at, CODEC.decode(r)) for r in rows]

    # ------------------------------------------------------------ opening

    async def open_table(self, opened: TableOpened) -> Table:
        """Store ``table_opened``, ``game_started`` and the first deal; safe to call twice."""
        start = StartGame(first_dealer=self.first_dealer(opened.table_id), profile=opened.profile,
                          table=opened.mode)
        game = game_mod.INITIAL
        events: list = [opened]
        for cmd_factory in (lambda: start, lambda: DealNext(seed=self.deal_seed(opened.table_id, 1))):
            new = game_mod.decide(game, cmd_factory())
            for e in new:
                game = game_mod.evolve(game, e)
            events.extend(new)
        await append(self.pool, stream_of(opened.table_id), None,
                     [CODEC.encode(e, event_id=event_id(opened.table_id, "open", k),
                                   metadata={"command_id": "open", "actor": opened.opened_by})
                      for k, e in enumerate(events)])
        await self.pool.execute(
            "INSERT INTO tables_index (table_id, championship_id, match_id, game_no, profile, mode, seats) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING", opened.table_id,
            opened.championship_id, opened.match_id, opened.game_no, opened.profile.name, opened.mode,
            list(opened.seats))
        return await self.load(opened.table_id)

    # ------------------------------------------------------------ commands

    async def execute(self, table_id: str, command_id: str, make_command, *, actor: str,
                      expected_version: int | None = None, table: Table | None = None) -> tuple[Outcome, Table]:
        """Decide and append ``make_command(table)`` at the version read, retrying on conflicts.

        ``table``: the table as the caller just loaded it (saves a read on the first attempt).
        """
        for attempt in range(MAX_ATTEMPTS):
            if attempt or table is None:
                table = await self.load(table_id)
            done = table.commands.get(command_id)
            if done is not None:
                return Outcome(done, replayed=True), table
            if expected_version is not None and expected_version != table.version:
                raise Problem(409, "stale_version", f"the table is at version {table.version}, not "
                                                    f"{expected_version}: reload and decide again",
                              version=table.version)
            command = make_command(table)
            try:
                # A list is already the events (service-level rulings); otherwise the engine decides.
                events = command if isinstance(command, list) else game_mod.decide(table.game, command)
            except DomainError as err:
                raise Problem(409, err.rule, err.message, title="the rules refuse this action") from None
            events = self._with_progress(table_id, table.game, events)
            new = [CODEC.encode(e, event_id=event_id(table_id, command_id, k),
                                metadata={"command_id": command_id, "actor": actor})
                   for k, e in enumerate(events)]
            try:
                version, stored = await append_reporting(self.pool, stream_of(table_id), table.version, new)
            except ConcurrencyError:
                if expected_version is not None:
                    raise Problem(409, "stale_version", "another action was stored first: reload and decide "
                                                        "again") from None
                continue
            if not stored:                  # the same command, delivered twice at once, stored by the other
                return Outcome(version, replayed=True), await self.load(table_id)
            table = fold_appended(table, events, command_id, version)
            self._remember(table_id, table)
            for hook in self.after_append_hooks:
                await hook(self, table)
            if any(isinstance(e, GameEnded) for e in events):
                await self.pool.execute("UPDATE tables_index SET status = 'finished' WHERE table_id = $1",
                                        table_id)
                for hook in self.game_end_hooks:
                    await hook(self, table)
            return Outcome(version, events=[type(e).__struct_config__.tag for e in events]), table
        raise Problem(409, "table_busy", f"table {table_id} kept changing; try again")

    def _with_progress(self, table_id: str, game: GameState, events: list) -> list:
        """Append what follows by itself: a finished deal reveals its seed, then the next deal is dealt."""
        for e in events:
            game = game_mod.evolve(game, e)
        out = list(events)
        deal = game.deal
        if deal.phase in ("scored", "void", "annulled") and deal.commitment and deal.seed is None:
            reveal = RevealSeed(self.deal_seed(table_id, game.deal_no))
            for e in game_mod.decide(game, reveal):
                game = game_mod.evolve(game, e)
                out.append(e)
            if game.phase == "playing":
                for e in game_mod.decide(game, DealNext(seed=self.deal_seed(table_id, game.deal_no + 1))):
                    out.append(e)
        return out


def fold_appended(table: Table, events: list, command_id: str, version: int) -> Table:
    """The table after ``events``, just appended by this process at ``version`` (no read back needed).

    The events' stored time is the database's; until the next read the clock uses this process's now.
    """
    game = table.game
    bots = table.bots
    for e in events:
        if isinstance(e, SeatHandedToBot):
            bots = bots[:e.seat] + (e.level,) + bots[e.seat + 1:]
        else:
            game = game_mod.evolve(game, e)
    return Table(table.opened, game, version, {**table.commands, command_id: version}, bots,
                 datetime.datetime.now(datetime.timezone.utc))


def fold_rows(table: Table, rows) -> Table:
    """Fold stored rows into ``table``."""
    game = table.game
    opened = table.opened
    commands = table.commands
    bots = table.bots
    added = {}
    decode = CODEC.decode
    evolve = game_mod.evolve
    for r in rows:
        e = decode(r)
        if isinstance(e, TableOpened):
            opened = e
            bots = e.bots
        elif isinstance(e, SeatHandedToBot):
            bots = bots[:e.seat] + (e.level,) + bots[e.seat + 1:]
        else:
            game = evolve(game, e)
        meta = r.metadata
        cid = meta.get("command_id")
        if cid:
            added[cid] = r.version
    if added:
        commands = {**commands, **added}
    return Table(opened, game, rows[-1].version, commands, bots, rows[-1].recorded_at)


async def server_secret(pool: asyncpg.Pool) -> bytes:
    """The secret deal seeds derive from: created once, kept in the database."""
    await pool.execute("INSERT INTO server_secret (secret) VALUES ($1) ON CONFLICT DO NOTHING",
                       secrets.token_bytes(32))
    return await pool.fetchval("SELECT secret FROM server_secret")


def deal_spans(events) -> list[tuple[int, int, list]]:
    """Each deal of a table as (deal_no, first version, its events), from ``deal_started`` on."""
    spans: list[tuple[int, int, list]] = []
    for version, _, e in events:
        if isinstance(e, DealStarted):
            spans.append((len(spans) + 1, version, [e]))
        elif spans and not isinstance(e, (GameEnded, TableOpened)):
            spans[-1][2].append(e)
    return spans


def deal_finished(deal_events) -> bool:
    return any(isinstance(e, (DealScored, DealVoided, DealAnnulled)) for e in deal_events)


