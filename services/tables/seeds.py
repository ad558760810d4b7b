"""The seeds of a table's deals (or turns) and its first dealer, derived from the server secret and what its
``table_opened`` says, so that a table deals the same cards however often its stream is folded.

A championship's draw seed comes from it too (``draw_seed``). A table deals for itself: deal ``n``'s seed is ``HMAC(secret, "<table id>/deal/<n>")`` and its first dealer
comes from ``HMAC(secret, "<table id>/first-dealer")``. A table of shared boards (``table_opened.boards``: a
day's daily deal, a duplicate round) deals the boards of its set: the set's seed is ``HMAC(secret, <set>)``,
and board ``b``'s seed and dealer derive from it (``domain.baloot.daily``, ``baloot-board/1``), so every
table of the set gets the same deals. The secret stays with the server: each deal's commitment is stored
when it is dealt and its seed when it ends.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from domain.baloot import daily
from domain.table import Boards, TableOpened


class Seeds:
    def __init__(self, secret: bytes):
        self.secret = secret

    def derive(self, text: str, digits: int = 32) -> str:
        """The first ``digits`` hex digits of ``HMAC(secret, text)``: every seed the server keeps."""
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()[:digits]

    def set_seed(self, board_set: str) -> str:
        return self.derive(board_set)

    def draw_seed(self, championship_id: str) -> str:
        """A championship's draw seed: its sha256 is published when registration closes, it at the draw."""
        return self.derive(f"championship/{championship_id}/draw", 64)

    def deal_seed(self, opened: TableOpened, deal_no: int) -> str:
        b = opened.boards
        if b is not None and deal_no <= b.count:
            return daily.board_seed(self.set_seed(b.set), b.first + deal_no - 1)
        return self.derive(f"{opened.table_id}/deal/{deal_no}")

    def first_dealer(self, opened: TableOpened) -> int:
        """The first dealer (the dice game: the first player): a board's own, else drawn from the secret."""
        seats = len(opened.seats)
        if opened.boards is not None:
            return daily.board_dealer(opened.boards.first) % seats
        return hmac.new(self.secret, f"{opened.table_id}/first-dealer".encode(), hashlib.sha256).digest()[0] % seats


def boards_named_by_id(data: dict) -> dict:
    """``table_opened`` v1 to v2: a version 1 event named a table's board set only in its table id (the names
    the daily deal and duplicate events gave their tables, ``daily.<day>.<profile>.<board>.<user>`` and
    ``dup.<championship>.<round>-<match>.t<n>``); v2 says it in ``boards``."""
    tid = data.get("table_id", "")
    parts = tid.split(".")
    if tid.startswith("daily.") and len(parts) == 5 and parts[3].isdigit() and _is_date(parts[1]):
        data["boards"] = {"set": f"daily/{parts[1]}/{parts[2]}", "first": int(parts[3]), "count": 1}
    elif tid.startswith("dup."):
        cid, match_id, t = tid[len("dup."):].rsplit(".", 2) if tid.count(".") >= 3 else ("", "", "")
        r, _, i = match_id.partition("-")
        if cid and r.isdigit() and i.isdigit() and t in ("t1", "t2"):
            data["boards"] = {"set": f"duplicate/{cid}/round-{int(r)}", "first": 1, "count": data.get("deals") or 1}
    return data


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


__all__ = ["Boards", "Seeds", "boards_named_by_id"]
