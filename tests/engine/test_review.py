"""Deal reviews (domain/baloot/review.py): a hand-made deal whose one wrong card loses the Kaboot is marked a
blunder with the right card named, by the player's own view and by the true hands; the phases and marks of
choices made up here; and how an honest hard bot's own choices are marked (mostly not)."""

from __future__ import annotations

from domain.baloot.bots import bot
from domain.baloot.cards import card_name, parse_card
from domain.baloot.deal import INITIAL, legal_actions, step
from domain.baloot.events import Bid, PlayCard, RecordResult, StartDeal
from domain.baloot.fairplay import Decision, analyse_deal, play_deal, planted
from domain.baloot.review import MARKS, mark_of, phase_of, review, summaries
from domain.baloot.viewvalues import view_values
from tests.engine.given import make_deck

# Seat 0 buys a Sun with the three top spades and clubs and A♦ 7♦ (no hand holds a project: nothing but the
# tricks counts). He leads A, K, T of spades and of clubs (six tricks; the others follow or throw their
# diamonds) and is left with A♦ 7♦ while seat 1 keeps K♦ alone beside A♥. A♦ first drops the king and 7♦
# takes the last trick: all eight, a Kaboot. 7♦ first gives the king the trick and seat 1 the last one too.
HANDS = {
    0: "AS KS TS AC KC TC AD 7D",
    1: "KD TD QD QS JS QC AH KH",
    2: "9S 8S JC 9C QH 9H JD 9D",
    3: "7S 8C 7C TH JH 8H 7H 8D",
}
TRICKS = [  # seat 0 leads each; then seats 1, 2, 3
    "AS JS 8S 7S", "KS QS 9S 8D", "TS TD JD TH", "AC QC 9C 7C", "KC QD JC 8C", "TC KH 9D JH",
]
KABOOT = ["AD KD 9H 7H", "7D AH QH 8H"]
BLUNDER = ["7D KD 9H 7H", "AH QH 8H AD"]     # seat 1 wins and leads A♥: seat 0, void, throws A♦


def planted_deck(dealer: int = 3, receiver: int = 0, faceup: str = "7D") -> tuple[int, ...]:
    """The pack that deals ``HANDS`` (``receiver`` taking the face-up card)."""
    return make_deck(dealer, [HANDS[s] for s in range(4)], faceup, receiver)


def planted_deal(ending: list[str]) -> list:
    """The hand-made deal played with ``ending`` as its last tricks: Sun bought by seat 0, nobody doubling."""
    state, events = step(INITIAL, StartDeal(dealer=3, deck=planted_deck()))
    for cmd in [Bid(0, "sun")]:
        state, new = step(state, cmd)
        events += new
    while state.phase in ("bidding", "doubling"):
        passing = next(a for a in legal_actions(state, state.turn) if getattr(a, "bid", None) == "pass"
                       or getattr(a, "call", None) == "pass")
        state, new = step(state, passing)
        events += new
    assert state.phase == "playing" and state.contract.kind == "sun" and state.contract.buyer == 0
    assert [card_name(c) for c in range(32) if state.hands[0] >> c & 1] == sorted(HANDS[0].split(), key=parse_card)
    for trick in TRICKS + ending:
        for card in trick.split():
            state, new = step(state, PlayCard(state.turn, parse_card(card)))
            events += new
    if state.phase == "review":                     # a recorded table's result is recorded by hand
        state, new = step(state, RecordResult())
        events += new
    return events, state


def test_the_card_that_loses_the_kaboot_is_a_blunder_and_the_review_names_the_ace():
    events, state = planted_deal(KABOOT)
    assert state.tricks == (8, 0) and state.result.game_points == (44, 0)      # a Kaboot in Sun
    events, state = planted_deal(BLUNDER)
    assert state.tricks == (6, 2)                                  # the king took tricks 7 and 8: no Kaboot
    decisions = analyse_deal(events, seed=3, samples=16, seats=(0,), kinds=("card",))
    reviewed = review(events, decisions, values=view_values(events, 3, 8, seats=(0,)))
    assert [r.trick for r in reviewed] == [1, 2, 3, 4, 5, 6, 7] and {r.source for r in reviewed} == {"solved"}
    r = reviewed[-1]
    assert (r.played, r.best, r.true_best, r.phase) == ("7D", "AD", "AD", "leading")
    assert r.mark == "blunder" and r.cost >= 10.0, r
    # What the cards said: the Kaboot (44 GP in Sun, the defenders nothing) against the deal as it went.
    assert r.true_cost >= 20.0, r
    # Every earlier lead is of a master, as good as the best: none is marked.
    assert [x.mark for x in reviewed[:-1]] == [""] * 6, reviewed
    line = summaries(reviewed)[0]
    assert (line.blunders, line.mistakes, line.inaccuracies) == (1, 0, 0) and line.decisions == 7
    assert line.cost == round(sum(x.cost for x in reviewed), 2) and line.true_cost >= r.true_cost


