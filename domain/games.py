"""The game seam: what a game gives the platform, so that tables, workers, tournaments, audits and replays
need no ``if game == ...``. Two games stand behind it: the card game (``baloot``) and the dice game
(``balut``).

A game provides its decider (``initial``, ``step``, ``fold``), its stored event types, the events that open
it (``open``) and what follows a command by itself (``follow_ups``), both given seeds as data (``seed_of(n)``
for the n-th deal or turn, from 1), the private events a stored one implies (``private_events``: the cards or
dice re-derived from the committed seed), what each seat or a spectator sees (``view``) and
may do (``legal_actions``), bot levels that choose from a seat's view only (``choose``), its record format
(parse, audit, render, export, schema) and, once over, a result the tournament layer can rank (``result``:
places per seat, ties sharing a place). Records are told apart by their ``format`` field
(``record_format_of``), which is how ``baloot audit`` reads either.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from domain import audit as baloot_audit
from domain import bots as baloot_bots
from domain import deal as baloot_deal
from domain import game as baloot_game
from domain import handrecord, table, views
from domain.balut import audit as balut_audit
from domain.balut import bots as balut_bots
from domain.balut import game as balut_game
from domain.balut import record as balut_record
from domain.balut import views as balut_views
from domain.balut.events import EVENT_TYPES as BALUT_EVENT_TYPES
from domain.balut.events import StartBalut
from domain.balut.profiles import STC
from domain.events import EVENT_TYPES as BALOOT_EVENT_TYPES
from domain.events import DealNext, DealStarted, StartGame
from domain.profiles import SAUDI


class GameResult(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game as a tournament ranks it: per seat a place (1 is best, equals share it) and a score
    (the team's score in the card game, the seat's points in Balut); ``winners`` is empty when nobody won."""

    places: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str


class RecordFormat(Protocol):
    name: str                                  # the ``format`` field of its documents
    malformed: type[ValueError]

    def parse(self, data: bytes | str) -> Any: ...
    def audit(self, record) -> Any: ...        # a report with ``valid``
    def render(self, report) -> str: ...
    def export(self, events) -> Any: ...
    def encode(self, record) -> bytes: ...
    def schema(self) -> dict: ...


class Game(Protocol):
    name: str
    seat_counts: range                         # how many seats a table of it may have
    bot_levels: tuple[str, ...]
    initial: Any
    event_types: tuple[type, ...]              # stored events (private ones are re-derived from seeds)
    record: RecordFormat

    def open(self, seats: int, first_seat: int, profile, seed_of) -> list: ...
    def private_events(self, state, event, seed_of) -> list: ...
    def step(self, state, command) -> tuple[Any, list]: ...
    def fold(self, events, state=None) -> Any: ...
    def follow_ups(self, state, events: list, seed_of) -> list: ...
    def legal_actions(self, state, seat: int) -> list: ...
    def view(self, state, seat: int | None) -> Any: ...
    def choose(self, level: str, state, seat: int) -> Any: ...
    def result(self, state) -> GameResult | None: ...


class _Format:
    """A record format from its module functions."""

    def __init__(self, name, malformed, parse, audit, render, export, encode, schema):
        self.name, self.malformed = name, malformed
        self.parse, self.audit, self.render = parse, audit, render
        self.export, self.encode, self.schema = export, encode, schema


class _Decided:
    """What both games do the same way: ``step`` and ``fold`` of their decider module ``rules``."""

    rules: Any

    def step(self, state, command):
        return self.rules.step(state, command)

    def fold(self, events, state=None):
        return self.rules.fold(events, self.rules.INITIAL if state is None else state)


