"""A championship's progression (``domain/tournament/progression.py``): the next step the workers take from its
state, its check-in window and the clock, and the steps one after the other up to its champion. Each
expectation is written by hand."""

from __future__ import annotations

import datetime as dt

from domain.tournament import (
    CloseRegistration, CommitDraw, FinishChampionship, MakeDraw, RecordDoubleForfeit, RecordForfeit,
    RegisterTeam, StartRound, commitment,
)
from domain.tournament.events import RoundSlot
from domain.tournament.progression import (
    CheckingIn, ClosingRegistration, Course, Drawing, Finishing, NoShows, Playing, RoundStarting, Wait,
    next_step, runs_itself, slot_times,
)
from tests.tournament.helpers import created, run

SIX = dt.datetime(2026, 5, 1, 18, 0, tzinfo=dt.UTC)
MINUTE = dt.timedelta(minutes=1)
SCHEDULE = (RoundSlot(1, "2026-05-01T18:00:00"), RoundSlot(2, "2026-05-01T20:00:00+00:00"))


def registered(teams: int, **settings):
    return run(created("single_elimination", **settings),
               *(RegisterTeam(f"T{i}", (f"P{i}a", f"P{i}b")) for i in range(1, teams + 1)))


def drawn(teams: int, **settings):
    return run(registered(teams, **settings), CloseRegistration(), CommitDraw(commitment("s")), MakeDraw(seed="s"))


def decided(state):
    """Every undecided match of the current round forfeited by its team B (a bye needs nothing)."""
    current = state.rounds[-1]
    return run(state, *(RecordForfeit(m.match_id, m.team_b) for m in current.matches
                        if current.outcomes[m.index] is None))


def test_the_schedules_times_are_aware_and_a_time_without_zone_is_utc():
    assert slot_times(registered(2, schedule=SCHEDULE).settings) == {
        1: SIX, 2: dt.datetime(2026, 5, 1, 20, 0, tzinfo=dt.UTC)}
    assert runs_itself(registered(2, schedule=SCHEDULE))
    assert not runs_itself(registered(2))


def test_round_1_waits_for_its_slot_then_registration_closes_the_draw_is_made_and_it_starts():
    state = registered(4, schedule=SCHEDULE)
    assert next_step(Course(state), SIX - MINUTE) == Wait("waiting for round 1", SIX)
    assert next_step(Course(state), SIX) == ClosingRegistration()
    state = run(state, CloseRegistration(), CommitDraw(commitment("s")))
    assert next_step(Course(state), SIX) == Drawing()
    state = run(state, MakeDraw(seed="s"))
    assert next_step(Course(state), SIX) == RoundStarting(1)
    assert RoundStarting(1).command_id == "tick/round-1/start"


def test_round_1_waits_for_two_teams_and_for_a_draw_the_organiser_makes():
    assert next_step(Course(registered(1, schedule=SCHEDULE)), SIX) == Wait("waiting for teams")
    closed = run(registered(4, schedule=SCHEDULE, seeding="rating"), CloseRegistration())
    assert next_step(Course(closed), SIX) == Wait("waiting for the organiser's draw")


def test_without_a_schedule_the_organiser_runs_it_and_only_the_check_in_windows_close_by_themselves():
    state = run(drawn(4), StartRound(1))
    assert next_step(Course(state), SIX) == Wait("run by its organiser")
    assert next_step(Course(registered(4)), SIX) == Wait("run by its organiser")
    assert next_step(Course(state, SIX + MINUTE), SIX) == CheckingIn(1, SIX + MINUTE)
    assert next_step(Course(state, SIX), SIX) == NoShows(1, close=True)
    assert next_step(Course(decided(state), SIX), SIX) == Wait("run by its organiser")


def test_a_schedule_from_round_2_leaves_round_1_to_the_organiser():
    schedule = (RoundSlot(2, "2026-05-01T20:00:00Z"),)
    assert next_step(Course(drawn(4, schedule=schedule)), SIX) == Wait("waiting for the organiser's round 1")
    state = decided(run(drawn(4, schedule=schedule), StartRound(1)))
    assert next_step(Course(state), SIX) == Wait("waiting for round 2", SIX + 120 * MINUTE)
    assert next_step(Course(state), SIX + 120 * MINUTE) == RoundStarting(2)


def test_a_round_being_played_opens_its_tables_only_on_a_full_tick():
    state = run(drawn(4, schedule=SCHEDULE), StartRound(1))
    assert next_step(Course(state), SIX) == Playing(1, open_tables=True)
    assert next_step(Course(state), SIX, full=False) == Playing(1, open_tables=False)


def test_the_check_in_window_open_then_closed_then_stored_closed():
    state = run(drawn(4, schedule=SCHEDULE), StartRound(1))
    closes = SIX + 10 * MINUTE
    assert next_step(Course(state, closes), SIX) == CheckingIn(1, closes)
    assert next_step(Course(state, closes), closes) == NoShows(1, close=True)
    assert next_step(Course(state, closes, window_closed=True), SIX) == NoShows(1, close=False)
    assert NoShows(1, close=False).command_id == "tick/round-1/no-shows"


def test_a_decided_round_starts_the_next_at_its_slot_or_at_once_and_the_last_one_finishes():
    state = decided(run(drawn(4, schedule=SCHEDULE), StartRound(1)))
    assert next_step(Course(state), SIX) == Wait("waiting for round 2", SIX + 120 * MINUTE)
    assert next_step(Course(state), SIX + 121 * MINUTE) == RoundStarting(2)
    # Round 3 (of an eight-team bracket) has no slot: it starts as soon as round 2 is decided.
    eight = decided(run(decided(run(drawn(8, schedule=SCHEDULE), StartRound(1))), StartRound(2)))
    assert next_step(Course(eight), SIX + 121 * MINUTE) == RoundStarting(3)
    final = decided(run(state, StartRound(2)))
    assert next_step(Course(final), SIX + 121 * MINUTE) == Finishing()
    assert Finishing.command_id == "tick/finish"
    assert next_step(Course(run(final, FinishChampionship())), SIX) == Wait("finished")


def test_a_double_forfeit_decides_a_match_too():
    state = run(drawn(2, schedule=SCHEDULE), StartRound(1))
    (match,) = state.rounds[-1].matches
    assert next_step(Course(run(state, RecordDoubleForfeit(match.match_id))), SIX) == Finishing()


def test_the_steps_one_after_the_other_take_a_scheduled_cup_to_its_champion():
    """The worker's loop, with the championship's rules standing in for the stored commands: each step, then
    the next, until one waits or ends a tick (a round being played: its results come from the tables)."""
    commands = {ClosingRegistration: lambda s: [CloseRegistration(), CommitDraw(commitment("s"))],
                Drawing: lambda s: [MakeDraw(seed="s")],
                RoundStarting: lambda s: [StartRound(s.round)], Finishing: lambda s: [FinishChampionship()]}
    state, taken, now = registered(4, schedule=SCHEDULE), [], SIX
    while True:
        step = next_step(Course(state), now)
        taken.append(step)
        if isinstance(step, Playing):
            state, now = decided(state), now + 130 * MINUTE          # the round is played
            continue
        if type(step) not in commands:
            break
        state = run(state, *commands[type(step)](step))
    assert taken == [ClosingRegistration(), Drawing(), RoundStarting(1), Playing(1, True), RoundStarting(2),
                     Playing(2, True), Finishing(), Wait("finished")]
    assert state.status == "finished" and state.champion is not None
