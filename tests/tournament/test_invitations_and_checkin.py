"""Team invitations, check-in and a match's next step are championship rules: given/when/then on the domain's
pure functions (the services only load, append and open tables)."""

from __future__ import annotations

import datetime as dt

import pytest

from domain.seam import MatchGame
from domain.tournament import ChampionshipRuleError, RecordDoubleForfeit, RecordMatchResult, RegisterTeam, StartRound
from domain.tournament import checkin, invitations
from domain.tournament.checkin import (
    CheckIn, CheckInBots, CheckInClosed, CheckIns, CloseCheckIn, PlayerCheckedIn,
)
from domain.tournament.invitations import AnswerTeamInvitation, ProposeTeam, TeamInvitationAnswered, TeamProposed
from domain.tournament.matches import after_games
from tests.tournament.helpers import drawn, run

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.timezone.utc)


def proposed(*events) -> invitations.Invitations:
    invites: invitations.Invitations = {}
    for e in events:
        invites = invitations.evolve(invites, e)
    return invites


TEAM = RegisterTeam("T", ("ali", "badr"), ("sami",))
PROPOSAL = TeamProposed(team_id="T", players=("ali", "badr"), substitutes=("sami",), by="ali",
                        waiting=("badr", "sami"))


def answered(invites, user, accept):
    return invitations.decide(invites, AnswerTeamInvitation("T", user, accept))


def test_a_proposal_invites_everyone_named_but_its_proposer():
    assert invitations.decide({}, ProposeTeam(TEAM, "ali")) == [PROPOSAL]


def test_the_same_proposal_again_is_nothing_new_and_another_one_is_refused():
    invites = proposed(PROPOSAL)
    assert invitations.decide(invites, ProposeTeam(TEAM, "ali")) == []
    with pytest.raises(ChampionshipRuleError) as error:
        invitations.decide(invites, ProposeTeam(RegisterTeam("T", ("badr", "omar")), "badr"))
    assert (error.value.rule, str(error.value)) == ("already_proposed", "team T is already proposed")


def test_the_team_registers_once_every_invitee_accepted_and_never_after_a_refusal():
    invites = proposed(PROPOSAL)
    badr = answered(invites, "badr", True)
    assert badr == [TeamInvitationAnswered(team_id="T", user="badr", accepted=True)]
    invites = proposed(PROPOSAL, *badr)
    assert invitations.registration(invites["T"]) is None                      # sami has not answered
    assert answered(invites, "badr", True) == []                               # badr answered already
    accepted = proposed(PROPOSAL, *badr, *answered(invites, "sami", True))
    assert invitations.registration(accepted["T"]) == TEAM
    declined = proposed(PROPOSAL, *badr, *answered(invites, "sami", False))
    assert invitations.registration(declined["T"]) is None
    with pytest.raises(ChampionshipRuleError) as error:
        answered(declined, "badr", True)
    assert error.value.rule == "invitation_declined"


def test_only_those_named_are_invited():
    invites = proposed(PROPOSAL)
    assert invitations.invited(invites["T"], "badr") and not invitations.invited(invites["T"], "omar")
    assert not invitations.invited(None, "badr")


PLAYING = run(drawn(4), StartRound(1))
FIRST = PLAYING.rounds[0].matches[0]


def test_a_player_checks_in_once_and_not_after_the_window():
    team = FIRST.team_a
    player = PLAYING.teams[team].players[0]
    def check_in(checks, who, closes):
        return checkin.decide(checks, CheckIn(round=1, match_id=FIRST.match_id, team_id=team, player=who, by=who,
                                              now=NOON, closes=closes))

    [event] = check_in(CheckIns(), player, NOON + dt.timedelta(1))
    assert event == PlayerCheckedIn(round=1, match_id=FIRST.match_id, team_id=team, player=player, by=player)
    checks = checkin.evolve(CheckIns(), event)
    assert check_in(checks, player, NOON) == []                                # already in
    other = PLAYING.teams[team].players[1]
    with pytest.raises(ChampionshipRuleError) as error:
        check_in(checks, other, NOON)
    assert error.value.rule == "check_in_closed" and error.value.extra == {"closed_at": NOON.isoformat()}


def test_the_window_closes_on_the_teams_not_in_and_a_match_with_both_in_is_ready():
    checks = CheckIns()
    for team in (FIRST.team_a, FIRST.team_b):
        for p in PLAYING.teams[team].players:
            checks = checkin.evolve(checks, PlayerCheckedIn(round=1, match_id=FIRST.match_id, team_id=team,
                                                            player=p, by=p))
    assert checkin.ready(PLAYING, checks) == {FIRST.match_id}
    second = PLAYING.rounds[0].matches[1]
    close = CloseCheckIn(championship=PLAYING, round=1)
    assert checkin.decide(checks, close) == [CheckInClosed(round=1, absent=(second.team_a, second.team_b))]
    assert checkin.decide(checkin.evolve(checks, CheckInClosed(round=1, absent=())), close) == []


def test_bots_check_in_by_themselves_and_only_bots():
    bot = PLAYING.teams[FIRST.team_a].players[0]
    assert [e.player for e in checkin.decide(CheckIns(), CheckInBots(championship=PLAYING, bots=frozenset({bot})))
            ] == [bot]


def test_only_a_match_still_to_play_takes_check_ins():
    with pytest.raises(ChampionshipRuleError) as error:
        checkin.match_to_check_in(PLAYING, "2-1")
    assert error.value.rule == "unknown_match"
    assert checkin.match_to_check_in(PLAYING, FIRST.match_id) == (PLAYING.rounds[0], FIRST)
    with pytest.raises(ChampionshipRuleError) as error:
        checkin.match_to_check_in(drawn(4), FIRST.match_id)
    assert error.value.rule == "no_round"


def test_a_match_goes_on_until_a_team_has_won_enough_games():
    win_a, win_b = MatchGame(152, 90, "a"), MatchGame(80, 160, "b")
    assert after_games("1-1", [win_a], 3) is None
    assert after_games("1-1", [win_a, win_b], 3) is None
    decided = after_games("1-1", [win_a, win_b, win_a], 3)
    assert isinstance(decided, RecordMatchResult) and decided.result.winner == "a"
    assert (decided.result.team_a_games, decided.result.team_b_games) == (2, 1)
    assert after_games("1-1", [win_a, None], 3) == RecordDoubleForfeit("1-1", "game 2 abandoned by both teams")
