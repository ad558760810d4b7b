"""Championships on the wire: the request bodies and the answers of routes_championships (the organiser's
console, the players' registrations, everyone's standings, brackets, matches and pairings)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

import msgspec

from domain.events import HandsPolicy, TableMode
from domain.table import OnTimeout
from domain.tournament import RoundSlot
from projections import bracket as bracket_projection
from services.api.schemas import (
    NUL_FREE,
    AnyBotLevel,
    BotPace,
    CommandId,
    GameName,
    Name,
    ProfileName,
    TurnSeconds,
)
from services.championships import RunSettings, decode_switches

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern="^[A-Za-z0-9._:-]+$")]
Reason = Annotated[str, msgspec.Meta(max_length=500, pattern=NUL_FREE)]
Format = Literal["single_elimination", "groups_knockout", "double_elimination", "swiss", "round_robin", "duplicate"]


class ScheduleSlot(msgspec.Struct, forbid_unknown_fields=True):
    round: Annotated[int, msgspec.Meta(ge=1, le=10_000)]
    starts_at: dt.datetime


class NewChampionship(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    name: Name
    format: Format = "single_elimination"
    game: GameName = "baloot"                 # the game the tables play: the card game, or Balut (pairs of players)
    profile: ProfileName | None = None        # None: the game's own default
    switches: dict[str, bool | int | str | None] = {}
    match_games: Annotated[int, msgspec.Meta(ge=1, le=15)] = 1          # best of N (odd)
    game_target: Annotated[int, msgspec.Meta(ge=1, le=10_000)] | None = None   # None: the profile's
    table_mode: TableMode = "strict"
    schedule: Annotated[list[ScheduleSlot], msgspec.Meta(max_length=1000)] = []
    seeding: Literal["draw", "rating", "manual"] = "draw"   # manual: the draw gives the order of the field
    swiss_rounds: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    group_size: Annotated[int, msgspec.Meta(ge=2, le=1024)] = 16
    qualifiers_per_group: Annotated[int, msgspec.Meta(ge=1, le=512)] = 2
    grand_final_reset: bool = True
    duplicate_boards: Annotated[int, msgspec.Meta(ge=1, le=32)] = 4     # duplicate: boards a match (at each table)
    # How the platform runs the matches (kept with the creation, not a tournament rule):
    check_in_seconds: Annotated[float, msgspec.Meta(gt=0, le=86_400)] | None = None   # None: no check-in
    turn_seconds: TurnSeconds | None = None                                             # None: no turn clock
    on_timeout: OnTimeout = "auto_play"
    bot_level: AnyBotLevel | None = None    # bot players' seats and seats handed to a bot (None: the game's default)
    bot_pace_seconds: BotPace = 0.0         # the tables' least time between two bot actions; 0: full speed
    hands_policy: HandsPolicy = "after_deal"  # what the tables show spectators of the hands ("always": 1800 s late)
    delay_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 0.0


class NewTeam(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    players: Annotated[list[str], msgspec.Meta(min_length=2, max_length=4)]   # four in a duplicate event
    substitutes: Annotated[list[str], msgspec.Meta(max_length=4)] = []
    team_id: Id | None = None                 # None: derived from the command id


class Command(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId


class WithReason(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    reason: Reason = ""


class Substitution(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    player_out: str
    player_in: str


class Draw(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    ratings: dict[str, float] = {}            # seeding by rating: every team's rating (none: those imported)
    order: Annotated[list[str], msgspec.Meta(max_length=100_000)] = []   # manual: the field, best seed first
                                                                        # (none: the teams' registration order)


class Forfeit(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    absent: str                               # the team that did not play
    reason: Reason = "no-show"


class CheckIn(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId


class NewReferee(msgspec.Struct, forbid_unknown_fields=True):
    user_id: str | None = None
    person: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None   # a login, or a public name


class ChampionshipSettings(msgspec.Struct):
    format: str
    game: str
    profile: str
    switches: dict[str, bool | int | str | None]
    match_games: int
    game_target: int
    table_mode: str
    schedule: list[RoundSlot]
    seeding: str
    swiss_rounds: int
    group_size: int
    qualifiers_per_group: int
    grand_final_reset: bool
    duplicate_boards: int = 4


class TeamOut(msgspec.Struct):
    team_id: str
    players: list[str]
    substitutes: list[str]
    late: bool
    withdrawn: bool
    name: str = ""                    # what the organiser named it (an imported team), else ""
    club: str = ""
    region: str = ""
    rating: float | None = None


class RankOut(msgspec.Struct):
    rank: int
    team_id: str
    reached: str


class ChampionshipSummary(msgspec.Struct):
    championship_id: str
    name: str
    status: str
    settings: ChampionshipSettings
    teams: list[TeamOut]
    rounds: int                               # rounds paired so far
    draw_commitment: str | None               # sha256(seed), published when registration closes
    draw_seed: str | None                     # revealed by the draw
    draw_order: list[str]
    champion: str | None
    ranking: list[RankOut]
    version: int
    team_count: int
    run: RunSettings                          # check-in window, turn clock, bots' level and pace
    names: dict[str, str] = {}                # teams=false: the champion's and the first eight's names


class CheckInOut(msgspec.Struct):
    championship_id: str
    round: int
    match_id: str
    replayed: bool
    checked_in: list[str]                     # the match's players checked in so far
    closes_at: str                            # when the window closes: who is not in by then forfeits
    tables: list[str]                         # the match's table, once both teams are in


class ChampionshipCommandOut(msgspec.Struct):
    championship_id: str
    version: int
    replayed: bool
    events: list[str]
    summary: ChampionshipSummary


class MatchTable(msgspec.Struct):
    table_id: str
    game_no: int
    status: str
    seats: list[str]


class RoundStarted(ChampionshipCommandOut):
    round: int
    tables: list[MatchTable]


class MatchOut(msgspec.Struct):
    match_id: str
    round: int
    stage: str
    team_a: str | None
    team_b: str | None
    note: str
    status: Literal["waiting", "playing", "decided"]
    outcome: str | None                       # played, forfeit, double_forfeit, bye, walkover, void
    winner: str | None
    games: tuple[int, int] | None             # game wins of team A and team B
    tables: list[MatchTable]


class PairingOut(msgspec.Struct):
    match_id: str
    stage: str
    team_a: str | None
    team_b: str | None                        # None: a bye
    note: str


class PairingsOut(msgspec.Struct):
    round: int | None                         # None: no round waits to start (not drawn yet, or one is played)
    matches: list[PairingOut]
    names: dict[str, str]                     # what people call each team paired


class BracketOut(msgspec.Struct):
    """The bracket projection as it is: its matches (nodes), the winner/loser edges, each team's path."""

    nodes: list[bracket_projection.Node]
    edges: list[bracket_projection.Edge]
    paths: dict[str, list[str]]
    names: dict[str, str] = {}                # round= or team=: the names of the teams in its matches


