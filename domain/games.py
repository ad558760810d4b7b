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

For tables (``domain/table.py``, ``services/tables``, the workers) a game also names its profiles
(``profile``, ``profile_of`` a ``table_opened``), the table modes and turn-clock rules it supports, who is to
act now (``to_act``; ``in_review`` for the card game's Qayd window), what a seat's clock running out does
(``timeout_command``), the event that ends it (``end_event``) and the one after which the stream head is
signed per deal (``receipt_event``; None: only the game's end is signed), and its ``decide`` and ``evolve``.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from domain import audit as baloot_audit
from domain import bots as baloot_bots
from domain import deal as baloot_deal
from domain import game as baloot_game
from domain import handrecord, table, views
from domain import profiles as baloot_profiles
from domain.balut import audit as balut_audit
from domain.balut import bots as balut_bots
from domain.balut import game as balut_game
from domain.balut import record as balut_record
from domain.balut import views as balut_views
from domain.balut.events import EVENT_TYPES as BALUT_EVENT_TYPES
from domain.balut.events import Roll, Score, StartBalut
from domain.balut.events import BalutEnded, TurnStarted
from domain.balut.profiles import PROFILES as BALUT_PROFILES
from domain.balut.profiles import STC, BalutProfile
from domain.balut.profiles import profile_named as balut_profile_named
from domain.balut.scoring import CATEGORIES, category_score
from domain.events import EVENT_TYPES as BALOOT_EVENT_TYPES
from domain.events import DealNext, DealStarted, GameEnded, SeedRevealed, StartGame
from domain.profiles import SAUDI
from domain.tournament.results import GameResult as MatchGame


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
    record_scope: str                          # what one record holds: "deal" (the card game) or "game"
    default_profile: str
    profile_names: tuple[str, ...]
    default_bot: str
    table_modes: tuple[str, ...]               # "strict", "recorded" (the card game's §10)
    timeout_rules: tuple[str, ...]             # what a table's turn clock may do: auto_play, bot, forfeit
    seeded_event: type                         # the stored event that commits to a seed (deal, turn)
    end_event: type                            # the event that ends the game
    receipt_event: type | None                 # after it the stream head is signed (None: at the end only)

    def profile(self, name: str | None, switches: dict | None = None) -> Any: ...
    def profile_of(self, opened) -> Any: ...
    def profile_fields(self, profile) -> dict: ...   # where ``table_opened`` keeps this game's profile
    def open(self, seats: int, first_seat: int, profile, seed_of, table_mode: str = "strict") -> list: ...
    def private_events(self, state, event, seed_of) -> list: ...
    def decide(self, state, command) -> list: ...
    def evolve(self, state, event) -> Any: ...
    def step(self, state, command) -> tuple[Any, list]: ...
    def fold(self, events, state=None) -> Any: ...
    def follow_ups(self, state, events: list, seed_of, opened=None) -> list: ...  # opened: the table's options
    def follow_on(self, state, seed_of, opened=None) -> list: ...  # what follows by itself at ``state``
    def seat_view(self, state, seat: int) -> Any: ...   # what a seat's player (or bot) sees, to choose from
    def legal_actions(self, state, seat: int) -> list: ...
    def view(self, state, seat: int | None, hands: str = "after_deal") -> Any: ...
    def choose(self, level: str, state, seat: int) -> Any: ...
    def choose_from(self, level: str, seat_view) -> Any: ...   # a bot of ``level`` given only its seat's view
    def result(self, state) -> GameResult | None: ...
    def match_game(self, result: GameResult) -> MatchGame | None: ...
    def to_act(self, state) -> int | None: ...
    def in_review(self, state) -> bool: ...
    def timeout_command(self, opened, state, timeouts: tuple[int, ...], seat: int) -> Any: ...


class _Format:
    """A record format from its module functions."""

    def __init__(self, name, malformed, parse, audit, render, export, encode, schema):
        self.name, self.malformed = name, malformed
        self.parse, self.audit, self.render = parse, audit, render
        self.export, self.encode, self.schema = export, encode, schema


class _Decided:
    """What both games do the same way: ``decide``, ``evolve``, ``step`` and ``fold`` of their decider
    module ``rules``, and profiles by name."""

    rules: Any
    profile_named: Any
    default_profile: str

    def __init__(self):
        self.decide, self.evolve = self.rules.decide, self.rules.evolve      # hot: no extra call per event

    def profile(self, name, switches=None):
        return type(self).profile_named(name or self.default_profile, switches)

    def step(self, state, command):
        return self.rules.step(state, command)

    def fold(self, events, state=None):
        return self.rules.fold(events, self.rules.INITIAL if state is None else state)


# A championship match is team A (seats 0 and 2) against team B (seats 1 and 3): ``match_game`` turns a
# finished game's ``GameResult`` into the tournament's game of a match (``domain.tournament.results``), or None
# when nobody won it (the match is then a double forfeit).
SIDES = ((0, 2), (1, 3))


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
    record_scope = "deal"
    profile_named = baloot_profiles.profile_named
    default_profile = SAUDI.name
    profile_names = tuple(baloot_profiles.PROFILES)
    default_bot = "normal"
    table_modes = ("strict", "recorded")
    timeout_rules = ("auto_play", "bot", "forfeit")
    seeded_event = DealStarted
    end_event = GameEnded
    receipt_event = SeedRevealed

    def profile_of(self, opened):
        return opened.profile

    def profile_fields(self, profile):
        return {"profile": profile}

    def open(self, seats: int, first_seat: int, profile, seed_of, table_mode: str = "strict") -> list:
        start = StartGame(first_dealer=first_seat, profile=profile or SAUDI, table_mode=table_mode)
        state, events = baloot_game.step(self.initial, start)
        return events + baloot_game.step(state, DealNext(seed=seed_of(1)))[1]

    def private_events(self, state, event, seed_of) -> list:
        if type(event) is not DealStarted or event.commitment is None:
            return []
        try:
            return [baloot_deal.dealt_from_committed_seed(seed_of(state.deal_no), event.commitment)]
        except ValueError as exc:
            raise ValueError(f"deal {state.deal_no}: {exc}") from None

    def follow_ups(self, state, events, seed_of, opened=None):
        return table.follow_ups(state, events, seed_of, opened.deals if opened is not None else None)

    def follow_on(self, state, seed_of, opened=None):
        return table.follow_on(state, seed_of, opened.deals if opened is not None else None)

    def seat_view(self, state, seat):
        return views.view(state.deal, seat)

    def legal_actions(self, state, seat):
        return baloot_deal.legal_actions(state.deal, seat) if state.phase == "playing" else []

    def view(self, state, seat, hands="after_deal"):
        return views.game_view(state, seat, hands=hands)

    def choose(self, level, state, seat):
        return self.choose_from(level, self.seat_view(state, seat))

    def choose_from(self, level, seat_view):
        return baloot_bots.bot(level).choose(seat_view)

    def to_act(self, state):
        return state.deal.turn if state.phase == "playing" and state.deal.turn >= 0 else None

    def in_review(self, state):
        return state.phase == "playing" and state.deal.phase == "review"

    def timeout_command(self, opened, state, timeouts, seat):
        return table.timeout_command(opened, state, timeouts, seat)

    def result(self, state) -> GameResult | None:
        if state.phase != "ended":
            return None
        w = state.winner
        places = tuple(1 if w is None or seat & 1 == w else 2 for seat in range(4))
        return GameResult(places=places, scores=tuple(state.scores[seat & 1] for seat in range(4)),
                          winners=tuple(s for s in range(4) if w is not None and s & 1 == w),
                          reason=state.end_reason or "target")

    def match_game(self, result):
        """The team's score is each of its seats' (they share it); the winning team wins the game."""
        if not result.winners:
            return None
        return MatchGame(result.scores[0], result.scores[1], "a" if 0 in result.winners else "b", result.reason)


class Balut(_Decided):
    """The dice game: 2-8 seats at a table (the rules allow a lone player), each for himself; its record is a
    whole game (``balut-game/1``)."""

    name = "balut"
    rules = balut_game
    seat_counts = range(2, balut_game.MAX_PLAYERS + 1)
    bot_levels = tuple(balut_bots.BOTS)
    initial = balut_game.INITIAL
    event_types = BALUT_EVENT_TYPES
    record = _Format(balut_record.FORMAT, balut_record.MalformedRecord, balut_record.parse_record,
                     balut_audit.audit_record, balut_audit.render_report, balut_record.export_record,
                     balut_record.encode_record, balut_record.game_record_schema)
    record_scope = "game"
    profile_named = balut_profile_named
    default_profile = STC.name
    profile_names = tuple(BALUT_PROFILES)
    default_bot = "strong"
    table_modes = ("strict",)
    timeout_rules = ("auto_play", "bot")       # no teams to forfeit, and a game always ends: no abandoning
    seeded_event = TurnStarted
    end_event = BalutEnded
    receipt_event = None                       # a receipt per turn would be one per few events

    def profile_of(self, opened):
        return msgspec.convert(opened.game_profile, BalutProfile) if opened.game_profile else STC

    def profile_fields(self, profile):
        return {"game_profile": msgspec.to_builtins(profile)}

    def open(self, seats: int, first_seat: int, profile, seed_of, table_mode: str = "strict") -> list:
        start = StartBalut(players=seats, first_player=first_seat, profile=profile or STC)
        return balut_game.follow_ups(self.initial, balut_game.decide(self.initial, start), seed_of)

    def private_events(self, state, event, seed_of) -> list:
        return balut_game.private_events(state, event, seed_of)

    def follow_ups(self, state, events, seed_of, opened=None):
        return balut_game.follow_ups(state, events, seed_of)

    def follow_on(self, state, seed_of, opened=None):
        return balut_game.follow_on(state, seed_of)

    def seat_view(self, state, seat):
        return balut_views.view(state, seat)

    def legal_actions(self, state, seat):
        return balut_game.legal_actions(state, seat)

    def view(self, state, seat, hands="after_deal"):
        return balut_views.view(state, seat)

    def choose(self, level, state, seat):
        return self.choose_from(level, self.seat_view(state, seat))

    def choose_from(self, level, seat_view):
        return balut_bots.bot(level).choose(seat_view)

    def to_act(self, state):
        return state.turn if state.phase == "playing" and state.stage == "rolling" else None

    def in_review(self, state):
        return False

    def timeout_command(self, opened, state, timeouts, seat):
        """A seat whose clock ran out: a bot takes it (``bot``), or its turn is played for it: the first
        throw, then the row that scores most with the dice as they lie (never a scratch when one scores)."""
        if opened.on_timeout == "bot":
            return table.HandSeatToBot(seat=seat, level=opened.timeout_bot_level, reason="the turn clock ran out")
        if state.throws == 0:
            return Roll(seat)
        rows = balut_game.open_categories(state.sheets[seat], state.profile)
        return Score(seat, max(rows, key=lambda c: (category_score(c, state.dice, state.profile),
                                                    -CATEGORIES.index(c))))

    def result(self, state) -> GameResult | None:
        r = state.result
        if r is None:
            return None
        return GameResult(places=r.places, scores=r.points, winners=r.winners, reason="complete")

    def match_game(self, result):
        """A pair's score is its two players' points added; the higher wins, then the better place of its best
        player; a pair level on both has not won (None)."""
        points = [sum(result.scores[s] for s in side) for side in SIDES]
        best = [min(result.places[s] for s in side) for side in SIDES]
        if points[0] == points[1] and best[0] == best[1]:
            return None
        a_wins = (points[0], -best[0]) > (points[1], -best[1])
        return MatchGame(points[0], points[1], "a" if a_wins else "b", "complete")


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
