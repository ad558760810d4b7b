"""Championship events: frozen tagged Structs with stable past-tense tags and a schema version.

Value types carried by events (`Settings`, `Match`, `PairingInputs`, `RankEntry`) live here too.
Every pairing decision is a `RoundPaired` event holding its inputs, so a round can be re-derived.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from domain.events import TableMode
from domain.tournament.results import MatchResult

Format = Literal["single_elimination", "groups_knockout", "double_elimination", "swiss", "round_robin",
                 "duplicate"]
FORMATS: tuple[str, ...] = ("single_elimination", "groups_knockout", "double_elimination", "swiss",
                            "round_robin", "duplicate")


class RoundSlot(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """When a round is scheduled to start (ISO 8601 text: the domain keeps no clock)."""

    round: int
    starts_at: str


class Settings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How a championship is played; fixed when it is created."""

    name: str
    format: Format = "single_elimination"
    profile: str = "saudi"
    switches: tuple[str, ...] = ()
    match_games: int = 1            # best of N games; 1 = one game to the target (صكة)
    game_target: int = 152
    table_mode: TableMode = "strict"
    schedule: tuple[RoundSlot, ...] = ()
    seeding: Literal["draw", "rating", "manual"] = "draw"   # manual: the organiser gives the order
    swiss_rounds: int = 0           # 0: ceil(log2(teams)) rounds
    group_size: int = 16            # groups_knockout: teams per group (at most)
    qualifiers_per_group: int = 2   # groups_knockout: a power of two
    grand_final_reset: bool = True  # double_elimination
    duplicate_boards: int = 4       # duplicate: boards per match (each played at two tables)
    game: str = "baloot"            # the game its tables play (domain.games.GAMES); absent: the card game


class Match(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A pairing: `team_b` is None for a bye, both None for an empty slot.

    `note` is "" for a match to play, "bye" (round 1 of a bracket, losers' bracket, round robin rest),
    "walkover" (the other slot was emptied by a double forfeit) or "void" (both slots empty).
    """

    match_id: str
    round: int
    index: int
    stage: str
    team_a: str | None
    team_b: str | None
    note: Literal["", "bye", "walkover", "void"] = ""


class PairingInputs(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """What a pairing was computed from, in the order the format read it.

    `lists` holds the ordered entrants: bracket slots (one list per group in the group phase;
    winners' slots, losers' survivors, then waiting drop-in batches in double elimination),
    the ranked field in Swiss, the circle order in round robin.
    """

    method: str
    lists: tuple[tuple[str | None, ...], ...] = ()
    scores: tuple[int, ...] = ()
    had_bye: tuple[str, ...] = ()
    phase: str = ""


class RankEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    rank: int
    team_id: str
    reached: str


class _Event(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    schema_version: ClassVar[int] = 1


class ChampionshipCreated(_Event, tag="championship_created"):
    championship_id: str = msgspec.field(name="tournament_id")
    settings: Settings


class TeamInfo(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """What an organiser says of a team beside its players: its name, club, region and rating."""

    name: str = ""
    club: str = ""
    region: str = ""
    rating: float | None = None


class TeamRegistered(_Event, tag="team_registered"):
    team_id: str
    players: tuple[str, ...]                  # two; a duplicate team may be four (two pairs)
    substitutes: tuple[str, ...] = ()
    late: bool = False
    info: TeamInfo | None = None


class TeamWithdrawn(_Event, tag="team_withdrawn"):
    team_id: str
    reason: str = ""


class RegistrationClosed(_Event, tag="registration_closed"):
    team_count: int


class DrawCommitted(_Event, tag="draw_committed"):
    """The sha256 hex digest of the draw seed, published before the draw."""

    commitment: str


class DrawMade(_Event, tag="draw_made"):
    """The revealed seed (or the ratings, or the organiser's own order) and the resulting order of the field,
    best seed first."""

    method: Literal["seeded", "rating", "manual"]
    seed: str
    order: tuple[str, ...]
    ratings: tuple[tuple[str, float], ...] = ()
    planned_rounds: int = 0


class RoundPaired(_Event, tag="round_paired"):
    round: int
    matches: tuple[Match, ...]
    inputs: PairingInputs


class MatchResultRecorded(_Event, tag="match_result_recorded"):
    match_id: str
    winner: str
    loser: str
    result: MatchResult


class MatchForfeited(_Event, tag="match_forfeited"):
    match_id: str
    winner: str
    absent: str
    reason: str = "no-show"


class MatchDoubleForfeited(_Event, tag="match_double_forfeited"):
    match_id: str
    absent: tuple[str, str]
    reason: str = "both absent"


class PlayerSubstituted(_Event, tag="player_substituted"):
    team_id: str
    player_out: str
    player_in: str
    from_round: int


class ChampionshipFinished(_Event, tag="championship_finished"):
    champion: str | None
    ranking: tuple[RankEntry, ...]


ChampionshipEvent = (ChampionshipCreated | TeamRegistered | TeamWithdrawn | RegistrationClosed
                   | DrawCommitted | DrawMade | RoundPaired | MatchResultRecorded | MatchForfeited
                   | MatchDoubleForfeited | PlayerSubstituted | ChampionshipFinished)
