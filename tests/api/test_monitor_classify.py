"""The monitor's meaning, apart from its reads: each undecided match's state from what is known of it and the
clock (``classify``), what needs the organiser and in which order (``needs_of``), which tables have a call
waiting for the referee (``open_calls``). Pure functions: no database, expectations written by hand."""

from __future__ import annotations

import datetime as dt

from domain.table import RefereeCalled, RulingMade
from services.championships.monitor import Seen, classify, needs_of, open_calls

NOW = dt.datetime(2026, 5, 1, 18, 0, tzinfo=dt.UTC)
STALL = dt.timedelta(minutes=5)
OPEN = NOW + dt.timedelta(minutes=10)          # a check-in window still open
CLOSED = NOW - dt.timedelta(minutes=1)         # one that closed a minute ago


def seen(tables=False, latest=None, qayd=False, called=False, checked_in=(False, False)) -> Seen:
    return Seen(tables, latest, qayd, called, checked_in)


def test_a_dispute_comes_before_a_stall_and_a_stall_before_play():
    stale = NOW - dt.timedelta(minutes=6)
    assert classify(seen(True, stale, called=True), NOW, STALL, None) == "disputed"
    assert classify(seen(True, stale, qayd=True), NOW, STALL, None) == "disputed"
    assert classify(seen(True, stale), NOW, STALL, None) == "stalled"
    assert classify(seen(True, NOW - dt.timedelta(minutes=4)), NOW, STALL, None) == "playing"
    assert classify(seen(True, NOW - STALL), NOW, STALL, None) == "playing"       # stalled only past it


def test_a_match_without_a_table_waits_for_its_check_in_only_while_a_team_is_not_in():
    assert classify(seen(checked_in=(True, False)), NOW, STALL, OPEN) == "waiting_check_in"
    assert classify(seen(checked_in=(True, True)), NOW, STALL, OPEN) == "waiting"
    assert classify(seen(), NOW, STALL, None) == "waiting"                       # no window: it just waits
    assert classify(seen(True, checked_in=(False, False)), NOW, STALL, OPEN) == "playing"


def test_the_needs_come_no_shows_first_then_stalls_then_disputes_then_the_round():
    facts = {"m1": seen(True, called=True), "m2": seen(True, NOW - dt.timedelta(minutes=12)),
             "m3": seen(checked_in=(True, False)), "m4": seen(checked_in=(False, False))}
    kinds = {"m1": "disputed", "m2": "stalled", "m3": "waiting_check_in", "m4": "waiting_check_in",
             "m5": "finished"}
    names = {"m1": ("A", "B"), "m2": ("C", "D"), "m3": ("E", "F"), "m4": ("G", "H")}
    needs = needs_of(2, kinds, facts, names, NOW, CLOSED, None)
    assert [(a.kind, a.match_id, a.detail) for a in needs] == [
        ("no_show", "m3", "F did not check in by the window's end"),
        ("no_show", "m4", "G and H did not check in by the window's end"),
        ("stalled", "m2", "C v D: nothing played for 12 min"),
        ("disputed", "m1", "A v B: a call waits for the referee"),
    ]
    # While the window is open nobody is late yet.
    assert [a.kind for a in needs_of(2, kinds, facts, names, NOW, OPEN, None)] == ["stalled", "disputed"]


def test_a_decided_round_asks_for_the_next_or_for_the_end():
    (ready,) = needs_of(3, {"m1": "finished"}, {}, {}, NOW, None, "round")
    assert (ready.kind, ready.detail, ready.match_id) == ("round_ready", "round 3 is decided: start round 4", None)
    (over,) = needs_of(3, {"m1": "finished"}, {}, {}, NOW, None, "end")
    assert over.kind == "championship_over" and over.detail.startswith("round 3 is decided and none remains")
    assert needs_of(3, {"m1": "finished"}, {}, {}, NOW, None, None) == []


def test_a_qayd_under_review_is_said_as_such():
    (need,) = needs_of(1, {"m1": "disputed"}, {"m1": seen(True, qayd=True)}, {"m1": ("A", "B")}, NOW, None, None)
    assert need.detail == "A v B: a Qayd is under review"


def called(call: int) -> RefereeCalled:
    return RefereeCalled(call=call, seat=0, user="u", part_no=1, reason="connection_loss", note="")


def ruled(call: int | None) -> RulingMade:
    return RulingMade(ruling="reject", reason="seen", referee="r", call=call)


def test_a_call_is_open_until_a_ruling_answers_it_at_its_own_table():
    events = [("table-a", called(1)), ("table-a", called(2)), ("table-a", ruled(1)),
              ("table-b", called(1)), ("table-b", ruled(1)),
              ("table-c", ruled(None)),                                   # a ruling answering no call
              ("table-d", called(1)), ("table-e", ruled(1))]              # a ruling of another table's number
    assert open_calls(events) == {"table-a", "table-d"}
