"""The daily deal's read model: results from the board tables' streams (a projection, exactly once per
event, rebuildable from zero), scores against the field recomputed from them in SQL, pages by rank.

``daily_results`` gets a row when a board's deal is scored (or void: a margin of 0). ``daily_scores`` is the
day's standing of each entry — the same numbers as ``domain.baloot.daily.score_day`` (matchpoint shares in
ten-thousandths, IMPs against the rounded mean, ranks by the documented tie-breaks) — recomputed by
``rescore`` from the results when they changed; a leaderboard page is then an index range over a rank.
"""

from __future__ import annotations

import datetime as dt

import asyncpg
import msgspec

from domain.baloot import daily
from services.daily import names
from services.eventstore import RecordedEvent, projection
from services.tables import CODEC as TABLE_CODEC

NAME = "daily_rm"
TABLE_PREFIX = "table-" + names.PREFIX


async def apply_daily(conn: asyncpg.Connection, event: RecordedEvent) -> None:
    """A daily board's deal ended: store its result (other events and streams are not ours)."""
    if event.event_type not in ("deal_scored", "deal_voided") or not event.stream_id.startswith(TABLE_PREFIX):
        return
    board = names.board_of(event.stream_id[len("table-"):])
    if board is None:
        return
    e = TABLE_CODEC.decode(event)
    points = (0, 0) if event.event_type == "deal_voided" else tuple(e.result.game_points)
    done = await conn.execute(
        "INSERT INTO daily_results (day, profile, board, user_id, margin, position) VALUES ($1, $2, $3, $4, $5, $6) "
        "ON CONFLICT DO NOTHING", board.day, board.profile, board.board, board.user_id, daily.margin(points, 0),
        event.position)
    if done.endswith(" 1"):
        await conn.execute(
            "INSERT INTO daily_days (day, profile, results) VALUES ($1, $2, 1) ON CONFLICT (day, profile) "
            "DO UPDATE SET results = daily_days.results + 1", board.day, board.profile)


async def reset_daily(conn: asyncpg.Connection) -> None:
    await conn.execute("TRUNCATE daily_results, daily_days, daily_scores")


def daily_read_model():
    """The projection (for ``ProjectionRunner``, ``run_projection`` and ``rebuild_projection``)."""
    return projection(NAME, apply_daily, reset_daily, stream_prefix=TABLE_PREFIX)     # board tables only


# The scores of one day and profile against the field, ranks included (docs/daily.md): a board's share is
# (2 * beaten + tied) * 10000 / (2 * (n - 1)) rounded down (alone: 5000); IMPs on the difference from the
# datum floor(mean + 1/2); ranks by the chosen total, the other total, boards, earlier finish, user id.
RESCORE = f"""
WITH f AS (
    SELECT user_id, board, margin, position,
           rank() OVER (PARTITION BY board ORDER BY margin) - 1 AS beaten,
           count(*) OVER (PARTITION BY board, margin) - 1 AS tied,
           count(*) OVER (PARTITION BY board) AS n,
           sum(margin) OVER (PARTITION BY board) AS total
    FROM daily_results WHERE day = $1 AND profile = $2
), s AS (
    SELECT user_id,
           sum(CASE WHEN n <= 1 THEN {daily.MP_UNIT // 2}
                    ELSE ((2 * beaten + tied) * {daily.MP_UNIT}) / (2 * (n - 1)) END)::integer AS mp,
           sum(daily_imps(margin - floor((2 * total + n)::numeric / (2 * n))::integer))::integer AS imps,
           count(*)::integer AS boards, max(position) AS finished_at
    FROM f GROUP BY user_id
), r AS (
    SELECT s.*, row_number() OVER (ORDER BY mp DESC, imps DESC, boards DESC, finished_at, user_id) AS mp_rank,
           row_number() OVER (ORDER BY imps DESC, mp DESC, boards DESC, finished_at, user_id) AS imp_rank
    FROM s
)
INSERT INTO daily_scores (day, profile, user_id, mp, imps, boards, finished_at, mp_rank, imp_rank)
SELECT $1, $2, user_id, mp, imps, boards, finished_at, mp_rank, imp_rank FROM r
"""


async def rescore(pool: asyncpg.Pool | asyncpg.Connection, day: dt.date, profile: str,
                  every: float = 0.0) -> None:
    """Recompute the day's scores if results came since the last time and the last time is at least
    ``every`` seconds ago (a live board), one writer at a time."""
    if await pool.fetchval(
            "SELECT results = scored OR coalesce(scored_at > now() - make_interval(secs => $3), false) FROM daily_days "
            "WHERE day = $1 AND profile = $2", day, profile, every) is not False:
        return                              # up to date, fresh enough, or no results at all: no lock taken
    async with _acquire(pool) as conn, conn.transaction():
        row = await conn.fetchrow("SELECT results, scored FROM daily_days WHERE day = $1 AND profile = $2 "
                                  "FOR UPDATE", day, profile)
        if row is None or row["results"] == row["scored"]:
            return
        await conn.execute("SET LOCAL work_mem = '128MB'")      # the field's sorts in memory, not on disk
        await conn.execute("DELETE FROM daily_scores WHERE day = $1 AND profile = $2", day, profile)
        await conn.execute(RESCORE, day, profile)
        await conn.execute("UPDATE daily_days SET scored = $3, scored_at = now() WHERE day = $1 AND profile = $2",
                           day, profile, row["results"])


