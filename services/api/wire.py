"""Between the wire (card names, tagged actions) and the engine (card ints, commands), and views as JSON."""

from __future__ import annotations

import msgspec

from domain.cards import card_name, parse_card, parse_suit, suit_name
from domain.events import Bid, CallQayd, ClaimSawa, Declare, Double, PlayCard, RecordResult
from domain.views import game_view
from services.api import schemas
from services.api.tables import Table


def to_command(action, seat: int):
    match action:
        case schemas.PlayAction():
            return PlayCard(seat, parse_card(action.card), action.baloot)
        case schemas.BidAction():
            return Bid(seat, action.bid, parse_suit(action.suit) if action.suit else None)
        case schemas.DoubleAction():
            return Double(seat, action.call, action.closed)
        case schemas.DeclareAction():
            return Declare(seat, tuple(tuple(parse_card(c) for c in group) for group in action.projects))
        case schemas.SawaAction():
            return ClaimSawa(seat)
        case schemas.QaydAction():
            return CallQayd(seat, action.index)
    raise TypeError(f"not a player action: {action!r}")


def to_wire(command) -> dict:
    """A legal action as a client sends it back (``{"type": "play", "card": "TS"}``)."""
    match command:
        case PlayCard():
            out = {"type": "play", "card": card_name(command.card)}
            if command.baloot:
                out["baloot"] = True
            return out
        case Bid():
            out = {"type": "bid", "bid": command.bid}
            if command.bid == "hokum":
                out["suit"] = suit_name(command.suit)
            return out
        case Double():
            out = {"type": "double", "call": command.call}
            if command.closed is not None:
                out["closed"] = command.closed
            return out
        case Declare():
            return {"type": "declare", "projects": [[card_name(c) for c in g] for g in command.projects]}
        case ClaimSawa():
            return {"type": "sawa"}
        case RecordResult():
            return {"type": "record_result"}
    return msgspec.to_builtins(command)


def table_view(table: Table, seat: int | None) -> dict:
    """The game as ``seat`` sees it (None: a spectator, shown hands as the table's policy says)."""
    opened = table.opened
    policy = opened.hands_policy if opened is not None else "never"
    view = msgspec.to_builtins(game_view(table.game, seat, hands=policy))
    deal = view.get("deal")
    if deal is not None:
        deal["legal_actions"] = game_view_actions(table, seat)
    view["version"] = table.version
    view["table_id"] = table.table_id
    view["seats"] = list(table.seats)
    view["seat"] = seat
    view["status"] = ("cancelled" if table.cancelled else "invited" if opened is None
                      else "finished" if table.game.phase == "ended" else "live")
    view["waiting"] = list(table.waiting)
    return view


def game_view_actions(table: Table, seat: int | None) -> list[dict]:
    from domain.deal import legal_actions
    if seat is None or table.game.phase != "playing":
        return []
    return [to_wire(c) for c in legal_actions(table.game.deal, seat) if not isinstance(c, RecordResult)]