class Baloot(_Decided):
    """The card game: four seats in two teams; its record is one deal (``baloot-hand/1``)."""

    name = "baloot"
    rules = baloot_game
    seat_counts = range(4, 5)
    bot_levels = tuple(baloot_bots.BOTS)
    initial = baloot_game.INITIAL
    event_types = BALOOT_EVENT_TYPES
    record = _Format(handrecord.FORMAT, handrecord.MalformedRecord, handrecord.parse_record,
                     baloot_audit.audit_record, baloot_audit.render_report, handrecord.export_record,
                     handrecord.encode_record, handrecord.hand_record_schema)

    def open(self, seats: int, first_seat: int, profile, seed_of) -> list:
        state, events = baloot_game.step(self.initial, StartGame(first_dealer=first_seat, profile=profile or SAUDI))
        return events + baloot_game.step(state, DealNext(seed=seed_of(1)))[1]

    def private_events(self, state, event, seed_of) -> list:
        if type(event) is not DealStarted or event.commitment is None:
            return []
        try:
            return [baloot_deal.dealt_from_committed_seed(seed_of(state.deal_no), event.commitment)]
        except ValueError as exc:
            raise ValueError(f"deal {state.deal_no}: {exc}") from None

    def follow_ups(self, state, events, seed_of):
        return table.follow_ups(state, events, seed_of)

    def legal_actions(self, state, seat):
        return baloot_deal.legal_actions(state.deal, seat) if state.phase == "playing" else []

    def view(self, state, seat):
        return views.game_view(state, seat)

    def choose(self, level, state, seat):
        return baloot_bots.bot(level).choose(views.view(state.deal, seat))

    def result(self, state) -> GameResult | None:
        if state.phase != "ended":
            return None
        w = state.winner
        places = tuple(1 if w is None or seat & 1 == w else 2 for seat in range(4))
        return GameResult(places=places, scores=tuple(state.scores[seat & 1] for seat in range(4)),
                          winners=tuple(s for s in range(4) if w is not None and s & 1 == w),
                          reason=state.end_reason or "target")


class Balut(_Decided):
    """The dice game: 1-8 seats, each for himself; its record is a whole game (``balut-game/1``)."""

    name = "balut"
    rules = balut_game
    seat_counts = range(balut_game.MIN_PLAYERS, balut_game.MAX_PLAYERS + 1)
    bot_levels = tuple(balut_bots.BOTS)
    initial = balut_game.INITIAL
    event_types = BALUT_EVENT_TYPES
    record = _Format(balut_record.FORMAT, balut_record.MalformedRecord, balut_record.parse_record,
                     balut_audit.audit_record, balut_audit.render_report, balut_record.export_record,
                     balut_record.encode_record, balut_record.game_record_schema)

    def open(self, seats: int, first_seat: int, profile, seed_of) -> list:
        start = StartBalut(players=seats, first_player=first_seat, profile=profile or STC)
        return balut_game.follow_ups(self.initial, balut_game.decide(self.initial, start), seed_of)

    def private_events(self, state, event, seed_of) -> list:
        return balut_game.private_events(state, event, seed_of)

    def follow_ups(self, state, events, seed_of):
        return balut_game.follow_ups(state, events, seed_of)

    def legal_actions(self, state, seat):
        return balut_game.legal_actions(state, seat)

    def view(self, state, seat):
        return balut_views.view(state, seat)

    def choose(self, level, state, seat):
        return balut_bots.bot(level).choose(balut_views.view(state, seat))

    def result(self, state) -> GameResult | None:
        r = state.result
        if r is None:
            return None
        return GameResult(places=r.places, scores=r.points, winners=r.winners, reason="complete")


GAMES: dict[str, Game] = {g.name: g for g in (Baloot(), Balut())}
RECORD_FORMATS: dict[str, RecordFormat] = {g.record.name: g.record for g in GAMES.values()}


class _Head(msgspec.Struct):
    format: str | None = None


def record_format_of(data: bytes | str) -> RecordFormat:
    """The format of a record document, from its ``format`` field; ValueError when it has none we know."""
    try:
        name = msgspec.json.decode(data, type=_Head).format
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ValueError(f"not a JSON object: {exc}") from None
    if name not in RECORD_FORMATS:
        known = ", ".join(sorted(RECORD_FORMATS))
        raise ValueError(f"`$.format` is {name!r}, not a record format this engine reads ({known})")
    return RECORD_FORMATS[name]
