"""Hand records (``baloot-hand/1``, rules file §11): one deal as a self-contained JSON document.

``parse_record`` reads one (unknown fields are errors), ``record_commands`` turns it into engine commands,
``export_record`` builds one from a deal's events, ``hand_record_schema`` is the JSON Schema shipped in
``schemas/baloot-hand-1.schema.json``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.baloot.cards import card_name, parse_card, parse_suit, suit_name
from domain.baloot.deal import INITIAL, evolve
from domain.baloot.events import (
    BidValue, DoubleValue, Bid, BidMade, CallQayd, CardPlayed, CardsDealt, ClaimSawa, DealStarted, Declare, Double, DoubleCalled,
    PlayCard, ProjectsDeclared, QaydCalled, SawaClaimed, SeedRevealed, StartDeal,
)
from domain.events import TableMode
from domain.baloot.profiles import profile_named, profile_switches
from domain.baloot.shuffle import deck_from_seed
from domain.records import decode_record

FORMAT = "baloot-hand/1"
Seat = Annotated[int, msgspec.Meta(ge=0, le=3)]
Score = Annotated[int, msgspec.Meta(ge=0)]
CardText = Annotated[str, msgspec.Meta(pattern="^[789TJQKA][SHDC]$")]


class RecordAction(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One action: ``seat`` and exactly one of bid, double, declare, play, sawa, qayd."""

    seat: Seat
    bid: BidValue | None = None
    suit: Literal["S", "H", "D", "C"] | None = None
    double: DoubleValue | None = None
    closed: bool | None = None
    declare: list[list[CardText]] | None = None
    play: CardText | None = None
    baloot: bool | None = None
    sawa: Literal[True] | None = None
    qayd: Annotated[int, msgspec.Meta(ge=0)] | None = None


class HandReceipt(msgspec.Struct, forbid_unknown_fields=True):
    """The server's signed receipt of the table's stream head when the deal ended (``baloot verify`` checks
    it against the log; the audit does not need it)."""

    stream: str
    version: int
    hash: str
    kind: Literal["deal", "game", "ruling"]
    ref: str
    key_id: str
    signature: str


