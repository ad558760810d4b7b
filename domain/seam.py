"""The game seam: what a game gives the platform, so that tables, workers, tournaments, audits and replays
need no ``if game == ...``.

A game is two things. Its ``GameInfo``: facts that never change (how many seats, its profiles, bot levels,
table modes and turn-clock rules, the events it stores, the one that commits to a seed, the one that ends
it, its record format). And its rules, as the methods of ``Game``, each called by the platform:

- opening a table: ``profile`` (by name, with switches), ``profile_fields`` / ``profile_of`` (where a
  ``table_opened`` keeps it), ``open`` (the first events, from seeds given as data: ``seed_of(n)`` for the
  n-th deal or turn, from 1);
- deciding and folding: ``decide``, ``evolve``, ``initial``; ``private_events`` re-derives what a stored
  event commits to (the cards or dice, from the seed); ``follow_on`` what follows by itself at a state (a
  finished deal's seed revealed, the next deal dealt; at a table of shared boards the seeds are held back)
  and ``reveal_held`` the command revealing the held seeds once every table of the boards is done;
- seats: ``to_act``, ``in_review`` (the card game's Qayd window), ``seat_view`` (what the seat's player, or
  bot, sees), ``view`` (a player's or a spectator's, by the table's hands policy), ``choose_from`` (a bot
  given only a seat's view);
- the turn clock (the table's policy, ``domain.table.timeout_command``, asks): ``auto_play`` (what a seat
  does when the table plays for it), ``forfeit`` and ``abandon`` (the game's commands for them, None where
  the game has no such end);
- the end: ``result`` (places per seat, ties sharing a place) and ``match_game`` (the result as a
  championship's game of a match: team A, seats 0+2, against team B, seats 1+3).

Its side of the HTTP API is data too, ``GameInfo.wire`` (``Wire``): the actions its players send and its view
as the API sends it, as msgspec Structs. ``Decided`` gives what games do alike, and defaults for what a game
without hidden seeds, a review window, teams or a referee's commands leaves out.

Each game's side is its ``seam.py`` (``domain.baloot.seam``, ``domain.balut.seam``) and its ``wire.py``;
``domain.games`` is the registry of them. This module imports no game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import msgspec

Side = Literal["a", "b"]
# How a game ended: at the target, by Gahwa, a forfeit, a referee's ruling, abandoned (timeouts), after
# its fixed number of deals, or "complete" (a game with no target, Balut, played to its end).
EndedBy = Literal["target", "gahwa", "forfeit", "referee", "abandoned", "deals", "complete"]


class GameResult(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game as a tournament ranks it: per seat a place (1 is best, equals share it) and a score
    (the team's score in the card game, the seat's points in Balut); ``winners`` is empty when nobody won."""

    places: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    reason: EndedBy


class MatchGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One finished game of a championship match: the final scores of team A (seats 0 and 2) and team B
    (seats 1 and 3), the winner, and how it ended (Gahwa or a forfeit end below the target)."""

    team_a_points: int
    team_b_points: int
    winner: Side
    ended_by: EndedBy = "target"


class RecordFormat(Protocol):
    name: str                                  # the ``format`` field of its documents
    malformed: type[ValueError]

    def parse(self, data: bytes | str) -> Any: ...
    def audit(self, record) -> Any: ...        # a report with ``valid``
    def render(self, report) -> str: ...
    def export(self, events) -> Any: ...
    def encode(self, record) -> bytes: ...
    def schema(self) -> dict: ...


@dataclass(frozen=True)
class Format:
    """A record format from its module functions."""

    name: str
    malformed: type[ValueError]
    parse: Any
    audit: Any
    render: Any
    export: Any
    encode: Any
    schema: Any


@dataclass(frozen=True)
class Wire:
    """A game's side of the HTTP API, as msgspec Structs (their names are the OpenAPI schema's), so that the API
    holds no game's types and branches on none.

    ``actions``: what its players send, Structs tagged by ``type`` (the API decodes one union of every game's
    actions: a tag is one game's); ``to_command(action, seat)``: the engine's command for one of them;
    ``to_wire(command)``: a legal action as a client sends it back (TypeError: not a player's action).
    ``view``: the Struct of the game's view (``Game.view``); ``view_fields(Action)``: its fields that list
    legal actions, as ``(name, type)`` pairs typed with ``Action`` (the union of every game's actions, which
    the API's documents name; a field's Struct there is the view's own with its legal actions so typed);
    ``on_wire(state, view)``: that view with its legal actions in wire form. ``table_view`` and
    ``table_doc``: the name and description of the view of a table of the game (its view with the table
    around it)."""

    actions: tuple[type, ...]
    view: type
    to_command: Callable
    to_wire: Callable
    view_fields: Callable
    on_wire: Callable
    table_view: str
    table_doc: str


@dataclass(frozen=True)
class GameInfo:
    """What a game is, as data: nothing here depends on a state."""

    name: str
    seat_counts: range                         # how many seats a table of it may have
    profile_names: tuple[str, ...]
    default_profile: str
    bot_levels: tuple[str, ...]
    default_bot: str
    table_modes: tuple[str, ...]               # "strict", "recorded" (the card game's §10)
    timeout_rules: tuple[str, ...]             # what a table's turn clock may do: auto_play, bot, forfeit
    event_types: tuple[type, ...]              # stored events (private ones are re-derived from seeds)
    seeded_event: type                         # the stored event that commits to a seed (deal, turn)
    end_event: type                            # the event that ends the game
    receipt_event: type | None                 # after it the stream head is signed (None: at the end only)
    record: RecordFormat
    record_scope: Literal["deal", "game"]      # what one record holds: a deal (the card game) or the game
    shares_boards: bool = False                # its deals may be boards played at several tables (duplicate)
    partnerships: bool = False                 # seats across the table play together (0 and 2, 1 and 3)
    rated_by: Literal["match", "table"] = "match"  # ratings: a championship match rates its teams' players (the
                                               # card game), or each finished table each player by his place
    # The fair-play analysis of one finished deal: ``fair_play(events, seed=, samples=)`` -> its decisions
    # (the card game's domain/baloot/fairplay.py ``analyse_deal``); None: the game's tables are not analysed.
    fair_play: Callable | None = None
    wire: Wire | None = None                   # its side of the HTTP API; None: its tables are not served


class Game(Protocol):
    """Every member is called by the platform (the module's docstring says where). A game written on
    ``Decided`` writes the first group; the second has defaults there, for a game without deals dealt from
    hidden seeds, a review window, teams, or a referee's commands."""

    info: GameInfo
    initial: Any

    def profile(self, name: str | None, switches: dict | None = None) -> Any: ...
    def open(self, seats: int, first_seat: int, profile, seed_of, table_mode: str = "strict") -> list: ...
    def decide(self, state, command) -> list: ...
    def evolve(self, state, event) -> Any: ...
    def to_act(self, state) -> int | None: ...
    def view(self, state, seat: int | None, hands: str = "after_deal") -> Any: ...
    def choose_from(self, level: str, seat_view) -> Any: ...
    def auto_play(self, state, seat: int) -> Any: ...
    def result(self, state) -> GameResult | None: ...
    def match_game(self, result: GameResult) -> MatchGame | None: ...
    def places(self, end_event) -> tuple[int, ...]: ...      # each seat's place at the end (1 first; ties share)

    def profile_of(self, opened) -> Any: ...
    def profile_fields(self, profile) -> dict: ...   # where ``table_opened`` keeps this game's profile
    def private_events(self, state, event, seed_of) -> list: ...
    def follow_on(self, state, seed_of, opened=None) -> list: ...  # opened: the table's options
    def reveal_held(self, state, seed_of) -> Any | None: ...
    def in_review(self, state) -> bool: ...
    def seat_view(self, state, seat: int) -> Any: ...
    def forfeit(self, state, seat: int, reason: str) -> Any | None: ...
    def abandon(self, state, seats: tuple[int, ...], reason: str) -> Any | None: ...
    def part_no(self, state) -> int: ...                     # the deal (turn, round) being played, from 1
    def accusation(self, seat: int, index: int) -> Any | None: ...   # the command accusing action ``index``
    def award(self, team: int, reason: str) -> Any | None: ...       # the command giving the deal to ``team``


class Decided:
    """What games do the same way: ``decide`` and ``evolve`` of their decider module ``rules`` (bound once: no
    extra call per event on the hot path), profiles by name, and the second group of ``Game`` as a game
    without what it serves does it: its profile kept in ``table_opened.game_profile`` (the first game's has
    a field of its own), nothing hidden in a stored event nor following by itself, no review window, a
    seat's view the player's, no side to forfeit nor abandon a game (each plays for himself, a turn the
    clock plays), one part, no action a player could accuse (the engine refuses what is illegal) and no
    deal to award."""

    rules: Any
    profile_named: Any
    info: GameInfo

    def __init__(self):
        self.decide, self.evolve = self.rules.decide, self.rules.evolve
        self.initial = self.rules.INITIAL

    def profile(self, name, switches=None):
        return type(self).profile_named(name or self.info.default_profile, switches)

    def profile_of(self, opened):
        default = self.profile(None)
        return msgspec.convert(opened.game_profile, type(default)) if opened.game_profile else default

    def profile_fields(self, profile):
        return {"game_profile": msgspec.to_builtins(profile)}

    def private_events(self, state, event, seed_of):
        return []

    def follow_on(self, state, seed_of, opened=None):
        return []

    def reveal_held(self, state, seed_of):
        return None

    def in_review(self, state):
        return False

    def seat_view(self, state, seat):
        return self.view(state, seat)

    def forfeit(self, state, seat, reason):
        return None

    def abandon(self, state, seats, reason):
        return None

    def part_no(self, state):
        return 1

    def accusation(self, seat, index):
        return None

    def award(self, team, reason):
        return None
