"""Which tables play a duplicate match's boards, and their seeds: derived from the server secret and the
table id alone, so that the table service deals them like any table (``TableService.deal_seed``).

A duplicate match is played at two tables, ``dup.<championship>.<match>.t1`` and ``.t2`` (docs/daily.md).
Every match of round ``r`` plays the round's board set: its seed is ``HMAC(secret,
"duplicate/<championship>/round-<r>")`` and board ``n``'s seed and dealer come from it by ``domain.baloot.daily``,
so both tables of a match, and every match of the round, get the same deals. The seed stays with the
server: each deal's commitment is stored when it is dealt and its seed revealed when it ends, as at any
table (the draw's seed, public at the draw, would let anyone compute the boards before they are played).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import NamedTuple

from domain.baloot import daily

PREFIX = "dup."


class DuplicateTable(NamedTuple):
    championship_id: str
    match_id: str
    table_no: int                     # 1: team A holds seats 0+2; 2: team A holds seats 1+3

    @property
    def round(self) -> int:
        return int(self.match_id.split("-")[0])


def table_id(championship_id: str, match_id: str, table_no: int) -> str:
    return f"{PREFIX}{championship_id}.{match_id}.t{table_no}"


def table_of(table_id: str) -> DuplicateTable | None:
    """The duplicate table a table id names, or None (any other table)."""
    if not table_id.startswith(PREFIX):
        return None
    parts = table_id[len(PREFIX):].rsplit(".", 2)
    if len(parts) != 3 or parts[2] not in ("t1", "t2"):
        return None
    cid, match_id, t = parts
    r, _, i = match_id.partition("-")
    if not (cid and r.isdigit() and i.isdigit()):
        return None
    return DuplicateTable(cid, match_id, int(t[1]))


def set_seed(secret: bytes, championship_id: str, round_no: int) -> str:
    return hmac.new(secret, f"duplicate/{championship_id}/round-{round_no}".encode(),
                    hashlib.sha256).hexdigest()[:32]


def deal_seed(secret: bytes, table_id: str, deal_no: int) -> str | None:
    """The seed of deal ``deal_no`` at a duplicate table (board ``deal_no`` of its round); None: not one."""
    t = table_of(table_id)
    if t is None:
        return None
    return daily.board_seed(set_seed(secret, t.championship_id, t.round), deal_no)


def first_dealer(table_id: str) -> int | None:
    """Board 1's dealer; the rotation then gives board ``n`` its dealer ``(n - 1) mod 4``."""
    return None if table_of(table_id) is None else daily.board_dealer(1)
