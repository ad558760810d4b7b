"""Live tables: one event stream per table (one game), commands decided by the engine, appended with the
expected version.

A command runs the command loop (``services/commands.py``): it loads the table (cached state + the events
after it), asks ``domain.table.decide``, and appends at the version it read; a concurrent writer makes the
append fail and the command is decided again on the fresh state (bounded). A command id belongs to the one who sent it: the table remembers, per (actor,
command id), the version it led to and a digest of the command, so a retried request returns the original
outcome and stores nothing new, the same id from someone else is another command, and the same id with
another command is refused (``command_id_reused``). Event ids derive from table, actor and command id.

Deals are dealt from seeds derived from the server secret (``services/tables/seeds.py``), which is kept
outside the database: ``deal_started`` stores the commitment, the cards are the private ``cards_dealt`` that
this service re-derives from the seed whenever it folds the stream, and the seed is revealed (stored) when
the deal ends, by the same command that ended it. A reader of the database sees no live hand.

The folded tables are the process's ``TableFeeds`` (``services/tables/feeds.py``), shared with the live
streams; what follows an append is the ``Flow``'s (``services/flow.py``).

A table opened by a user seats other people only with their consent: ``table_proposed`` names the seats,
each invited player's ``invitation_accepted`` follows, and the last acceptance opens the game (a decline
cancels the table). Championship tables open at once: their players agreed when they registered.
"""

from __future__ import annotations

import datetime
import logging
import uuid
from typing import TYPE_CHECKING

import asyncpg
import msgspec

from domain import table as table_rules
from domain.baloot.events import DealAnnulled, DealScored, DealStarted, DealVoided, GameEnded, SeedRevealed
from domain.errors import DomainError
from domain import games
from domain.table import TABLE_EVENTS, AnswerInvitation, RulingMade, TableOpened, TableProposed, TableState, game_of
from services.anchor import Receipt, Signer, ruling_ref, sign_receipt, store_receipt
from services import proposals
from services.errors import NotFound, StaleVersion
from services.tables.seeds import boards_named_by_id
from services.eventstore import reads
from services.eventstore import (
    Codec, ConcurrencyError, DuplicateEventError, Upcasters, append, append_many, read_stream,
)
from services.commands import NONE_APPLIED, Applied, CommandLoop, CommandOutcome, Decision, Stale, command_digest
from services.commands import event_id as stream_event_id

log = logging.getLogger("baloot.tables")
MAX_ATTEMPTS = 5
NAMESPACE = uuid.UUID("5c1b4f0e-7a0b-4d7e-9a58-2f4a3b1c9d10")

if TYPE_CHECKING:
    from services.flow import Flow
    from services.tables.feeds import TableFeeds
    from services.tables.seeds import Seeds

UPCASTERS = Upcasters()
# ``deal_started`` v1 always stored the deck, v2 only an explicit one: a v1 event reads as it is (those deals
# were dealt before the cards left the log).
UPCASTERS.same("deal_started", 1)
UPCASTERS.register("table_opened", 1)(boards_named_by_id)


# Every game's stored events (their tags never meet) and the table's own.
CODEC = Codec(tuple(dict.fromkeys(t for g in games.every() for t in g.info.event_types)) + TABLE_EVENTS, UPCASTERS)


class Table(TableState, frozen=True):
    """A table as the service folds it: the table's state (``domain.table``), its stream version, the commands
    applied (but the bots'), when its last event was stored, and the seats timed out since a player acted."""

    version: int = 0
    commands: Applied = NONE_APPLIED                                 # (actor, command id) -> (version, digest)
    last_at: datetime.datetime | None = None                         # when the last event was stored
    timeouts: tuple[int, ...] = ()                                   # seats timed out since a player acted


_INDEX = ("INSERT INTO tables_index (table_id, championship_id, match_id, game_no, profile, mode, seats, status, "
          "shared) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (table_id) DO UPDATE SET status = $8 "
          "WHERE tables_index.status = 'invited'")

