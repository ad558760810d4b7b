"""Properties over random games (random legal actions, random seeds, 1-4 players, both profiles): every
sheet fills exactly, a written score never changes, replay equals the live state, views show no future
dice, and every game's record audits as valid with the same result."""

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain.balut.audit import audit_record
from domain.balut.events import CategoryScored, StartBalut
from domain.balut.game import INITIAL, decide, follow_ups, legal_actions, fold, total_turns
from domain.balut.profiles import IBF, STC
from domain.balut.record import encode_record, export_record, parse_record
from domain.balut.scoring import CATEGORIES
from domain.balut.views import view


def play_random(rng, players, profile, game_seed):
    def seed_of(n):
        return f"{game_seed}:{n}"

    start = StartBalut(players=players, first_player=rng.randrange(players), profile=profile)
    events = follow_ups(INITIAL, decide(INITIAL, start), seed_of)
    states = [fold(events)]
    while states[-1].phase == "playing":
        state = states[-1]
        cmd = rng.choice(legal_actions(state, state.turn))
        new = follow_ups(state, decide(state, cmd), seed_of)
        events.extend(new)
        states.append(fold(new, state))
    return states, events


games = st.tuples(st.randoms(use_true_random=False), st.integers(1, 4), st.sampled_from([STC, STC, IBF]),
                  st.text(max_size=8))


@settings(max_examples=40, deadline=None)
@given(games)
def test_every_sheet_fills_exactly(game):
    rng, players, profile, seed = game
    states, events = play_random(rng, players, profile, seed)
    final = states[-1]
    assert final.phase == "ended" and final.turns == total_turns(final) == players * 7 * profile.fills
    for sheet in final.sheets:
        assert [len(row) for row in sheet] == [profile.fills] * len(CATEGORIES)
    scored = [e for e in events if type(e) is CategoryScored]
    for seat in range(players):
        rows = sorted(e.category for e in scored if e.seat == seat)
        assert rows == sorted(CATEGORIES * profile.fills)


@settings(max_examples=40, deadline=None)
@given(games)
def test_a_written_score_never_changes(game):
    rng, players, profile, seed = game
    states, _ = play_random(rng, players, profile, seed)
    for before, after in zip(states, states[1:]):
        for old, new in zip(before.sheets, after.sheets):
            assert all(new_row[:len(old_row)] == old_row for old_row, new_row in zip(old, new))


@settings(max_examples=40, deadline=None)
@given(games)
def test_replay_equals_the_live_state(game):
    rng, players, profile, seed = game
    states, events = play_random(rng, players, profile, seed)
    assert fold(events) == states[-1]
    # The stored log (no private faces) folds to the same state but for the private faces.
    stored = fold([e for e in events if not e.private])
    assert replace(stored, faces=()) == replace(states[-1], faces=())


@settings(max_examples=30, deadline=None)
@given(games, st.lists(st.integers(1, 6), min_size=15, max_size=15))
def test_views_do_not_depend_on_the_faces_still_to_come(game, other_faces):
    rng, players, profile, seed = game
    states, _ = play_random(rng, players, profile, seed)
    for state in states[:: max(1, len(states) // 10)]:
        for seat in (None, *range(players)):
            seen = view(state, seat)
            assert seen == view(replace(state, faces=tuple(other_faces)), seat)
            assert b'"faces"' not in msgspec.json.encode(seen)


@settings(max_examples=25, deadline=None)
@given(games)
def test_every_game_record_audits_valid_with_the_same_result(game):
    rng, players, profile, seed = game
    states, events = play_random(rng, players, profile, seed)
    report = audit_record(parse_record(encode_record(export_record(events))))
    result = states[-1].result
    assert report.valid and report.complete, report.violations
    assert report.seeds_checked == states[-1].turns
    assert (tuple(report.totals), tuple(report.points), tuple(report.places)) == (
        result.totals, result.points, result.places)