class BracketSectionOut(msgspec.Struct):
    """A section of a bracket as a page draws it: ``size`` matches of one stage's round and, column by column,
    the matches their winners go on to (slots not paired yet are empty); the stages' outline; the teams' names."""

    section: bracket_projection.Section
    names: dict[str, str]


class TeamFound(msgspec.Struct):
    team_id: str
    name: str                                 # its own name, else its players' names
    players: list[str]
    last_match: str | None                    # where it is (or went out) in the bracket


class ChampionshipListed(msgspec.Struct):
    championship_id: str
    name: str
    format: str
    status: str
    teams: int
    rounds: int                               # rounds paired so far
    champion: str | None
    created_at: dt.datetime
    champion_name: str = ""                   # what people call the champion (its name, else its players')


class RefereeGranted(msgspec.Struct):
    championship_id: str
    user_id: str
    role: str


class RefereeOut(msgspec.Struct):
    """A referee as his organiser sees him: his public name, never his login (half of a sign-in: anyone may make
    a championship and name anybody its referee, so the list must not turn a name into a login)."""

    user_id: str
    name: str


class TeamRegistration(ChampionshipCommandOut):
    team_id: str
    status: Literal["invited", "registered", "declined"]   # invited: waiting for the players in `waiting`
    waiting: list[str]


class ProposalOut(msgspec.Struct):
    team_id: str
    players: list[str]
    substitutes: list[str]
    proposed_by: str
    waiting: list[str]                        # the players and substitutes who have not accepted yet
    status: Literal["invited", "declined"]


class Extension(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    seconds: Annotated[float, msgspec.Meta(gt=0, le=3600)] = 300.0


class CheckInWindow(msgspec.Struct):
    championship_id: str
    round: int
    closes_at: str


def summary(championship_id: str, champ) -> ChampionshipSummary:
    """A championship as ``GET /championships/{id}`` gives it (``champ``: the service's ``Championship``)."""
    state = champ.state
    s = state.settings
    settings = ChampionshipSettings(s.format, s.game, s.profile, decode_switches(s.switches), s.match_games, s.game_target,
                                    s.table_mode, list(s.schedule), s.seeding, s.swiss_rounds, s.group_size,
                                    s.qualifiers_per_group, s.grand_final_reset, s.duplicate_boards)
    teams = [TeamOut(t.team_id, list(t.players), list(t.substitutes), t.late, t.withdrawn,
                     **(msgspec.structs.asdict(t.info) if t.info else {}))
             for t in (state.teams[tid] for tid in state.team_order)]
    draw = state.draw
    return ChampionshipSummary(
        championship_id, s.name, state.status, settings, teams, len(state.rounds), state.commitment or None,
        (draw.seed or None) if draw else None, list(draw.order) if draw else [], state.champion,
        [RankOut(r.rank, r.team_id, r.reached) for r in state.ranking], champ.version, len(state.team_order),
        champ.run)
