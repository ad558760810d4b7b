"""The referee's desk on the wire: his queue's calls, and a deal step by step (``routes_referee``). A step's
deal is the API's form of the deal view (legal actions in wire form: a referee acts on no seat, so none)."""

from __future__ import annotations

import datetime as dt

import msgspec

from services.anchor import Receipt
from services.api.schemas import DealOnWire
from services.referee.desk import DeskCall, QueueItem  # noqa: F401  (the queue's and the desk's calls, as served)


class DeskStep(msgspec.Struct):
    """The deal after one stored event that changed it: the words of the action, when it was stored, and the
    deal with every hand (the referee's view)."""

    version: int
    at: dt.datetime
    index: int | None                         # the action's index in the deal (what a Qayd names)
    text: str                                 # in English, the players named
    kind: str                                 # bid, double, declare, play, sawa, qayd, call, claimed, ruling, cards_dealt, …
    seat: int | None
    value: str | None                         # the bid, call, card(s), reason or ruling
    words: str | None                         # an offence, a verdict, the referee and his reason
    deal: DealOnWire                          # a referee acts on no seat: legal_actions is empty


class DeskDeal(msgspec.Struct):
    table_id: str
    deal_no: int
    deals: int                                # the table's deals so far
    players: list[str]
    table_mode: str
    championship_id: str | None
    championship_name: str | None
    steps: list[DeskStep]
    calls: list[DeskCall]
    rulings: list[dict]                       # RulingMade of this deal, with when and by whom
    receipts: list[Receipt]                   # the deal's end, and its rulings, signed
    qayd_section: str
    qayd_text: str
    match_id: str | None = None
    round: int | None = None                  # the round of the table's match
    sides: list[str] = []                     # who plays whom: seats 0 and 2, then 1 and 3 (their teams' names)
    seats: list[str] = []                     # the seats' user ids (a bot's names its level: the page says it)

    @classmethod
    def of(cls, desk) -> DeskDeal:
        """The wire form of the application's ``Desk``."""
        steps = [DeskStep(**{**msgspec.structs.asdict(s),
                             "deal": DealOnWire(**{**msgspec.structs.asdict(s.deal), "legal_actions": []})})
                 for s in desk.steps]
        return cls(**{**msgspec.structs.asdict(desk), "steps": steps})
