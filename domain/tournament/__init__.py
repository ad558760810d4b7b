"""Championships (بطولات): the tournament aggregate, its formats and the match-result interface.

Decider style: `decide(state, command) -> events`, `evolve(state, event) -> state`, `initial()`.
Imports only the standard library and msgspec, except `swiss.match_pairs`, which imports networkx
lazily for its weighted matching.
"""

from domain.tournament.commands import (
    CloseRegistration, CommitDraw, CreateChampionship, FinishChampionship, MakeDraw, RecordDoubleForfeit,
    RecordForfeit, RecordMatchResult, RegisterTeam, StartRound, SubstitutePlayer, ChampionshipCommand,
    WithdrawTeam,
)
from domain.tournament.decider import decide, evolve, fold
from domain.tournament.draw import commitment
from domain.tournament.errors import CHAMPIONSHIP_RULES, ChampionshipRuleError
from domain.tournament.events import (
    ChampionshipCreated, ChampionshipFinished, DrawCommitted, DrawMade, Match, MatchDoubleForfeited,
    MatchForfeited, MatchResultRecorded, PairingInputs, PlayerSubstituted, RankEntry, RegistrationClosed,
    RoundPaired, RoundSlot, Settings, TeamInfo, TeamRegistered, TeamWithdrawn, ChampionshipEvent,
)
from domain.tournament.results import MatchGame, MatchResult, game_result, match_result
from domain.tournament.state import MatchOutcome, Round, Team, ChampionshipState, initial

__all__ = [
    "ChampionshipCreated", "ChampionshipFinished", "CloseRegistration", "CommitDraw", "CreateChampionship",
    "DrawCommitted", "DrawMade", "FinishChampionship", "MatchGame", "MakeDraw", "Match",
    "MatchDoubleForfeited", "MatchForfeited", "MatchResult", "MatchResultRecorded", "MatchOutcome",
    "PairingInputs", "PlayerSubstituted", "RankEntry", "RecordDoubleForfeit", "RecordForfeit",
    "RecordMatchResult", "RegisterTeam", "RegistrationClosed", "Round", "RoundPaired", "RoundSlot",
    "Settings", "StartRound", "SubstitutePlayer", "CHAMPIONSHIP_RULES", "Team", "TeamInfo", "TeamRegistered", "TeamWithdrawn",
    "ChampionshipState", "ChampionshipCommand", "ChampionshipEvent", "ChampionshipRuleError", "WithdrawTeam", "commitment",
    "decide", "evolve", "fold", "game_result", "initial", "match_result",
]
