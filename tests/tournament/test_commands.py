"""One rule per test: given these events, when this command, then these events (or this error)."""

from __future__ import annotations

from domain.tournament import (
    ChampionshipCreated, ChampionshipFinished, CloseRegistration, CreateChampionship,
    DrawCommitted, DrawMade, FinishChampionship, MatchGame, MakeDraw, MatchDoubleForfeited, MatchForfeited,
    MatchResultRecorded, PlayerSubstituted, RecordDoubleForfeit, RecordForfeit, RecordMatchResult,
    RegisterTeam, RegistrationClosed, RoundPaired, Settings, StartRound, SubstitutePlayer, TeamRegistered,
    TeamWithdrawn, WithdrawTeam, commitment, match_result,
)
from tests.tournament.helpers import created, drawn, given, run, then_error, when

WIN_A = match_result([MatchGame(152, 80, "a")])
WIN_B = match_result([MatchGame(90, 160, "b")])


def test_create_championship():
    settings = Settings("Kingdom Cup", "single_elimination")
    assert when(given(), CreateChampionship("cup", settings)) == [ChampionshipCreated("cup", settings)]


def test_a_championship_is_created_once():
    then_error(created(), CreateChampionship("cup", Settings("x")),
               "championship cup already exists", "championship_exists")


def test_match_length_is_odd():
    then_error(given(), CreateChampionship("cup", Settings("x", match_games=2)),
               "a match is best of an odd number of games, not 2", "match_length")


def test_commands_need_a_championship():
    then_error(given(), CloseRegistration(), "no championship has been created yet", "tournament_rule")


def test_register_team():
    assert when(created(), RegisterTeam("T1", ("a", "b"), ("c",))) == [
        TeamRegistered("T1", ("a", "b"), ("c",))]


def test_team_ids_are_unique():
    state = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b")))
    then_error(state, RegisterTeam("T1", ("c", "d")), "team T1 is already registered", "already_registered")


def test_a_player_plays_for_one_team():
    state = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b")))
    then_error(state, RegisterTeam("T2", ("b", "d")),
               "player b is already registered with team T1", "already_registered")


def test_no_entries_after_registration_closes_except_swiss():
    state = given(ChampionshipCreated("cup", Settings("x")), RegistrationClosed(0))
    then_error(state, RegisterTeam("T9", ("y", "z")),
               "registration is closed: late entries are accepted only in Swiss", "registration_closed")


def test_late_entry_in_swiss_joins_the_next_round():
    state = run(drawn(4, "swiss"), StartRound(1))
    assert when(state, RegisterTeam("T9", ("y", "z"))) == [TeamRegistered("T9", ("y", "z"), (), True)]
    state = run(state, RegisterTeam("T9", ("y", "z")),
                *(RecordMatchResult(m.match_id, WIN_A) for m in state.rounds[-1].matches))
    state = run(state, StartRound(2))
    assert any("T9" in (m.team_a, m.team_b) for m in state.rounds[-1].matches)


def test_close_registration():
    state = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b")))
    assert when(state, CloseRegistration()) == [RegistrationClosed(1)]


def test_commitment_is_published_before_the_draw():
    state = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b")),
                  RegistrationClosed(1))
    then_error(state, MakeDraw(seed="s"),
               "the draw commitment must be published before the draw", "draw_commitment")


def test_seed_must_match_the_commitment():
    state = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b")),
                  DrawCommitted(commitment("right")), RegistrationClosed(1))
    then_error(state, MakeDraw(seed="wrong"),
               "the revealed seed does not match the published commitment", "seed_mismatch")


def test_draw_reveals_the_seed_and_the_order():
    state = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b")),
                  TeamRegistered("T2", ("c", "d")), DrawCommitted(commitment("s")), RegistrationClosed(2))
    [event] = when(state, MakeDraw(seed="s"))
    assert event.seed == "s" and sorted(event.order) == ["T1", "T2"]
    assert commitment(event.seed) == state.commitment


