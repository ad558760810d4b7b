"""Championships (بطولات): the tournament aggregate, its formats and the match-result interface.

Decider style: `decide(state, command) -> events`, `evolve(state, event) -> state`, `initial()`.
Imports only the standard library and msgspec, except `swiss.match_pairs`, which imports networkx
lazily for its weighted matching.
"""

from domain.tournament.commands import (
    CloseRegistration, CommitDraw, CreateChampionship, FinishChampionship, MakeDraw, RecordDoubleForfeit,
    RecordForfeit, RecordMatchResult, RegisterTeam, StartRound, SubstitutePlayer, TournamentCommand,
    WithdrawTeam,
)
from domain.tournament.decider import decide, evolve, fold
from domain.tournament.draw import commitment
from domain.tournament.errors import TOURNAMENT_RULES, TournamentRuleError
from domain.tournament.events import (
    ChampionshipCreated, ChampionshipFinished, DrawCommitted, DrawMade, Match, MatchDoubleForfeited,
    MatchForfeited, MatchResultRecorded, PairingInputs, PlayerSubstituted, RankEntry, RegistrationClosed,
    RoundPaired, RoundSlot, Settings, TeamRegistered, TeamWithdrawn, TournamentEvent,
)
from domain.tournament.results import GameResult, MatchResult, game_result, match_result
from domain.tournament.state import Outcome, Round, Team, Tournament, initial

__all__ = [
    "ChampionshipCreated", "ChampionshipFinished", "CloseRegistration", "CommitDraw", "CreateChampionship",
    "DrawCommitted", "DrawMade", "FinishChampionship", "GameResult", "MakeDraw", "Match",
    "MatchDoubleForfeited", "MatchForfeited", "MatchResult", "MatchResultRecorded", "Outcome",
    "PairingInputs", "PlayerSubstituted", "RankEntry", "RecordDoubleForfeit", "RecordForfeit",
    "RecordMatchResult", "RegisterTeam", "RegistrationClosed", "Round", "RoundPaired", "RoundSlot",
    "Settings", "StartRound", "SubstitutePlayer", "TOURNAMENT_RULES", "Team", "TeamRegistered", "TeamWithdrawn",
    "Tournament", "TournamentCommand", "TournamentEvent", "TournamentRuleError", "WithdrawTeam", "commitment",
    "decide", "evolve", "fold", "game_result", "initial", "match_result",
]
