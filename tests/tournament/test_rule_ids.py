"""Every refusal names its rule by a stable id from CHAMPIONSHIP_RULES: the API sends these ids to clients."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.tournament import (
    CHAMPIONSHIP_RULES, ChampionshipCreated, CloseRegistration, CommitDraw, CreateChampionship,
    FinishChampionship, MatchGame, MakeDraw, RecordForfeit, RecordMatchResult, RegisterTeam,
    RegistrationClosed, Settings, StartRound, SubstitutePlayer, TeamRegistered, ChampionshipRuleError,
    WithdrawTeam, commitment, game_result, match_result,
)
from domain.tournament import checkin, invitations
from domain.tournament.duplicate import duplicate_result
from domain.tournament.invitations import TeamInvitationAnswered, TeamProposed
from domain.tournament.results import MatchResult
from tests.tournament.helpers import created, drawn, given, run

WIN_A = match_result([MatchGame(152, 80, "a")])
REGISTERED = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b"), ("s",)))
CLOSED = run(REGISTERED, CloseRegistration())
PLAYING = run(drawn(4), StartRound(1))
DECIDED = run(drawn(2), StartRound(1), RecordMatchResult("1-1", WIN_A))


def _bye_of(state):
    return next(m.match_id for m in state.rounds[0].matches if m.note == "bye")


# A scripted sequence of bad commands, one or more per rule, each with the id clients see today.
BAD_COMMANDS = [
    (given(), CloseRegistration(), "tournament_rule"),
    (created(), CreateChampionship("cup", Settings("x")), "championship_exists"),
    (given(), CreateChampionship("cup", Settings("x", format="knockout")), "unknown_format"),
    (given(), CreateChampionship("cup", Settings("x", match_games=4)), "match_length"),
    (given(), CreateChampionship("cup", Settings("x", game_target=0)), "game_target"),
    (given(), CreateChampionship("cup", Settings("x", "groups_knockout", qualifiers_per_group=3)),
     "groups_settings"),
    (given(), CreateChampionship("cup", Settings("x", "groups_knockout", group_size=1)), "groups_settings"),
    (CLOSED, RegisterTeam("T2", ("c", "d")), "registration_closed"),
    (REGISTERED, RegisterTeam("T1", ("c", "d")), "already_registered"),
    (REGISTERED, RegisterTeam("T2", ("a", "d")), "already_registered"),
    (REGISTERED, RegisterTeam("T2", ("c", "c")), "team_players"),
    (REGISTERED, WithdrawTeam("T9"), "unknown_team"),
    (run(REGISTERED, WithdrawTeam("T1")), WithdrawTeam("T1"), "team_withdrawn"),
    (run(REGISTERED, WithdrawTeam("T1")), SubstitutePlayer("T1", "a", "s"), "team_withdrawn"),
    (REGISTERED, SubstitutePlayer("T1", "a", "x"), "not_a_substitute"),
    (REGISTERED, SubstitutePlayer("T1", "x", "s"), "not_in_team"),
    (CLOSED, CloseRegistration(), "registration_not_open"),
    (drawn(2), CommitDraw(commitment("s")), "draw_commitment"),
    (run(REGISTERED, CommitDraw(commitment("s"))), CommitDraw(commitment("s")), "draw_commitment"),
    (REGISTERED, CommitDraw("not a digest"), "draw_commitment"),
    (given(ChampionshipCreated("cup", Settings("x", seeding="rating"))), CommitDraw(commitment("s")),
     "tournament_rule"),
    (CLOSED, MakeDraw(seed="s"), "draw_commitment"),
    (run(REGISTERED, CommitDraw(commitment("s")), CloseRegistration()), MakeDraw(seed="t"), "seed_mismatch"),
    (given(ChampionshipCreated("cup", Settings("x", seeding="rating")), TeamRegistered("T1", ("a", "b")),
           RegistrationClosed(1)), MakeDraw(), "missing_rating"),
    (REGISTERED, MakeDraw(seed="s"), "draw_not_allowed"),
    (given(ChampionshipCreated("cup", Settings("x")), RegistrationClosed(0)), MakeDraw(seed="s"), "no_teams"),
    (REGISTERED, StartRound(1), "draw_first"),
    (REGISTERED, FinishChampionship(), "draw_first"),
    (drawn(4), StartRound(2), "wrong_round"),
    (PLAYING, StartRound(2), "round_undecided"),
    (PLAYING, FinishChampionship(), "round_undecided"),
    (DECIDED, StartRound(2), "championship_decided"),
    (run(PLAYING, RecordMatchResult("1-1", WIN_A), RecordMatchResult("1-2", WIN_A)), FinishChampionship(),
     "rounds_remaining"),
    (drawn(2), RecordMatchResult("1-1", WIN_A), "no_round"),
    (PLAYING, RecordMatchResult("2-1", WIN_A), "unknown_match"),
    (run(drawn(3), StartRound(1)), RecordMatchResult(_bye_of(run(drawn(3), StartRound(1))), WIN_A),
     "nothing_to_play"),
    (DECIDED, RecordMatchResult("1-1", WIN_A), "match_decided"),
    (PLAYING, RecordForfeit("1-1", "T9"), "not_in_match"),
    (run(drawn(2, match_games=3), StartRound(1)), RecordMatchResult("1-1", WIN_A), "match_length"),
    (PLAYING, RecordMatchResult("1-1", match_result([MatchGame(120, 80, "a")])), "game_target"),
    (run(DECIDED, FinishChampionship()), WithdrawTeam("T1"), "championship_finished"),
    (run(drawn(2, "duplicate", duplicate_boards=2), StartRound(1)),
     RecordMatchResult("1-1", duplicate_result([(16, 0)])), "duplicate_boards"),
    (run(drawn(2, "duplicate", duplicate_boards=1), StartRound(1)),
     RecordMatchResult("1-1", MatchResult(1, 0, 0, 16, ((0, 16),), "a")), "duplicate_result"),
]


def test_every_refusal_names_a_documented_rule():
    seen = set()
    for state, command, expected in BAD_COMMANDS:
        with pytest.raises(ChampionshipRuleError) as error:
            run(state, command)
        assert error.value.rule in CHAMPIONSHIP_RULES, (command, str(error.value))
        assert error.value.rule == expected, (command, str(error.value))
        assert str(error.value) == error.value.message
        seen.add(error.value.rule)
    for refused, expected in OTHER_REFUSALS:
        with pytest.raises(ChampionshipRuleError) as error:
            refused()
        assert error.value.rule == expected
        seen.add(error.value.rule)
    assert seen == CHAMPIONSHIP_RULES         # each documented id is reachable, so none is stale


# The championship rules decided beside the decider: team invitations and check-in.
_PROPOSAL = TeamProposed(team_id="T", players=("a", "b"), substitutes=(), by="a", waiting=("b",))
_DECLINED = invitations.evolve(invitations.evolve({}, _PROPOSAL),
                               TeamInvitationAnswered(team_id="T", user="b", accepted=False))
_NOW = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)


def _extend(round_no: int, seconds: float, closes: dt.datetime) -> list:
    return checkin.decide(checkin.CheckIns(), checkin.ExtendCheckIn(championship=PLAYING, round=round_no,
                                                                    seconds=seconds, by="organiser", now=_NOW,
                                                                    closes=closes))


OTHER_REFUSALS = [
    (lambda: invitations.decide(invitations.evolve({}, _PROPOSAL),
                                invitations.ProposeTeam(RegisterTeam("T", ("c", "d")), "c")), "already_proposed"),
    (lambda: invitations.decide(_DECLINED, invitations.AnswerTeamInvitation("T", "b", True)), "invitation_declined"),
    (lambda: checkin.decide(checkin.CheckIns(), checkin.CheckIn(
        round=1, match_id=PLAYING.rounds[0].matches[0].match_id, team_id="T1", player="P1a", by="P1a", now=_NOW,
        closes=_NOW)), "check_in_closed"),
    (lambda: run(given(ChampionshipCreated("cup", Settings("x", seeding="manual")),
                       TeamRegistered("T1", ("a", "b")), TeamRegistered("T2", ("c", "d")), RegistrationClosed(2)),
                 MakeDraw(order=("T1",))), "draw_order"),
    (lambda: _extend(1, 0, _NOW + dt.timedelta(minutes=5)), "bad_extension"),
    (lambda: _extend(1, 60, _NOW), "check_in_closed"),
    (lambda: _extend(2, 60, _NOW + dt.timedelta(minutes=5)), "wrong_round"),
]


def test_results_from_games_name_their_rules():
    for bad, expected in ((lambda: match_result([MatchGame(152, 0, "a")] * 2), "match_length"),
                          (lambda: match_result([MatchGame(152, 0, "a")], 3), "tournament_rule"),
                          (lambda: game_result((100, 100)), "tournament_rule")):
        with pytest.raises(ChampionshipRuleError) as error:
            bad()
        assert error.value.rule == expected


def test_an_unknown_rule_id_fails_loudly():
    with pytest.raises(ValueError, match="unknown tournament rule id 'registration_closd'"):
        ChampionshipRuleError("registration_closd", "registration is closed")
