"""What a caller may see of a table, decided here for every table route, stream and refusal.

- A **player** (a user seated at the table) sees it as it is, from his own seat: his own cards only.
- A **referee** (the table's, or its championship's referee or organiser, and never one of its players) sees
  it as it is, with hands as a spectator would.
- Anyone else is a **spectator**: the table as it was stored the table's delay ago (``delay_seconds``),
  finished or not, with hands as its ``hands_policy`` allows (``domain`` views: ``never``, ``after_deal``,
  ``always``); hand records and audits only where hands are shown.
- A table of **shared boards** (``table_opened.boards``: a daily board of a set still open, a duplicate
  table of a round still played) is hidden from whoever could carry its cards to another table of the same
  boards: from everyone but its players and the event's officials, until every table of its boards is done
  (the daily set closes; every match of the duplicate round is decided). Its seeds are held back until
  then too (``domain/baloot/game.py``), and its finished deals are not laid open to its players.

Refusals are ``services.errors`` (the API makes problem documents of them): ``board_hidden`` (first,
before any other), ``not_your_seat``, ``not_seated``, ``not_invited``, ``hands_hidden``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from domain.table import game_of
from services.errors import Forbidden
from services.roles import has_role
from services.tables.service import stream_of

if TYPE_CHECKING:
    import asyncpg

    from services.championships import ChampionshipService
    from services.daily.service import DailyService
    from services.tables.service import Table, TableService


class Audience(NamedTuple):
    """Who is asking, as far as hidden information goes."""

    seat: int | None       # a seated player's seat: he sees his own cards, live
    live: bool             # players and referees see the table as it is; spectators behind its delay


class Visibility:
    def __init__(self, pool: asyncpg.Pool, tables: TableService, championships: ChampionshipService,
                 daily: DailyService):
        self.pool, self.tables, self.championships, self.daily = pool, tables, championships, daily

    # ------------------------------------------------------------ who is asking

    async def audience(self, table: Table, user_id: str, wanted: int | None = None) -> Audience:
        """The caller's audience at ``table`` (``wanted``: the seat a player of several seats asks for)."""
        mine = seats_of(table, user_id)
        if not mine:
            await self.check_boards(table, user_id)
        if wanted is not None and wanted not in mine:
            raise Forbidden("not_your_seat", f"seat {wanted} is not yours; you may see only your own cards")
        if mine:
            turn = game_of(table).to_act(table.game)
            seat = wanted if wanted is not None else mine[0] if len(mine) == 1 or turn not in mine else turn
            return Audience(seat, True)
        return Audience(None, await self.is_referee(table, user_id))

    async def player_seat(self, table: Table, user_id: str, wanted: int | None) -> int:
        """The seat a player acts for: ``wanted``, his only one, or the one whose turn it is."""
        mine = seats_of(table, user_id)
        if not mine:
            await self.check_boards(table, user_id)
            raise Forbidden("not_seated", "only the players seated at this table act at it")
        if wanted is not None:
            if wanted not in mine:
                raise Forbidden("not_your_seat", f"seat {wanted} is not yours; a player acts only for its own seat")
            return wanted
        if len(mine) == 1:
            return mine[0]
        turn = game_of(table).to_act(table.game)
        return turn if turn in mine else mine[0]

    async def referee(self, table: Table, user_id: str) -> bool:
        """Whether ``user_id`` referees the table (and may see it: ``check_boards``)."""
        await self.check_boards(table, user_id)
        return await self.is_referee(table, user_id)

    async def invitee(self, table: Table, user_id: str) -> None:
        """Refuse (``not_invited``) a user whom the table did not invite to a seat."""
        if user_id not in table.seats:
            await self.check_boards(table, user_id)
            raise Forbidden("not_invited", f"you are not invited to table {table.table_id}")

    async def is_referee(self, table: Table, user_id: str) -> bool:
        """The table's referee, or its championship's referee or organiser, and never one of its players."""
        o = table.opened or table.proposed
        if user_id in o.seats:
            return False
        return await has_role(self.pool, user_id, "referee", ("table", o.table_id),
                              ("championship", o.championship_id)) or await has_role(
            self.pool, user_id, "organiser", ("championship", o.championship_id))

    async def boards_done(self, opened) -> bool:
        """Whether every table of ``opened``'s shared boards is done: the daily set closed, the duplicate
        round decided (a board set of no known kind never is)."""
        done = self.daily.boards_done(opened)
        if done is None:
            done = await self.championships.boards_done(opened)
        return bool(done)

    async def check_boards(self, table: Table, user_id: str) -> None:
        """Refuse (``board_hidden``) a table of shared boards to anyone but its players and the event's
        officials until every table of its boards is done."""
        o = table.opened
        if o is None or o.boards is None or user_id in o.seats:
            return
        if await self.boards_done(o) or await self.is_referee(table, user_id):
            return
        service = self.daily if self.daily.boards_done(o) is not None else self.championships
        raise Forbidden("board_hidden", service.why_hidden(o))

    # ------------------------------------------------------------ what he sees

    def delay(self, table: Table, audience: Audience) -> float:
        """Seconds a row is held back from ``audience`` after it was stored."""
        return 0.0 if audience.live or table.opened is None else table.opened.delay_seconds

    async def version(self, table: Table, audience: Audience) -> int:
        """How much of the table ``audience`` may see: all of it live, else what was stored at least the
        table's delay ago, finished or not."""
        delay = self.delay(table, audience)
        if delay <= 0:
            return table.version
        return await self.pool.fetchval(
            "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1 "
            "AND recorded_at <= now() - make_interval(secs => $2)", stream_of(table.table_id), delay)

    async def seen(self, table: Table, audience: Audience) -> Table:
        """The table as ``audience`` may see it now: as it is, or, for spectators, as it was the delay ago."""
        version = await self.version(table, audience)
        return table if version == table.version else await self.tables.table_at(table.table_id, version)

    def check_hands(self, table: Table, audience: Audience) -> None:
        """Hand records and audits show every hand: to spectators only where the table shows hands."""
        if not audience.live and (table.opened is None or table.opened.hands_policy == "never"):
            raise Forbidden("hands_hidden", "this table never shows hands to spectators; its players and "
                                            "referees may read its hand records")


def seats_of(table: Table, user_id: str) -> list[int]:
    return [i for i, uid in enumerate(table.seats) if uid == user_id]
