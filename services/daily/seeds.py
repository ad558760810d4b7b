"""Which tables are boards of the daily deal, and their seeds: derived from the server secret and the
table id alone, so that the table service deals them like any table (``TableService.deal_seed``).

A daily board's table id is ``daily.<day>.<profile>.<board>.<user id>``: the day's set of a profile is
``<day>/<profile>``, its seed ``HMAC(secret, "daily/<day>/<profile>")``, and board ``n``'s seed and dealer
come from it by ``domain.baloot.daily`` (so every player's board ``n`` is the same deal).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from typing import NamedTuple

from domain.baloot import daily

PREFIX = "daily."


class DailyBoard(NamedTuple):
    day: dt.date
    profile: str
    board: int
    user_id: str

    @property
    def set_id(self) -> str:
        return set_id(self.day, self.profile)


def set_id(day: dt.date, profile: str) -> str:
    return f"{day.isoformat()}/{profile}"


def table_id(day: dt.date, profile: str, board: int, user_id: str) -> str:
    return f"{PREFIX}{day.isoformat()}.{profile}.{board}.{user_id}"


def board_of(table_id: str) -> DailyBoard | None:
    """The daily board a table id names, or None (any other table)."""
    if not table_id.startswith(PREFIX):
        return None
    parts = table_id[len(PREFIX):].split(".")
    if len(parts) != 4 or not parts[2].isdigit():
        return None
    try:
        day = dt.date.fromisoformat(parts[0])
    except ValueError:
        return None
    return DailyBoard(day, parts[1], int(parts[2]), parts[3])


def set_seed(secret: bytes, day: dt.date, profile: str) -> str:
    return hmac.new(secret, f"daily/{set_id(day, profile)}".encode(), hashlib.sha256).hexdigest()[:32]


def deal_seed(secret: bytes, table_id: str, deal_no: int) -> str | None:
    """The seed of deal ``deal_no`` at a daily board's table (its one deal is the board); None: not daily."""
    b = board_of(table_id)
    if b is None:
        return None
    seed = daily.board_seed(set_seed(secret, b.day, b.profile), b.board)
    return seed if deal_no == 1 else hashlib.sha256(f"{seed}/deal/{deal_no}".encode()).hexdigest()[:32]


def first_dealer(table_id: str) -> int | None:
    b = board_of(table_id)
    return None if b is None else daily.board_dealer(b.board)