class _acquire:
    """A connection from a pool, or the connection given."""

    def __init__(self, db):
        self.db, self.conn = db, None

    async def __aenter__(self) -> asyncpg.Connection:
        if isinstance(self.db, asyncpg.Pool):
            self.conn = await self.db.acquire()
            return self.conn
        return self.db

    async def __aexit__(self, *exc) -> None:
        if self.conn is not None:
            await self.db.release(self.conn)


class Row(msgspec.Struct, frozen=True):
    rank: int
    user_id: str
    mp: int              # ten-thousandths of a board: 10,000 = a top
    imps: int
    boards: int


class Page(msgspec.Struct, frozen=True):
    rows: list[Row]
    next_after: int | None         # the last rank of this page: pass it as `after` for the next one


async def leaderboard(pool, day: dt.date, profile: str, *, scoring: str = "mp", after: int = 0,
                      limit: int = 50, every: float = 0.0) -> Page:
    """A page of the day's leaderboard: ranks after ``after`` (keyset on the rank column), the scores at
    most ``every`` seconds behind the results."""
    await rescore(pool, day, profile, every)
    column = "mp_rank" if scoring == "mp" else "imp_rank"
    rows = await pool.fetch(
        f"SELECT {column} AS rank, user_id, mp, imps, boards FROM daily_scores WHERE day = $1 AND profile = $2 "
        f"AND {column} > $3 ORDER BY {column} LIMIT $4", day, profile, after, limit)
    out = [Row(r["rank"], r["user_id"], r["mp"], r["imps"], r["boards"]) for r in rows]
    return Page(out, out[-1].rank if len(out) == limit else None)


class FieldResult(msgspec.Struct, frozen=True):
    margin: int
    count: int


async def board_field(pool, day: dt.date, profile: str, board: int) -> list[FieldResult]:
    """The distribution of a board's results (margin -> how many), best first."""
    rows = await pool.fetch("SELECT margin, count(*) AS n FROM daily_results WHERE day = $1 AND profile = $2 "
                            "AND board = $3 GROUP BY margin ORDER BY margin DESC", day, profile, board)
    return [FieldResult(r["margin"], r["n"]) for r in rows]


async def boards_finished(pool, day: dt.date, profile: str, user_id: str) -> int:
    """How many of the day's boards ``user_id`` has finished."""
    return await pool.fetchval("SELECT count(*) FROM daily_results WHERE day = $1 AND profile = $2 AND user_id = $3",
                               day, profile, user_id)


async def finished_board(pool, day: dt.date, profile: str, board: int, user_id: str) -> bool:
    return bool(await pool.fetchval("SELECT true FROM daily_results WHERE day = $1 AND profile = $2 AND board = $3 "
                                    "AND user_id = $4", day, profile, board, user_id))


class HistoryRow(msgspec.Struct, frozen=True):
    day: dt.date
    profile: str
    mp: int
    imps: int
    boards: int
    mp_rank: int
    imp_rank: int


async def history(pool, user_id: str, *, before: dt.date | None = None, limit: int = 30,
                  until: dt.date | None = None) -> list[HistoryRow]:
    """A player's days, newest first (keyset: ``before`` a day; none after ``until``)."""
    for r in await pool.fetch("SELECT DISTINCT day, profile FROM daily_results WHERE user_id = $1", user_id):
        await rescore(pool, r["day"], r["profile"])
    rows = await pool.fetch(
        "SELECT day, profile, mp, imps, boards, mp_rank, imp_rank FROM daily_scores WHERE user_id = $1 "
        "AND ($2::date IS NULL OR day < $2) AND ($4::date IS NULL OR day <= $4) ORDER BY day DESC, profile "
        "LIMIT $3", user_id, before, limit, until)
    return [HistoryRow(**dict(r)) for r in rows]


async def rolling(pool, last_day: dt.date, profile: str, *, days: int = 30, after: int = 0,
                  limit: int = 50) -> Page:
    """The rolling board: matchpoints summed over the ``days`` days ending with ``last_day`` (ties: IMPs,
    more days, user id), a page after rank ``after``."""
    first = last_day - dt.timedelta(days=days - 1)
    for r in await pool.fetch("SELECT day FROM daily_days WHERE profile = $1 AND day BETWEEN $2 AND $3 "
                              "AND results <> scored", profile, first, last_day):
        await rescore(pool, r["day"], profile)
    rows = await pool.fetch(
        "SELECT * FROM (SELECT row_number() OVER (ORDER BY sum(mp) DESC, sum(imps) DESC, count(*) DESC, user_id) "
        "AS rank, user_id, sum(mp)::integer AS mp, sum(imps)::integer AS imps, count(*)::integer AS days "
        "FROM daily_scores WHERE profile = $1 AND day BETWEEN $2 AND $3 GROUP BY user_id) t "
        "WHERE rank > $4 ORDER BY rank LIMIT $5", profile, first, last_day, after, limit)
    out = [Row(r["rank"], r["user_id"], r["mp"], r["imps"], r["days"]) for r in rows]
    return Page(out, out[-1].rank if len(out) == limit else None)
