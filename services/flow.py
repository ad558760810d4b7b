"""What follows an append, written in one place and in the order it happens.

The table and championship services store events; this is what happens next, for every process that
stores them (the API, each worker runtime):

1. A table's stream moved (a command, or a table just opened): whatever it now waits for — a bot's turn,
   a turn clock, a recorded deal's review — is handed to the workers.
2. The table's game ended: a table of shared boards whose boards are all done (a daily board finished after
   its set closed) reveals the seeds it held back; in a championship, its match goes on — the match's next
   game opens, or the match's result is recorded on the championship's stream (step 3 follows from that
   append).
3. A championship's stream moved (a result, a round, a check-in): a result that decided a duplicate round
   reveals the seeds its tables held back; its schedule ticks in the workers, which may close registration,
   make the draw, start the next round or finish it.

The circle this closes (a table's append may move its championship on, whose next round opens tables) is
why the flow makes the services whose appends it follows, in order, each given the flow as it is made (they
keep it; none calls it before an append, by when the flow is whole), and reaches them as its own parts:
nothing is handed to it, or to them, afterwards.

``work`` is the workers' side of 1 and 3 (``services.workers.actors.Workers``); without it (an API process
with no workers attached, the tests' plain services) nothing is queued and the reconciler finds the work.
When the broker is away (``work.unavailable`` names its errors) the work is not queued either: the append
stands, the request succeeds, and the reconciler re-derives the work from the log once the broker is back.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from domain.table import game_of
from domain.tournament.events import MatchDoubleForfeited, MatchForfeited, MatchResultRecorded

from services.access import Access
from services.anchor import Signer
from services.championships import ChampionshipService
from services.daily.service import DailyService
from services.tables import TableService
from services.tables.feeds import TableFeeds
from services.tables.seeds import Seeds

if TYPE_CHECKING:
    import asyncpg

    from services.championships import Championship
    from services.tables import Table

log = logging.getLogger("baloot.flow")

MATCH_DECIDED = (MatchResultRecorded, MatchForfeited, MatchDoubleForfeited)


class WorkQueue(Protocol):
    """The workers' side of steps 1 and 3 (``services.workers.actors.Workers``)."""

    unavailable: tuple[type[BaseException], ...]    # what queueing raises while the broker is away

    async def table_moved(self, table: Table) -> None:
        """Queue what the table waits for, if anything."""

    async def tables_moved(self, tables: list[Table]) -> None:
        """Queue what each of the tables waits for (a batch: one hand-over)."""

    async def championship_moved(self, championship_id: str, champ: Championship) -> None:
        """Let the championship's schedule tick."""


class Flow:
    """What follows the appends of the services it makes on ``pool``: ``tables`` (dealt by ``seeds``, folded
    in ``feeds``, receipts signed by ``signer``), ``championships``, ``daily`` (``daily``: its options) and
    ``access`` (what the steps ask: whether a table's shared boards are all done)."""

    def __init__(self, pool: asyncpg.Pool, seeds: Seeds, feeds: TableFeeds, *, work: WorkQueue | None = None,
                 signer: Signer | None = None, daily: dict | None = None):
        self.work = work
        self.tables = TableService(pool, seeds, feeds, self, signer)
        self.championships = ChampionshipService(pool, self.tables, seeds, self)
        self.daily = DailyService(pool, self.tables, **(daily or {}))
        self.access = Access(pool, self.tables, self.championships, self.daily)

    async def table_appended(self, table: Table, events: list) -> None:
        await self._queue(self.work and self.work.table_moved, table)                     # 1.
        if any(isinstance(e, game_of(table).info.end_event) for e in events):             # 2.
            if table.opened.boards is not None and await self.access.boards_done(table.opened):
                await self.tables.reveal_held_seeds(table.table_id)
            await self.championships.matches.game_ended(table)

    async def table_opened(self, table: Table) -> None:
        await self._queue(self.work and self.work.table_moved, table)                     # 1.

    async def tables_opened(self, tables: list[Table]) -> None:
        """A batch of tables opened (a round's): their work handed over at once."""
        await self._queue(self.work and self.work.tables_moved, tables)                   # 1.

    async def championship_appended(self, championship_id: str, champ: Championship, events: list) -> None:
        if any(isinstance(e, MATCH_DECIDED) for e in events):                             # 3.
            await self.championships.matches.reveal_boards(championship_id, champ.state)
        await self._queue(self.work and self.work.championship_moved, championship_id, champ)

    async def _queue(self, hand_over, *args) -> None:
        """Hand work to the workers; with the broker away, leave it to the reconciler (the log holds it)."""
        if hand_over is None:
            return
        try:
            await hand_over(*args)
        except getattr(self.work, "unavailable", ()) as exc:
            log.warning("broker unavailable, %s left to the reconciler: %s: %s",
                        hand_over.__name__, type(exc).__name__, exc)