def test_withdrawn_teams_are_not_drawn():
    state = given(ChampionshipCreated("cup", Settings("x")), TeamRegistered("T1", ("a", "b")),
                  TeamRegistered("T2", ("c", "d")), TeamWithdrawn("T2"), DrawCommitted(commitment("s")),
                  RegistrationClosed(1))
    assert when(state, MakeDraw(seed="s"))[0].order == ("T1",)


def test_seeding_by_rating_needs_every_rating():
    state = given(ChampionshipCreated("cup", Settings("x", seeding="rating")),
                  TeamRegistered("T1", ("a", "b")), TeamRegistered("T2", ("c", "d")), RegistrationClosed(2))
    then_error(state, MakeDraw(ratings=(("T1", 20.0),)),
               "team T2 has no rating: seeding by rating needs every team's", "missing_rating")
    [event] = when(state, MakeDraw(ratings=(("T1", 20.0), ("T2", 30.0))))
    assert event == DrawMade("rating", "", ("T2", "T1"), (("T1", 20.0), ("T2", 30.0)), 0)


def test_rounds_start_in_order():
    then_error(drawn(4), StartRound(2), "the next round is round 1, not 2", "wrong_round")


def test_a_round_waits_for_the_previous_one():
    then_error(run(drawn(4), StartRound(1)), StartRound(2),
               "round 1 still has 2 undecided matches", "round_undecided")


def test_start_round_records_the_pairing_with_its_inputs():
    [event] = when(drawn(4), StartRound(1))
    assert isinstance(event, RoundPaired) and len(event.matches) == 2
    assert event.inputs.lists[0] == tuple(drawn(4).draw.order[s] for s in (0, 3, 1, 2))


def test_record_match_result():
    state = run(drawn(2), StartRound(1))
    m = state.rounds[0].matches[0]
    assert when(state, RecordMatchResult("1-1", WIN_B)) == [
        MatchResultRecorded("1-1", m.team_b, m.team_a, WIN_B)]


def test_a_result_is_recorded_once():
    state = run(drawn(2), StartRound(1), RecordMatchResult("1-1", WIN_A))
    then_error(state, RecordMatchResult("1-1", WIN_A), "match 1-1 already has a result", "match_decided")


def test_results_only_for_the_round_being_played():
    then_error(run(drawn(4), StartRound(1)), RecordMatchResult("2-1", WIN_A),
               "match 2-1 is not a match of round 1, the round being played", "unknown_match")


def test_byes_have_nothing_to_play():
    state = run(drawn(3), StartRound(1))
    bye = next(m for m in state.rounds[0].matches if m.note == "bye")
    then_error(state, RecordMatchResult(bye.match_id, WIN_A),
               f"match {bye.match_id} is a bye: there is nothing to play", "nothing_to_play")


def test_strict_tables_end_games_at_the_target():
    state = run(drawn(2), StartRound(1))
    short = match_result([MatchGame(120, 80, "a")])
    then_error(state, RecordMatchResult("1-1", short),
               "match 1-1, game 1: a game ends when a team reaches 152 and leads, not at 120-80",
               "game_target")


def test_best_of_three_needs_two_game_wins():
    state = run(drawn(2, match_games=3), StartRound(1))
    then_error(state, RecordMatchResult("1-1", WIN_A),
               "match 1-1 is best of 3: the winner needs exactly 2 game wins", "match_length")


def test_forfeit():
    state = run(drawn(2), StartRound(1))
    m = state.rounds[0].matches[0]
    assert when(state, RecordForfeit("1-1", m.team_a)) == [MatchForfeited("1-1", m.team_b, m.team_a)]


def test_forfeit_names_a_team_of_the_match():
    then_error(run(drawn(2), StartRound(1)), RecordForfeit("1-1", "T9"),
               "team T9 does not play in match 1-1", "not_in_match")


