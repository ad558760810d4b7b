"""The referee's desk on one deal, as pure functions over the deal's stored events: the deal after each event
that changed it (every hand shown: a referee sits at no seat), what each was in parts a page says in its
reader's language (kind, seat, value, words), the audit's narration of a player's action, and the engine's
verdict on an accusation (the one it gave, else the one it would give now).

The table's own events among them (a call, a claim, a ruling) are the table's to word: ``step`` gives None for
them, and the fold goes on through them unchanged."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from domain.baloot import deal as deal_mod
from domain.baloot.audit import Narration, narrate
from domain.baloot.cards import card_name, suit_name
from domain.baloot.dealstate import DealState
from domain.baloot.events import (
    BidMade, CallQayd, CardPlayed, DoubleCalled, ProjectsDeclared, QaydCalled, QaydVerdict, SawaClaimed,
)
from domain.baloot.result import decide_qayd
from domain.baloot.views import DealView, view
from domain.errors import DomainError

INITIAL = deal_mod.INITIAL

# The deal's events that are no player's action but a step of their own, with what each says.
EVENT_TEXT = {"cards_dealt": "the cards are dealt", "contract_fixed": "the contract is fixed",
              "deal_scored": "the deal is scored", "deal_voided": "the deal is void",
              "seed_revealed": "the deal's seed is revealed", "deal_annulled": "the deal is cancelled"}


class Step(msgspec.Struct, frozen=True):
    """One event of the deal as a step: its kind, the seat that acted, the value (the bid, call, card(s)) and
    the words (an offence, a verdict); for a player's action its index in the deal and its narration."""

    kind: str                        # bid, double, declare, play, sawa, qayd, cards_dealt, contract_fixed, …
    seat: int | None
    value: str | None
    words: str | None
    index: int | None = None
    narration: Narration | None = None

    def text(self, players: list[str]) -> str:
        """The step in English, the players named."""
        if self.narration is not None:
            return f"{players[self.narration.seat]} {self.narration.what}"
        return EVENT_TEXT.get(self.kind, self.kind)


def evolve(state: DealState, e) -> DealState:
    """The deal after ``e`` (an event that is not the deal's leaves it as it is)."""
    return deal_mod.evolve(state, e)


def fold(events: Iterable) -> DealState:
    return deal_mod.fold(events)


def step(before: DealState, after: DealState, e) -> Step | None:
    """What ``e`` (taking the deal from ``before`` to ``after``) was, or None for an event that is not the
    deal's own step."""
    told = narrate(before.actions, e) if after.actions > before.actions else None
    index = before.actions if told is not None else None
    match e:
        case BidMade():
            return Step("bid", e.seat, e.bid + (f" {suit_name(e.suit)}" if e.suit is not None else ""), None,
                        index, told)
        case DoubleCalled():
            return Step("double", e.seat, e.call, None, index, told)
        case ProjectsDeclared():
            return Step("declare", e.seat, " ".join(card_name(c) for g in e.projects for c in g), None, index, told)
        case CardPlayed():
            return Step("play", e.seat, card_name(e.card), e.offence, index, told)
        case SawaClaimed():
            return Step("sawa", e.seat, "holds" if e.valid else "false", None, index, told)
        case QaydCalled():
            return Step("qayd", e.verdict.caller, str(e.verdict.index), e.verdict.message, index, told)
    config = getattr(type(e), "__struct_config__", None)
    tag = config.tag if config is not None else None
    if tag in EVENT_TEXT:
        return Step(tag, None, None, None)
    return None


def referee_view(state: DealState) -> DealView:
    """The deal as the referee sees it: every hand, whatever the table shows its spectators."""
    return view(state, None, hands="always")


def verdict(events: Iterable, seat: int, index: int) -> tuple[QaydVerdict | None, str | None]:
    """The engine's verdict on ``seat``'s accusation of action ``index`` of the deal: the one it gave (the
    accusation was upheld), else what it would give now; or why it cannot rule on it (``rule: message``)."""
    events = list(events)
    for e in events:
        if isinstance(e, QaydCalled) and e.verdict.caller == seat and e.verdict.index == index:
            return e.verdict, None
    try:
        return decide_qayd(fold(events), CallQayd(seat, index))[0].verdict, None
    except DomainError as err:
        return None, f"{err.rule}: {err.message}"
