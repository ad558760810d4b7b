"""The daily deal on the wire: the answers of ``routes_daily`` that its read models do not give as they are."""

from __future__ import annotations

import datetime as dt

import msgspec


class DailySet(msgspec.Struct):
    """A day's set of boards as published: the commitment from its opening, the seed once closed."""

    set_id: str
    boards: int
    commitment: str
    closes_at: dt.datetime
    seed: str | None
    playable: bool = False                # boards of it may still be started (POST /daily/{profile}/play)