def test_double_forfeit():
    state = run(drawn(2), StartRound(1))
    m = state.rounds[0].matches[0]
    assert when(state, RecordDoubleForfeit("1-1")) == [MatchDoubleForfeited("1-1", (m.team_a, m.team_b))]


def test_withdrawal_mid_round_forfeits_the_pending_match():
    state = run(drawn(2), StartRound(1))
    m = state.rounds[0].matches[0]
    assert when(state, WithdrawTeam(m.team_a, "ill")) == [
        TeamWithdrawn(m.team_a, "ill"), MatchForfeited("1-1", m.team_b, m.team_a, "withdrawn")]


def test_withdrawn_team_forfeits_when_its_next_round_is_paired():
    state = run(drawn(4), StartRound(1), RecordMatchResult("1-1", WIN_A), RecordMatchResult("1-2", WIN_A))
    state = run(state, WithdrawTeam(state.rounds[0].matches[0].team_a))
    events = when(state, StartRound(2))
    assert isinstance(events[1], MatchForfeited) and events[1].reason == "withdrawn"


def test_a_team_withdraws_once():
    state = run(drawn(2), WithdrawTeam("T1"))
    then_error(state, WithdrawTeam("T1"), "team T1 has already withdrawn", "team_withdrawn")


def test_substitution_brings_in_a_registered_substitute():
    state = drawn(2)
    assert when(state, SubstitutePlayer("T1", "P1a", "P1s")) == [PlayerSubstituted("T1", "P1a", "P1s", 1)]
    then_error(state, SubstitutePlayer("T1", "P1a", "X"),
               "player X is not a registered substitute of team T1", "not_a_substitute")
    then_error(state, SubstitutePlayer("T1", "P2a", "P1s"),
               "player P2a is not playing for team T1", "not_in_team")
    assert run(state, SubstitutePlayer("T1", "P1a", "P1s")).teams["T1"].players == ("P1s", "P1b")


def test_finish_names_the_champion():
    state = run(drawn(2), StartRound(1), RecordMatchResult("1-1", WIN_A))
    [event] = when(state, FinishChampionship())
    assert isinstance(event, ChampionshipFinished) and event.champion == state.rounds[0].matches[0].team_a
    assert [r.rank for r in event.ranking] == [1, 2]


def test_finish_waits_for_the_last_round():
    then_error(run(drawn(4), StartRound(1), RecordMatchResult("1-1", WIN_A), RecordMatchResult("1-2", WIN_A)),
               FinishChampionship(), "round 2 remains to be played", "rounds_remaining")


def test_no_round_after_the_final():
    state = run(drawn(2), StartRound(1), RecordMatchResult("1-1", WIN_A))
    then_error(state, StartRound(2),
               "the championship is decided: there is no round 2", "championship_decided")


def test_a_finished_championship_takes_no_commands():
    state = run(drawn(2), StartRound(1), RecordMatchResult("1-1", WIN_A), FinishChampionship())
    then_error(state, WithdrawTeam("T1"), "the championship is finished", "championship_finished")


def test_field_of_one_is_champion_without_playing():
    state = run(drawn(1), FinishChampionship())
    assert state.champion == "T1" and state.rounds == ()


def test_a_game_won_by_gahwa_or_forfeit_may_end_below_the_target():
    state = run(drawn(2), StartRound(1))
    gahwa = match_result([MatchGame(40, 152 + 30, "b", "gahwa")])
    assert gahwa.game_ends == ("gahwa",)
    after = run(state, RecordMatchResult("1-1", gahwa))
    assert after.rounds[0].outcomes[0].result == gahwa
    forfeit = match_result([MatchGame(120, 80, "b", "forfeit")])     # the leader on points lost by forfeit
    after = run(state, RecordMatchResult("1-1", forfeit))
    assert after.rounds[0].outcomes[0].winner == state.rounds[0].matches[0].team_b
