"""The referee's desk on a deal, pure: each event a step (kind, seat, value, words) with the audit's own
narration of a player's action, the players named instead of seats, and the engine's verdict on an
accusation, the one it gave or the one it would give now."""

from domain.baloot import deal as deal_mod
from domain.baloot import desk
from domain.baloot.audit import audit_record, narrate
from domain.baloot.deal import INITIAL
from domain.baloot.events import Bid, CallQayd, Declare, Double, PlayCard, StartDeal
from domain.baloot.handrecord import export_record
from domain.baloot.profiles import SAUDI
from tests.engine.given import card, cards, make_deck
from tests.engine.test_qayd import ANSWER, HANDS

PLAYERS = ["Amal", "Badr", "Chadi", "Dana"]


def events_of(table_mode="recorded", *more):
    """A deal's stored events: Hokum ♠ bought by seat 0, who declares his sira and leads A♥; seat 1 answers
    with J♦ while holding hearts (a revoke, stored as made at a recorded table)."""
    state, out = INITIAL, []
    for cmd in (StartDeal(dealer=3, profile=SAUDI, table_mode=table_mode, scores_before=(0, 0),
                          deck=make_deck(3, HANDS, "8S", 0)),
                Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"),
                Double(1, "pass"), Double(3, "pass"), Declare(0, (tuple(cards("QH KH AH")),)),
                PlayCard(0, card("AH")), PlayCard(1, card("JD")), *more):
        state, events = deal_mod.step(state, cmd)
        out += events
    return out


def walk(events):
    state, steps = desk.INITIAL, []
    for e in events:
        before, state = state, desk.evolve(state, e)
        steps.append(desk.step(before, state, e))
    return [s for s in steps if s is not None], state


def test_each_action_is_a_step_with_its_index_and_the_players_named():
    steps, state = walk(events_of())
    plays = [s for s in steps if s.kind == "play"]
    assert [(s.seat, s.index) for s in plays] == [(0, ANSWER - 1), (1, ANSWER)]
    revoke = plays[1]
    assert revoke.words == "revoke" and revoke.value == "JD"
    assert revoke.text(PLAYERS).startswith("Badr plays ") and "illegal: revoke" in revoke.text(PLAYERS)
    assert "seat" not in " ".join(s.text(PLAYERS) for s in steps)
    fixed = next(s for s in steps if s.kind == "contract_fixed")
    assert fixed.index is None and fixed.seat is None and fixed.text(PLAYERS) == "the contract is fixed"
    assert desk.referee_view(state).hands is not None


def test_the_desk_and_the_audit_say_an_action_in_the_same_words():
    events = events_of()
    report = audit_record(export_record(events))
    steps, _ = walk(events)
    revoke = next(s for s in steps if s.kind == "play" and s.seat == 1)
    assert revoke.narration == narrate(ANSWER, events[[i for i, e in enumerate(events)
                                                       if getattr(e, "offence", None)][0]])
    assert revoke.narration.line() in report.actions
    assert revoke.narration.line().startswith(f"#{ANSWER} seat 1 plays ")


def test_the_verdict_on_an_accusation_is_the_engines_now_and_the_one_it_gave():
    verdict, problem = desk.verdict(events_of(), 2, ANSWER)
    assert problem is None and verdict.proven and verdict.rule == "revoke" and verdict.accused == 1
    unfounded, _ = desk.verdict(events_of(), 1, ANSWER - 1)
    assert not unfounded.proven
    upheld = events_of("recorded", CallQayd(2, ANSWER))
    given, _ = desk.verdict(upheld, 2, ANSWER)
    assert given == verdict
    qayd = next(s for s in walk(upheld)[0] if s.kind == "qayd")
    assert (qayd.seat, qayd.value, qayd.index) == (2, str(ANSWER), ANSWER + 1)
    assert qayd.text(PLAYERS) == f"Chadi calls Qayd (قيد) on action {ANSWER}"


def test_a_strict_tables_deal_has_no_verdict_and_says_why():
    state, out = INITIAL, []
    for cmd in (StartDeal(dealer=3, profile=SAUDI, table_mode="strict", scores_before=(0, 0),
                          deck=make_deck(3, HANDS, "8S", 0)), Bid(0, "hokum")):
        state, events = deal_mod.step(state, cmd)
        out += events
    verdict, problem = desk.verdict(out, 2, 0)
    assert verdict is None and problem.startswith("qayd_strict_table: ")