# A proposed table's row names its proposer; the caps count the tables still waiting for answers ('invited'):
# the proposer's, and those seating an invitee (his own proposals apart, as the lobby lists them).
_INDEX_PROPOSED = ("INSERT INTO tables_index (table_id, championship_id, match_id, game_no, profile, mode, seats, "
                   "status, shared, proposed_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
_PENDING_OF_PROPOSER = "SELECT count(*) FROM tables_index WHERE status = 'invited' AND proposed_by = $1"
_PENDING_OF_INVITEE = ("SELECT count(*) FILTER (WHERE proposed_by = $1), count(*) FROM tables_index "
                       "WHERE status = 'invited' AND seats @> ARRAY[$2] AND proposed_by IS DISTINCT FROM $2")


def stream_of(table_id: str) -> str:
    return f"table-{table_id}"


def event_id(table_id: str, actor: str, command_id: str, k: int) -> uuid.UUID:
    return stream_event_id(NAMESPACE, table_id, actor, command_id, k)


class TableService:
    """Tables for the API and the workers: ``seeds`` deal them, ``feeds`` keep their folds, ``flow`` says what
    follows an append and ``signer`` signs the stream head when a deal or the game ends."""

    def __init__(self, pool: asyncpg.Pool, seeds: Seeds, feeds: TableFeeds, flow: Flow | None = None,
                 signer: Signer | None = None):
        self.pool, self.seeds, self.feeds, self.flow, self.signer = pool, seeds, feeds, flow, signer
        self.commands = CommandLoop(pool, attempts=MAX_ATTEMPTS, rule="table_busy")

    def fold(self, table: Table, rows) -> Table:
        """Fold stored rows into ``table``, re-deriving the private events of its seeded deals (turns)."""
        return fold_rows(table, rows, self.seeds.deal_seed)

    # ------------------------------------------------------------ loading

    async def load(self, table_id: str) -> Table:
        """The table folded up to its last stored event (from the cache plus what came after it)."""
        table = self.feeds.get(table_id) or Table()
        rows = await read_stream(self.pool, stream_of(table_id), table.version + 1)
        if not rows and table.version == 0:
            raise NotFound("unknown_table", f"there is no table {table_id!r}")
        if rows:
            table = self.fold(table, rows)
            self.feeds.keep(table_id, table)
        return table

    async def table_at(self, table_id: str, version: int) -> Table:
        """The table as it was after its event ``version`` (folded from the start)."""
        rows = await read_stream(self.pool, stream_of(table_id), 1, version)
        return self.fold(Table(), rows) if rows else Table()

    async def events(self, table_id: str, up_to: int | None = None) -> list[tuple[int, object, object]]:
        """The table's events as (version, recorded_at, event), up to version ``up_to`` (None: all), with
        each seeded deal's (turn's) private events put back after the event committing to it (same version)."""
        rows = await read_stream(self.pool, stream_of(table_id), 1, up_to)
        if not rows and up_to != 0:
            raise NotFound("unknown_table", f"there is no table {table_id!r}")
        out = []
        table = Table()
        for r in rows:
            e = CODEC.decode(r)
            out.append((r.version, r.recorded_at, e))
            table = table_rules.evolve(table, e)
            if table.opened is not None and type(e) is game_of(table).info.seeded_event:
                for p in private_events(game_of(table), table, e, self.seeds.deal_seed):
                    table = table_rules.evolve(table, p)
                    out.append((r.version, r.recorded_at, p))
        return out

    # ------------------------------------------------------------ opening

    def opening(self, opened: TableOpened) -> list:
        """The events that open a table's game: ``table_opened``, then the game's start and its first deal
        (turn), from the table's seeds."""
        game = games.get(opened.game)
        return [opened, *game.open(len(opened.seats), self.seeds.first_dealer(opened), game.profile_of(opened),
                                   lambda n: self.seeds.deal_seed(opened, n), opened.table_mode)]

    async def open_table(self, opened: TableOpened) -> Table:
        """Open a table whose players need not be asked (a championship's); safe to call twice, and by two
        openers at once (two players checking in together): the table is the one stored first."""
        try:
            await append(self.pool, stream_of(opened.table_id), 0,
                         self._encode(opened.table_id, opened.opened_by, "open", "system", self.opening(opened)))
        except (ConcurrencyError, DuplicateEventError):
            pass                                       # opened already: the table as stored
        await self._index(opened, "live")
        table = await self.load(opened.table_id)
        if self.flow is not None:
            await self.flow.table_opened(table)
        return table

    async def open_tables(self, openings: list[TableOpened], chunk: int = 256) -> list[Table]:
        """Open many tables whose players need not be asked (a round's) in a round trip per ``chunk``: their
        opening appends and index rows in one transaction, each table folded here (no read back), the flow
        told of all at once. A chunk that meets a table opened meanwhile (a concurrent opener) is opened
        table by table instead (``open_table``, safe twice)."""
        out: list[Table] = []
        for i in range(0, len(openings), chunk):
            part = openings[i:i + chunk]
            stored = [(o, self.opening(o)) for o in part]
            appends = [(stream_of(o.table_id), 0, self._encode(o.table_id, o.opened_by, "open", "system", events))
                       for o, events in stored]
            try:
                at = await append_many(self.pool, appends, also=[(_INDEX, [self._index_row(o, "live") for o in part])])
            except (ConcurrencyError, DuplicateEventError, asyncpg.UniqueViolationError):
                out.extend([await self.open_table(o) for o in part])
                continue
            tables = []
            for (o, events), (_, _, new) in zip(stored, appends):
                table = fold_each(Table(), as_stored(1, at, events, new), self.seeds.deal_seed)[-1][2]
                self.feeds.keep(o.table_id, table)
                tables.append(table)
            if self.flow is not None:
                await self.flow.tables_opened(tables)
            out.extend(tables)
        return out

    async def propose_table(self, opened: TableOpened, accepted: set[str]) -> Table:
        """Invite the seated users not in ``accepted``; with nobody left to ask, the table opens at once.

        Within the caps on proposals waiting for answers (``services/proposals.py``: per proposer, per proposer
        and invitee, per invitee), counted on the table index and checked before anything is stored: the
        proposal, its index row (with its proposer) and the counts are one transaction under the people's
        proposal locks."""
        waiting = tuple(dict.fromkeys(u for u in opened.seats if u not in accepted))
        if not waiting:
            return await self.open_table(opened)
        proposal = TableProposed(table=opened, waiting=waiting)
        by = opened.opened_by

        async def within_caps(conn) -> None:
            await proposals.within_caps(conn, "tables", "tables", by, waiting, _PENDING_OF_PROPOSER,
                                        _PENDING_OF_INVITEE)

        async def index(conn) -> None:
            await conn.execute(_INDEX_PROPOSED, *self._index_row(opened, "invited"), by)

        await self.commands.append(stream_of(opened.table_id), Decision(
            [proposal], self._encode(opened.table_id, by, "propose", "player", [proposal]), 0, check=within_caps,
            also=index))
        return await self.load(opened.table_id)

    async def answer_invitation(self, table_id: str, user: str, accept: bool) -> tuple[CommandOutcome, Table]:
        """An invited user accepts (the last acceptance opens the game) or declines (the table is cancelled)."""
        answer = AnswerInvitation(user=user, accept=accept)
        outcome, table = await self.execute(table_id, "accept" if accept else "decline", lambda _: answer,
                                            actor=user, role="player", digest="answer")
        if table.opened is not None or table.cancelled:
            await self._index(table.proposed, "cancelled" if table.cancelled else "live")
        return outcome, table

    async def _index(self, opened: TableOpened, status: str) -> None:
        await self.pool.execute(_INDEX, *self._index_row(opened, status))

    @staticmethod
    def _index_row(opened: TableOpened, status: str) -> tuple:
        return (opened.table_id, opened.championship_id, opened.match_id, opened.game_no,
                games.get(opened.game).profile_of(opened).name, opened.table_mode, list(opened.seats), status,
                opened.boards is not None)

    def _encode(self, table_id: str, actor: str, command_id: str, role: str, events, digest: str = "",
                seat: int | None = None) -> list:
        """The stored form of ``events`` (private ones are left out), ids from table, actor and command."""
        metadata = {"command_id": command_id, "actor": actor, "role": role, "digest": digest}
        if seat is not None:
            metadata["seat"] = seat
        stored = [e for e in events if not getattr(e, "private", False)]
        return [CODEC.encode(e, event_id=event_id(table_id, actor, command_id, k), metadata=metadata)
                for k, e in enumerate(stored)]

    # ------------------------------------------------------------ commands

    async def execute(self, table_id: str, command_id: str, make_command, *, actor: str, role: str,
                      digest: str, seat: int | None = None, expected_version: int | None = None,
                      table: Table | None = None, read: bool = True) -> tuple[CommandOutcome, Table]:
        """Decide and append ``make_command(table)`` at the version read, retrying on conflicts.

        The caller has already checked that ``actor`` may send this command. ``role`` says who acts
        (player, bot, clock, referee, system), ``digest`` what the command says (``command_digest``), and
        ``table`` is the table as the caller just loaded it (saves a read on the first attempt), or, with
        ``read`` False, this process's own fold of it, possibly behind: the append at its version fails if
        so, and nothing is refused (a rule, a stale version) on a table that was not read.
        """
        given, trusted = table, read

        async def load(attempt: int) -> Table:
            nonlocal trusted
            if attempt == 0 and given is not None:
                return given
            trusted = True
            return await self.load(table_id)

        def decide(table: Table) -> Decision:
            if expected_version is not None and expected_version != table.version:
                if not trusted:
                    raise Stale
                raise StaleVersion("stale_version", f"the table is at version {table.version}, not "
                                                    f"{expected_version}: reload and decide again",
                                   version=table.version)
            command = make_command(table)
            try:
                decided, more, after = table_rules.decide_followed(     # a DomainError names the refused rule
                    table, command, lambda n: self.seeds.deal_seed(table.opened or table.proposed, n), self.opening)
            except DomainError:
                if not trusted:
                    raise Stale from None
                raise
            events = decided + more
            return Decision(events, self._encode(table_id, actor, command_id, role, events, digest, seat),
                            table.version, after=after)

        step = await self.commands.run(stream_of(table_id), load, decide, command=(actor, command_id, digest),
                                       busy=f"table {table_id} kept changing; try again")
        if step.replayed is not None:
            return step.replayed, step.fold
        appended = step.appended
        if appended is None or not appended.stored:     # the same command, delivered twice at once, stored by
            table = await self.load(table_id)           # the other (or nothing to store)
            return CommandOutcome(appended.version if appended else table.version, replayed=True), table
        before, events = step.fold, step.decision.events
        table = appended_fold(before, step.decision.after, (actor, command_id), (appended.version, digest), role,
                              seat, appended.recorded_at)
        return await self._appended(table_id, before, table, events, step.decision.rows, appended), table

    async def play_bots(self, table_id: str, version: int, choose, table: Table | None = None
                        ) -> tuple[CommandOutcome, Table | None]:
        """The run of bot turns due at ``version`` (``domain.table.bot_run``; at a paced table, one turn),
        decided at once and stored as one append at that version: each turn stays its own command
        (``bot:<version before it>``, its bot as actor, its seat) with its own events, as if the bots had
        acted one by one. When it is due is the caller's to know (``services/tables/pending.py``).

        ``table`` may be this process's cached fold (no read first): a stale one makes the append fail,
        and the table is read and the run decided again. StaleVersion once the table is past ``version``.
        The table after the run; None when the run was replayed (another delivery stored it first and goes
        on from it: reading the table back for a caller that stops there would cost a whole game's fold).
        """
        given, first = table, True

        async def load(attempt: int) -> Table:
            nonlocal first
            first = attempt == 0
            table = given if first and given is not None else await self.load(table_id)
            if table.version != version:
                raise StaleVersion("stale_version", f"the table is at version {table.version}, not {version}",
                                   version=table.version)
            return table

        def decide(table: Table) -> Decision:
            turns, after = table_rules.bot_run(table, choose, lambda n: self.seeds.deal_seed(table.opened, n))
            if not turns:
                raise StaleVersion("stale_version", f"no bot is to act at version {version}", version=version)
            new, v = [], version
            for t in turns:
                if t.failure is not None and first:
                    log.error("table %s: the %s bot at seat %d failed at version %d (%s); it played %r, as the "
                              "table's clock would", table_id, t.level, t.seat, v, t.failure, t.command,
                              extra={"table_id": table_id, "seat": t.seat, "version": v, "bot_failure": t.failure})
                digest = command_digest(t.command)
                encoded = self._encode(table_id, f"bot:{t.level}", f"bot:{v}", "bot", t.events, digest, t.seat)
                new.extend(encoded)
                v += len(encoded)
            return Decision([e for t in turns for e in t.events], new, version, after=after)

        step = await self.commands.run(stream_of(table_id), load, decide,
                                       busy=f"table {table_id} kept changing; try again")
        appended = step.appended
        if appended is None or not appended.stored:     # the same run, decided at once by another delivery,
            # stored first: whoever stored it goes on
            return CommandOutcome(appended.version if appended else step.fold.version, replayed=True), None
        # The run's own fold (bot turns leave the timed-out seats as they were).
        before = step.fold
        table = msgspec.structs.replace(step.decision.after, version=appended.version, last_at=appended.recorded_at,
                                        commands=before.commands)     # bots' are not kept (``_folds``)
        return await self._appended(table_id, before, table, step.decision.events, step.decision.rows,
                                    appended), table

    async def holding_seeds(self, condition: str, *args) -> list[str]:
        """The finished tables of shared boards that match ``condition`` (SQL on the table index ``t``,
        parameters from $1) and have revealed no seed yet (a table of shared boards holds every seed back,
        and reveals them all at once)."""
        finished = [r["table_id"] for r in await self.pool.fetch(
            f"SELECT t.table_id FROM tables_index t WHERE t.shared AND t.status = 'finished' AND {condition}", *args)]
        revealed = await reads.streams_holding(self.pool, [stream_of(t) for t in finished], ("seed_revealed",))
        return [t for t in finished if stream_of(t) not in revealed]

    async def reveal_held_seeds(self, table_id: str) -> CommandOutcome | None:
        """Reveal the seeds a table of shared boards held back (once every table of its boards is done: the
        caller's to know); None when it holds none."""
        table = await self.load(table_id)
        command = game_of(table).reveal_held(table.game, lambda n: self.seeds.deal_seed(table.opened, n))
        if command is None:
            return None
        outcome, _ = await self.execute(table_id, "reveal-held-seeds", lambda _: command, actor="system",
                                        role="system", digest=command_digest(command), table=table)
        return outcome

    async def _appended(self, table_id: str, before: Table, table: Table, events: list, new: list,
                        appended) -> CommandOutcome:
        """After the append of ``events`` (stored as ``new``) that made ``table`` from ``before``: keep its
        fold, hand it to this process's followers of the table (no read back), sign a deal's or the game's
        end, mark a finished game in the index, tell the flow, and say what was stored."""
        self.feeds.appended(table_id, table, as_stored(appended.version - len(new) + 1, appended.recorded_at,
                                                       events, new))
        receipts = await self._sign(table_id, before, events, appended)
        version = appended.version
        if any(isinstance(e, game_of(table).info.end_event) for e in events) and table.opened is not None:
            await self.pool.execute("UPDATE tables_index SET status = 'finished' WHERE table_id = $1", table_id)
        if self.flow is not None:
            await self.flow.table_appended(table, events)
        return CommandOutcome(version, events=[type(e).__struct_config__.tag for e in events
                                               if not getattr(e, "private", False)], receipts=receipts)

    async def _sign(self, table_id: str, table: Table, events: list, appended) -> list[Receipt]:
        """Sign the stream head when this append ended a deal (its seed is revealed; games with such a
        ``receipt_event``) or the game, or holds a referee's ruling, and keep the receipts (given to the players, and put in the deal's
        hand record)."""
        if self.signer is None:
            return []
        out = []
        game = game_of(table)
        receipt_event = game.info.receipt_event
        # A deal's seed revealed: at its end (the deal before this append), or held back and revealed later
        # (an earlier deal, named by the event).
        deals = dict.fromkeys(getattr(e, "deal_no", None) or table.game.deal_no for e in events
                              if receipt_event is not None and isinstance(e, receipt_event))
        for deal_no in deals:
            out.append(sign_receipt(self.signer, stream_of(table_id), appended.version, appended.head_hash, "deal",
                                    deal_no))
        if any(isinstance(e, game.info.end_event) for e in events):
            out.append(sign_receipt(self.signer, stream_of(table_id), appended.version, appended.head_hash, "game",
                                    table_id))
        for e in events:
            if isinstance(e, RulingMade):
                out.append(sign_receipt(self.signer, stream_of(table_id), appended.version, appended.head_hash,
                                        "ruling", ruling_ref(e.part_no, e.call)))
        for receipt in out:
            await store_receipt(self.pool, receipt)
        return out


class SecretMismatch(RuntimeError):
    """The configured server secret is not the one a stored deal was dealt with."""


def _timeouts(table: Table, role: str, seat: int | None) -> tuple[int, ...]:
    """The seats timed out since a player last acted: a player's action ends the run, a clock's adds to it."""
    if role == "player":
        return ()
    if role == "clock" and seat is not None:
        return table.timeouts + (seat,)
    return table.timeouts


def _fold_event(table: Table, e, seed_of) -> Table:
    """One event into the table (``domain.table.evolve``), with a seeded deal's (turn's) private events
    re-derived by its game."""
    table = table_rules.evolve(table, e)
    if seed_of is not None and table.opened is not None:
        game = game_of(table)
        if type(e) is game.info.seeded_event:
            for p in private_events(game, table, e, seed_of):
                table = table_rules.evolve(table, p)
    return table


def private_events(game, table: Table, e, seed_of) -> list:
    """The private events (cards dealt, dice drawn) of a seeded deal or turn, re-derived from its seed and
    checked against the commitment."""
    opened = table.opened
    try:
        return game.private_events(table.game, e, lambda n: seed_of(opened, n))
    except ValueError as exc:
        # Another secret than the one that dealt.
        raise SecretMismatch(f"table {opened.table_id}: {exc}: the server secret does not give the seed committed to; "
                             "is BALOOT_SECRET the one this table was dealt with?") from None


def appended_fold(table: Table, after: Table, key: tuple[str, str], done: tuple[int, str], role: str,
                  seat: int | None, recorded_at: datetime.datetime) -> Table:
    """``after`` (``table`` with the events just appended by this process, folded as they were decided: no
    read back) with the append's version, command id, stored time and timeouts."""
    return msgspec.structs.replace(after, version=done[0], commands=table.commands.plus({key: done}),
                                   last_at=recorded_at, timeouts=_timeouts(table, role, seat))


def fold_rows(table: Table, rows, seed_of=None) -> Table:
    """Fold stored rows into ``table``; ``seed_of(table_opened, deal_no)`` re-derives each seeded deal's cards
    (without it, the hands of deals in progress stay unknown)."""
    applied = {}
    for table, key, done in _folds(table, stored_rows(rows), seed_of):
        if key[1]:
            applied[key] = done
    return msgspec.structs.replace(table, version=rows[-1].version, commands=table.commands.plus(applied),
                                   last_at=rows[-1].recorded_at)


def fold_each(table: Table, stored, seed_of=None) -> list[tuple[int, datetime.datetime, Table]]:
    """The table after each of ``stored`` ((version, recorded_at, event, metadata) of one stream, in version
    order, starting after ``table``'s): each state as ``fold_rows`` of the rows up to it gives it. For live
    followers: from rows read back, or from an append this process made (no read)."""
    out = []
    commands = table.commands
    for (version, recorded_at, _, _), (table, key, done) in zip(stored, _folds(table, stored, seed_of)):
        if key[1]:
            commands = commands.plus({key: done})
        out.append((version, recorded_at,
                    msgspec.structs.replace(table, version=version, last_at=recorded_at, commands=commands)))
    return out


def _folds(table: Table, stored, seed_of):
    """Each stored event folded in turn (the seeded deals' private events re-derived), the timed-out seats
    moved on at each command's first event: yields the table after it, its command's key (actor, command
    id) and (version, digest). Version, commands and stored time are the caller's to set."""
    previous = None
    for version, _, event, meta in stored:
        table = _fold_event(table, event, seed_of)
        key = (meta.get("actor", ""), meta.get("command_id"))
        if key != previous:             # a command's first event (an append is never read in part)
            table = msgspec.structs.replace(table, timeouts=_timeouts(table, meta.get("role", ""), meta.get("seat")))
        previous = key
        # A bot's command is never asked for again by its id (a bot turn delivered twice is told by the
        # store, from its events' ids): kept, the commands would be copied whole at every bot run.
        yield table, (key if meta.get("role") != "bot" else (key[0], None)), (version, meta.get("digest", ""))


def as_stored(first_version: int, recorded_at: datetime.datetime, events: list, new: list
              ) -> list[tuple[int, datetime.datetime, object, dict]]:
    """An append made here as ``fold_each`` takes it: the stored ones of ``events`` (private ones are not
    stored) with their versions from ``first_version``, their stored time and the metadata of their rows
    ``new`` (``TableService._encode``)."""
    stored = [e for e in events if not getattr(e, "private", False)]
    return [(first_version + k, recorded_at, e, n.metadata) for k, (e, n) in enumerate(zip(stored, new))]


def stored_rows(rows) -> list[tuple[int, datetime.datetime, object, dict]]:
    """Rows read back as ``fold_each`` takes them."""
    return [(r.version, r.recorded_at, CODEC.decode(r), r.metadata) for r in rows]


def deal_spans(events) -> list[tuple[int, int, list]]:
    """Each deal of a table as (deal_no, first version, its events), from ``deal_started`` on; a seed held
    back and revealed later joins the deal it names."""
    spans: list[tuple[int, int, list]] = []
    for version, _, e in events:
        if isinstance(e, DealStarted):
            spans.append((len(spans) + 1, version, [e]))
        elif isinstance(e, SeedRevealed) and e.deal_no is not None and 1 <= e.deal_no <= len(spans):
            spans[e.deal_no - 1][2].append(e)
        elif spans and not isinstance(e, (GameEnded, TableOpened)):
            spans[-1][2].append(e)
    return spans


def deal_rows(events, deal_events: list) -> list:
    """The rows (version, at, event) of ``deal_events``, the very events ``deal_spans`` put in a deal, in the
    deal's order: each event with its stream version."""
    ids = {id(e) for e in deal_events}
    return [row for row in events if id(row[2]) in ids]


def deal_finished(deal_events) -> bool:
    """Whether a deal is over: played out, void, annulled, or stopped by the game's end (its seed revealed)."""
    return any(isinstance(e, (DealScored, DealVoided, DealAnnulled, SeedRevealed)) for e in deal_events)


