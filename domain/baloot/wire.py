"""The card game's side of the HTTP API (``domain.seam.Wire``): the actions its players send (card names,
suits as letters) and its view as the API sends it (a deal's legal actions in the form a client sends them
back)."""

from __future__ import annotations

import functools
from typing import Annotated

import msgspec

from domain.baloot.cards import card_name, parse_card, parse_suit, suit_name
from domain.baloot.events import (
    Bid, BidValue, CallQayd, ClaimSawa, Declare, Double, DoubleValue, PlayCard, RecordResult,
)
from domain.baloot.views import DealView, GameView
from domain.seam import Wire

CardText = Annotated[str, msgspec.Meta(pattern="^[789TJQKA][SHDC]$")]
SuitText = Annotated[str, msgspec.Meta(pattern="^[SHDC]$")]


class PlayAction(msgspec.Struct, tag="play", forbid_unknown_fields=True, omit_defaults=True):
    card: CardText
    baloot: bool = False


class BidAction(msgspec.Struct, tag="bid", forbid_unknown_fields=True, omit_defaults=True):
    bid: BidValue
    suit: SuitText | None = None


class DoubleAction(msgspec.Struct, tag="double", forbid_unknown_fields=True, omit_defaults=True):
    call: DoubleValue
    closed: bool | None = None


class DeclareAction(msgspec.Struct, tag="declare", forbid_unknown_fields=True, omit_defaults=True):
    projects: Annotated[list[Annotated[list[CardText], msgspec.Meta(min_length=3, max_length=8)]],
                        msgspec.Meta(min_length=1, max_length=3)]


class SawaAction(msgspec.Struct, tag="sawa", forbid_unknown_fields=True, omit_defaults=True):
    pass


class QaydAction(msgspec.Struct, tag="qayd", forbid_unknown_fields=True, omit_defaults=True):
    index: Annotated[int, msgspec.Meta(ge=0, le=1000)]


def to_command(action, seat: int):
    t = type(action)
    if t is PlayAction:
        return PlayCard(seat, parse_card(action.card), action.baloot)
    if t is BidAction:
        return Bid(seat, action.bid, parse_suit(action.suit) if action.suit else None)
    if t is DoubleAction:
        return Double(seat, action.call, action.closed)
    if t is DeclareAction:
        return Declare(seat, tuple(tuple(parse_card(c) for c in group) for group in action.projects))
    if t is SawaAction:
        return ClaimSawa(seat)
    if t is QaydAction:
        return CallQayd(seat, action.index)
    raise TypeError(f"not a card-game action: {action!r}")


def to_wire(command):
    """A legal action as a client sends it back (``{"type": "play", "card": "TS"}``)."""
    t = type(command)
    if t is PlayCard:
        return PlayAction(card_name(command.card), command.baloot)
    if t is Bid:
        return BidAction(command.bid, suit_name(command.suit) if command.bid == "hokum" else None)
    if t is Double:
        return DoubleAction(command.call, command.closed)
    if t is Declare:
        return DeclareAction([[card_name(c) for c in g] for g in command.projects])
    if t is ClaimSawa:
        return SawaAction()
    raise TypeError(f"not a player action: {command!r}")


@functools.cache
def deal_on_wire(action) -> type:
    """The deal's view with its legal actions typed ``action`` (the API's union of every game's actions)."""
    return msgspec.defstruct("DealOnWire", [("legal_actions", list[action])], bases=(DealView,), kw_only=True,
                             module=__name__, namespace={"__doc__": "A deal as the API shows it: the legal "
                                                                    "actions in the form a client sends them back."})


def view_fields(action) -> list:
    return [("deal", deal_on_wire(action) | None)]


def on_wire(state, view):
    """The legal actions of the seat to act while the game is played, a referee's recording of the result
    (a recorded table's review) left out: a player never sends it."""
    if view.deal is None:
        return view
    actions = [] if state.phase != "playing" else [
        to_wire(c) for c in view.deal.legal_actions if type(c) is not RecordResult]
    return msgspec.structs.replace(view, deal=msgspec.structs.replace(view.deal, legal_actions=actions))


WIRE = Wire(
    actions=(PlayAction, BidAction, DoubleAction, DeclareAction, SawaAction, QaydAction),
    view=GameView, to_command=to_command, to_wire=to_wire, view_fields=view_fields, on_wire=on_wire,
    table_view="TableView",
    table_doc="A card-game table as one caller sees it (``seat``: his own seat; None: the spectator view): the "
              "game's view, with the legal actions in wire form, and the table around it; ``game`` says which "
              "game's view.",
)
