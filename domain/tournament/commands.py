"""Championship commands: imperative, tagged, and carrying everything the decision needs (seeds too)."""

from __future__ import annotations

import msgspec

from domain.tournament.events import Settings, TeamInfo
from domain.tournament.results import MatchResult


class _Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


class CreateChampionship(_Command, tag="create_championship"):
    championship_id: str
    settings: Settings


class RegisterTeam(_Command, tag="register_team"):
    team_id: str
    players: tuple[str, ...]                  # two; a duplicate team may be four (two pairs)
    substitutes: tuple[str, ...] = ()
    info: TeamInfo | None = None              # its name, club, region, rating (an imported team has them)


class WithdrawTeam(_Command, tag="withdraw_team"):
    team_id: str
    reason: str = ""


class CloseRegistration(_Command, tag="close_registration"):
    pass


class CommitDraw(_Command, tag="commit_draw"):
    """Publish sha256(seed) before the draw so the seed cannot be chosen after seeing the field."""

    commitment: str


class MakeDraw(_Command, tag="make_draw"):
    """Reveal the seed (random draw), give every team's rating (seeding by rating), or the order of the field
    (manual seeding: best seed first)."""

    seed: str = ""
    ratings: tuple[tuple[str, float], ...] = ()
    order: tuple[str, ...] = ()


class StartRound(_Command, tag="start_round"):
    round: int


class RecordMatchResult(_Command, tag="record_match_result"):
    match_id: str
    result: MatchResult


class RecordForfeit(_Command, tag="record_forfeit"):
    match_id: str
    absent: str
    reason: str = "no-show"


class RecordDoubleForfeit(_Command, tag="record_double_forfeit"):
    match_id: str
    reason: str = "both absent"


class SubstitutePlayer(_Command, tag="substitute_player"):
    team_id: str
    player_out: str
    player_in: str


class FinishChampionship(_Command, tag="finish_championship"):
    pass


ChampionshipCommand = (CreateChampionship | RegisterTeam | WithdrawTeam | CloseRegistration | CommitDraw
                     | MakeDraw | StartRound | RecordMatchResult | RecordForfeit | RecordDoubleForfeit
                     | SubstitutePlayer | FinishChampionship)