def test_the_rollouts_alone_would_mark_the_right_lead_so_the_cards_are_reviewed_by_solved_samples():
    # The fair-play analysis' honest values (the hard bot's rollouts from his view) rate leading 7♦ at once
    # above the ace (the hard bot plays it so), where the true hands say it loses the deal: a review by them
    # would mark the right lead. The review's own values (sampled and solved) do not.
    events, _ = planted_deal(BLUNDER)
    decisions = analyse_deal(events, seed=3, samples=16, seats=(0,), kinds=("card",))
    first = decisions[0]
    assert first.trick == 1 and first.true[first.legal.index("7D")] < 0 < first.true[first.legal.index("AS")]
    assert first.honest[first.legal.index("7D")] > first.honest[first.legal.index("AS")]
    by_rollouts = review(events, decisions)[0]
    by_solving = review(events, decisions, values=view_values(events, 3, 8, seats=(0,)))[0]
    assert by_rollouts.source == "rollouts" and by_rollouts.best == "7D" and by_rollouts.mark != ""
    assert by_solving.best != "7D" and by_solving.mark == ""


def _made_up(played: str, honest: tuple, legal=("AS", "KS", "7H"), kind="card", trick=2) -> Decision:
    best = legal[max(range(len(honest)), key=lambda i: honest[i])]
    return Decision(0, 0, trick, legal, played, honest, honest, best, best, False, False, kind=kind)


def test_marks_follow_the_thresholds_and_costs_are_never_negative():
    assert [mark_of(c) for c in (0.0, 1.99, 2.0, 4.99, 5.0, 9.99, 10.0, 40.0)] == \
        ["", "", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]
    assert [m for m, _ in MARKS] == ["blunder", "mistake", "inaccuracy"]
    events, _ = planted_deal(KABOOT)
    d = _made_up("KS", (3.0, 3.0, -9.0))            # equal to the best: no cost, whichever is named best
    from domain.baloot.review import reviewed as one
    assert one(d, "leading").cost == 0.0 and one(d, "leading").mark == ""
    assert one(_made_up("7H", (3.0, 1.0, -9.0)), "following").mark == "blunder"


def test_phases_lead_follow_and_trump():
    # A Hokum in spades: leading, following a heart, and trumping a heart lead.
    state, _ = step(INITIAL, StartDeal(dealer=3, deck=planted_deck()))
    state = state.__class__(**{**{f: getattr(state, f) for f in state.__struct_fields__},
                               "phase": "playing", "trump": 0, "trick": ()})
    bid = _made_up("sun", (1.0, 0.0), legal=("sun", "pass"), kind="bid", trick=0)
    assert phase_of(state, bid) == "bidding"
    assert phase_of(state, _made_up("AS", (0, 0, 0))) == "leading"
    led_heart = state.__class__(**{**{f: getattr(state, f) for f in state.__struct_fields__},
                                   "trick": (parse_card("9H"),)})
    assert phase_of(led_heart, _made_up("7H", (0, 0, 0))) == "following"
    assert phase_of(led_heart, _made_up("KS", (0, 0, 0))) == "trumping"
    led_spade = state.__class__(**{**{f: getattr(state, f) for f in state.__struct_fields__},
                                   "trick": (parse_card("9S"),)})
    assert phase_of(led_spade, _made_up("KS", (0, 0, 0))) == "following"     # trump led: following


def test_an_honest_hard_bot_is_mostly_unmarked():
    # bench/review.py gives the whole distribution, for every level and another engine's player.
    marks = []
    for n in range(2):
        events = play_deal(f"review-hard-{n}", planted([bot("hard") for _ in range(4)], {}), dealer=n % 4)
        decisions = analyse_deal(events, seed=1, samples=16, kinds=("card",))
        marks += [r.mark for r in review(events, decisions, values=view_values(events, 1, 8))]
    assert len(marks) >= 20
    assert marks.count("") / len(marks) >= 0.75, marks
    assert marks.count("blunder") / len(marks) <= 0.05, marks
