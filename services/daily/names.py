"""The names of the daily deal's sets and board tables.

The day's set of a profile is ``<day>/<profile>``; its boards are the board set ``daily/<day>/<profile>``
(``table_opened.boards``: its seed is the server's, ``services/tables/seeds.py``, so every player's board
``n`` is the same deal). A player's board ``n`` is played at the table ``daily.<day>.<profile>.<n>.<user>``:
one table per player and board, so opening it twice opens one, and the read model knows the board and the
player of a result by its stream.
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

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


def tables_prefix(day: dt.date, profile: str) -> str:
    """What the ids of the set's board tables start with."""
    return f"{PREFIX}{day.isoformat()}.{profile}."


def board_set(day: dt.date, profile: str) -> str:
    return f"daily/{set_id(day, profile)}"


def set_of_boards(board_set: str) -> tuple[dt.date, str] | None:
    """(day, profile) of a daily board set's name, or None (not a daily set)."""
    kind, _, rest = board_set.partition("/")
    day, _, profile = rest.partition("/")
    if kind != "daily" or not profile:
        return None
    try:
        return dt.date.fromisoformat(day), profile
    except ValueError:
        return None