class RecordRuling(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A referee's ruling on the deal, made after its first ``after`` actions: "award_deal" gives the deal to
    ``team`` (the audit applies it there), "annul_deal" and "replay_deal" make it count for nothing; the
    others say what was ruled (an accusation upheld is its ``qayd`` action). ``call``: the call it answered;
    ``receipt``: the server's signature of the stream head after it."""

    after: Annotated[int, msgspec.Meta(ge=0)]
    ruling: str
    reason: str
    referee: str = ""
    call: int | None = None
    team: Literal[0, 1] | None = None
    receipt: HandReceipt | None = None


class HandRecord(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    format: Literal["baloot-hand/1"]
    profile: str
    switches: dict[str, bool | int | str | None]
    table_mode: TableMode = msgspec.field(name="table")
    dealer: Seat
    scores_before: tuple[Score, Score]
    deck: list[CardText]
    actions: list[RecordAction]
    commitment: str | None = None     # sha256 commitment published when the deal started (shuffle.py)
    seed: str | None = None           # the seed revealed when it ended
    receipt: HandReceipt | None = None  # the signed stream head at the deal's end, for a stored deal
    rulings: list[RecordRuling] | None = None   # a referee's rulings on the deal, in order


class MalformedRecord(ValueError):
    """The document is not a valid ``baloot-hand/1`` record; the message says what and where."""


_KINDS = ("bid", "double", "declare", "play", "sawa", "qayd")


def parse_record(data: bytes | str) -> HandRecord:
    """Decode and check a hand record; MalformedRecord names the field at fault."""
    record = decode_record(data, HandRecord, MalformedRecord, FORMAT)
    check_record(record)
    return record


def check_record(record: HandRecord) -> None:
    try:
        profile_named(record.profile, record.switches)
    except ValueError as exc:
        raise MalformedRecord(f"at `$.profile`/`$.switches`: {exc}") from None
    if len(record.deck) != 32 or len(set(record.deck)) != 32:
        seen = set()
        dup = next((c for c in record.deck if c in seen or seen.add(c)), None)
        what = f"{dup} appears twice" if dup else f"it has {len(record.deck)} cards"
        raise MalformedRecord(f"at `$.deck`: the deck must hold each of the 32 cards once; {what}")
    for i, a in enumerate(record.actions):
        kinds = [k for k in _KINDS if getattr(a, k) is not None]
        where = f"at `$.actions[{i}]`"
        if len(kinds) != 1:
            raise MalformedRecord(f"{where}: an action has exactly one of {', '.join(_KINDS)}; found "
                                  f"{', '.join(kinds) or 'none'}")
        kind = kinds[0]
        if a.suit is not None and a.bid != "hokum":
            raise MalformedRecord(f"{where}: `suit` goes only with a hokum bid")
        if a.closed is not None and kind != "double":
            raise MalformedRecord(f"{where}: `closed` goes only with a double")
        if a.baloot is not None and kind != "play":
            raise MalformedRecord(f"{where}: `baloot` goes only with a play")
        if kind == "declare" and not a.declare:
            raise MalformedRecord(f"{where}: `declare` lists at least one project")


def record_start(record: HandRecord) -> StartDeal:
    return StartDeal(dealer=record.dealer, profile=profile_named(record.profile, record.switches),
                     table_mode=record.table_mode, scores_before=tuple(record.scores_before),
                     deck=tuple(parse_card(c) for c in record.deck))


def action_command(a: RecordAction):
    """The engine command for one record action."""
    if a.play is not None:
        return PlayCard(a.seat, parse_card(a.play), bool(a.baloot))
    if a.bid is not None:
        return Bid(a.seat, a.bid, parse_suit(a.suit) if a.suit else None)
    if a.double is not None:
        return Double(a.seat, a.double, a.closed)
    if a.declare is not None:
        return Declare(a.seat, tuple(tuple(parse_card(c) for c in g) for g in a.declare))
    if a.sawa is not None:
        return ClaimSawa(a.seat)
    return CallQayd(a.seat, a.qayd)


def record_commands(record: HandRecord) -> list:
    return [action_command(a) for a in record.actions]


def export_record(events) -> HandRecord:
    """The hand record of one deal, from its events (from ``deal_started`` on)."""
    state = INITIAL
    actions: list[RecordAction] = []
    header = None
    seed = None
    deck = None
    for e in events:
        match e:
            case DealStarted():
                header, deck = e, e.deck
            case CardsDealt():
                deck = e.deck
            case BidMade():
                suit = suit_name(e.suit) if e.bid == "hokum" and state.round == 2 else None
                actions.append(RecordAction(e.seat, bid=e.bid, suit=suit))
            case DoubleCalled():
                actions.append(RecordAction(e.seat, double=e.call, closed=e.closed))
            case ProjectsDeclared():
                actions.append(RecordAction(e.seat, declare=[[card_name(c) for c in g] for g in e.projects]))
            case CardPlayed():
                actions.append(RecordAction(e.seat, play=card_name(e.card), baloot=True if e.baloot else None))
            case SawaClaimed():
                actions.append(RecordAction(e.seat, sawa=True))
            case QaydCalled():
                actions.append(RecordAction(e.verdict.caller, qayd=e.verdict.index))
            case SeedRevealed():
                seed = e.seed
        state = evolve(state, e)
    if header is None:
        raise ValueError("no deal_started event: not a deal")
    if deck is None:
        if seed is None:
            raise ValueError("the deal's cards are not known: its seed is not revealed")
        deck = deck_from_seed(seed)
    return HandRecord(format=FORMAT, profile=header.profile.name, switches=profile_switches(header.profile),
                      table_mode=header.table_mode, dealer=header.dealer, scores_before=tuple(header.scores_before),
                      deck=[card_name(c) for c in deck], actions=actions,
                      commitment=header.commitment, seed=seed)


def encode_record(record: HandRecord) -> bytes:
    return msgspec.json.format(msgspec.json.encode(record), indent=1)


def hand_record_schema() -> dict:
    """The JSON Schema of ``baloot-hand/1`` (generated from the Structs, plus the one-of rule)."""
    schema = msgspec.json.schema(HandRecord)
    action = schema["$defs"]["RecordAction"]
    action["additionalProperties"] = False
    action["oneOf"] = [{"required": [k]} for k in _KINDS]
    schema["$defs"]["HandRecord"]["additionalProperties"] = False
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://baloot-arena.invalid/schemas/baloot-hand-1.schema.json"
    schema["title"] = "baloot-hand/1: one Saudi Baloot deal, replayable by the audit"
    return schema
