"""The daily deal: the day's set (commitment, then seed), playing its boards, leaderboards, a board's field,
a player's history (docs/daily.md). Who may see what is the access policy's (``services/access/policy.py``)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from litestar import Router, get, post
from litestar.params import FromPath, FromQuery, Parameter

from services.api.deps import Caller, Daily, Pool
from services.access import policy
from services.api.problems import Problem
from services.daily import projection as rm
from services.daily.service import BoardStatus, Entry, check_profile, closes_at
from services.api.schemas_daily import DailySet


LIVE_REFRESH = 10.0       # seconds: an open day's scores are recomputed at most this often (docs/daily.md)


# The days a daily set may have (a day and a month around it stay dates the calendar can hold).
FIRST_DAY, LAST_DAY = dt.date(2000, 1, 1), dt.date(9000, 12, 31)


def _day(text: str) -> dt.date:
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise Problem(400, "invalid_field", f"day {text!r} is not a date (YYYY-MM-DD)", field="day") from None
    if not FIRST_DAY <= day <= LAST_DAY:
        raise Problem(400, "invalid_field", f"day {text} is not a day of the daily deal ({FIRST_DAY} to "
                                            f"{LAST_DAY})", field="day")
    return day


@get("/daily/{day:str}/{profile:str}", operation_id="dailySet",
     summary="The day's set of boards: its commitment (published when it opened) and, once closed, its seed")
async def daily_set(day: FromPath[str], profile: FromPath[str], user: Caller, daily: Daily) -> DailySet:
    d = _day(day)
    bs = await daily.board_set(d, profile)
    return DailySet(bs.set_id, bs.size, bs.commitment, closes_at(d), bs.seed, daily.takes_boards(d))


@post("/daily/{profile:str}/play", operation_id="playDaily", refuses=(409,), status_code=201,
      summary="Open your next board of today's set (in order, each once): a table with a bot partner against "
              "bot opponents")
async def play_daily(profile: FromPath[str], user: Caller, daily: Daily) -> BoardStatus:
    return await daily.play(user.user_id, profile)


@get("/daily/{day:str}/{profile:str}/entry", operation_id="dailyEntry",
     summary="Your boards of the day: their tables and results")
async def daily_entry(day: FromPath[str], profile: FromPath[str], user: Caller, daily: Daily) -> Entry:
    return await daily.entry(user.user_id, _day(day), profile)


@get("/daily/{day:str}/{profile:str}/leaderboard", operation_id="dailyLeaderboard", refuses=(403,),
     summary="The day's leaderboard (live while the set is open, final after), a page after rank `after`")
async def daily_leaderboard(day: FromPath[str], profile: FromPath[str], user: Caller, pool: Pool, daily: Daily,
                            scoring: FromQuery[Literal["mp", "imps"]] = "mp",
                            after: int = Parameter(default=0, ge=0, le=2**31 - 1),
                            limit: int = Parameter(default=50, ge=1, le=500)) -> rm.Page:
    d = _day(day)
    bs = await daily.board_set(d, profile)       # 404 for a set nobody played; closes it when due
    if not daily.closed(d):
        policy.daily_leaderboard(False, await rm.boards_finished(pool, d, profile, user.user_id), bs.size,
                                 closes_at(d).isoformat())
    every = 0.0 if daily.closed(d) else LIVE_REFRESH
    return await rm.leaderboard(pool, d, profile, scoring=scoring, after=after, limit=limit, every=every)


@get("/daily/{day:str}/{profile:str}/boards/{board:int}/field", operation_id="dailyBoardField", refuses=(403,),
     summary="A board's field of results (margin and how many): to its finishers, and to all once closed")
async def daily_board_field(day: FromPath[str], profile: FromPath[str], board: FromPath[int], user: Caller,
                            pool: Pool, daily: Daily) -> list[rm.FieldResult]:
    d = _day(day)
    bs = await daily.board_set(d, profile)
    if not 1 <= board <= bs.size:
        raise Problem(404, "unknown_board", f"the set {bs.set_id} has boards 1 to {bs.size}", field="board")
    if not daily.closed(d):
        policy.daily_field(False, await rm.finished_board(pool, d, profile, board, user.user_id), board,
                           closes_at(d).isoformat())
    return await rm.board_field(pool, d, profile, board)


@get("/daily/rolling/{profile:str}", operation_id="dailyRolling",
     summary="The rolling 30-day board: matchpoints summed over the days ending with `day` (default today)")
async def daily_rolling(profile: FromPath[str], user: Caller, pool: Pool, daily: Daily,
                        day: FromQuery[str | None] = None, after: int = Parameter(default=0, ge=0, le=2**31 - 1),
                        limit: int = Parameter(default=50, ge=1, le=500)) -> rm.Page:
    check_profile(profile)
    last = _day(day) if day else daily.today()
    while not daily.closed(last):                # an open day's scores would show its boards' results
        last -= dt.timedelta(days=1)
    return await rm.rolling(pool, last, profile, after=after, limit=limit)


@get("/daily/players/{user_id:str}/history", operation_id="dailyHistory",
     summary="A player's days, newest first (a page of days before `before`)")
async def daily_history(user_id: FromPath[str], user: Caller, pool: Pool, daily: Daily,
                        before: FromQuery[str | None] = None,
                        limit: int = Parameter(default=30, ge=1, le=365)) -> list[rm.HistoryRow]:
    """A player's own history includes the days still open; another's only the closed ones (an open day's
    scores show its boards' results)."""
    until = None
    if not policy.daily_history_open_days(user_id == user.user_id):
        until = daily.today()
        while not daily.closed(until):
            until -= dt.timedelta(days=1)
    return await rm.history(pool, user_id, before=_day(before) if before else None, limit=limit, until=until)


daily_router = Router(path="/", route_handlers=[
    daily_set, play_daily, daily_entry, daily_leaderboard, daily_board_field, daily_rolling, daily_history,
], tags=["daily"])
