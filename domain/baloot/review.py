"""A deal's review for its players: each decision marked by what it cost, as a chess site marks a game.

Every card, bid and double a player chose among several is valued twice. **From his own view**: the hidden
cards sampled as he could see them and each sample solved exactly (domain/baloot/viewvalues.py, the cards;
the analysers store these ``values`` with the deal), or, where those are not computed, the fair-play analysis'
``honest`` values (domain/baloot/fairplay.py: the hard bot's rollouts of its samples) — what the choice cost
him by his own lights; the marks are made from it alone, never from the hidden cards, so a mark is a lesson he
could have drawn at the table. **On the true hands** (the analysis' ``true``, the exact solver): what the cards
on the table said, shown once the deal's hands are open to him. ``Reviewed.source`` says which valued a choice
from his view: the rollouts misjudge positions the solved samples do not (tests/engine/test_review.py: a lead
of 7♦ from A♦ 7♦ the rollouts prefer and the true hands say loses the deal).

**The marks** (``MARKS``): a choice is an *inaccuracy* from 2 GP of expected cost, a *mistake* from 5, a
*blunder* from 10 (a deal is worth 16 GP in Hokum, 26 in Sun; the costs are the margin for his team, so a card
that gives the other side 3 GP and takes 3 from his own costs 6). Below 2 GP a difference is mostly the
sampling's noise (8 samples) and the solved play's own optimism; a lost Kaboot (20 GP and more) is always a
blunder. ``bench/review.py`` gives how the marks fall on honest players of each strength, the figures the
thresholds were chosen from (docs/review.md).

**The phases** (``phase_of``): bidding (bids and doubles), leading (the first card of a trick), trumping (a
trump played on a trick led in another suit: a ruff or an overruff), following (every other card). A
player's accuracy by phase is what his page shows over time.

Nothing here says whether a choice was *suspicious*: the fair-play flags and evidence are the officials'
(services/fairplay/report.py) and never reach a review.
"""

from __future__ import annotations

import msgspec

from domain.baloot.deal import INITIAL, evolve
from domain.baloot.cards import parse_card

MARKS = (("blunder", 10.0), ("mistake", 5.0), ("inaccuracy", 2.0))      # from the worst: (mark, least cost)
PHASES = ("bidding", "leading", "following", "trumping")
EPSILON = 1e-9


class Reviewed(msgspec.Struct, frozen=True):
    """One decision as its review shows it (values in GP, the margin for the chooser's team)."""

    index: int                          # the decision's event in the deal (0: deal_started)
    seat: int
    by: str                             # "player", "bot" or "clock" (the turn clock played for him)
    kind: str                           # "card", "bid" or "double"
    phase: str                          # one of PHASES
    trick: int                          # 1 to 8 (0: bidding)
    options: tuple[str, ...]
    played: str
    honest: tuple[float, ...]           # each option's expected value from his view
    best: str                           # the best option from his view
    cost: float                         # honest[best] - honest[played] (>= 0)
    mark: str                           # "", "inaccuracy", "mistake" or "blunder"
    true: tuple[float, ...]             # each option's exact value on the true hands
    true_best: str
    true_cost: float                    # what the cards on the table said it cost
    source: str = "rollouts"            # how ``honest`` was made: "solved" (sampled, each sample solved exactly:
                                        # the cards) or "rollouts" (the fair-play analysis' hard-bot play-outs)


class SeatSummary(msgspec.Struct, frozen=True):
    """A seat's choices in one deal: how many, the GP given away by them (from his view), the marks."""

    seat: int
    decisions: int
    cost: float
    inaccuracies: int
    mistakes: int
    blunders: int
    true_cost: float


def mark_of(cost: float) -> str:
    for name, least in MARKS:
        if cost >= least - EPSILON:
            return name
    return ""


def phase_of(state, decision) -> str:
    """The phase of a decision made in ``state`` (the deal just before it)."""
    if decision.kind != "card":
        return "bidding"
    if not state.trick:
        return "leading"
    trump = state.trump
    card, led = parse_card(decision.played), state.trick[0]
    if card >> 3 == trump and led >> 3 != trump:
        return "trumping"
    return "following"


def review(events, decisions, by: list[str] | None = None, values: dict | None = None) -> list[Reviewed]:
    """The deal's decisions (fairplay ``Decision``s of ``events``, the deal's events from its start; ``by``:
    who chose each, "player" where not given) as the review shows them, in order. ``values`` (the index of a
    card choice's event → its options' values, domain/baloot/viewvalues.py ``view_values``) replace the
    analysis' rollouts for those choices."""
    values = values or {}
    at = {d.index: i for i, d in enumerate(decisions)}
    out: list[Reviewed | None] = [None] * len(decisions)
    state = INITIAL
    for index, event in enumerate(events):
        i = at.get(index)
        if i is not None:
            d = decisions[i]
            out[i] = reviewed(d, phase_of(state, d), by[i] if by else "player", values.get(d.index))
        if not at or index >= max(at):
            break
        state = evolve(state, event)
    return [r for r in out if r is not None]


def reviewed(d, phase: str, by: str = "player", values=None) -> Reviewed:
    """One decision reviewed, by ``values`` (its options' values from his view, sampled and solved) where given,
    else by the analysis' rollouts (``honest``); the best is the first of the highest."""
    h = tuple(values) if values is not None else d.honest
    p, tb = d.legal.index(d.played), d.legal.index(d.true_best)
    b = max(range(len(h)), key=lambda i: (h[i], -i))
    cost = max(0.0, h[b] - h[p])
    return Reviewed(d.index, d.seat, by, d.kind, phase, d.trick, d.legal, d.played, h, d.legal[b], cost,
                    mark_of(cost), d.true, d.true_best, max(0.0, d.true[tb] - d.true[p]),
                    "rollouts" if values is None else "solved")


def summaries(reviewed_: list[Reviewed]) -> list[SeatSummary]:
    """Each seat's line of the deal (every seat, those with no choice at 0)."""
    out = []
    for seat in range(4):
        mine = [r for r in reviewed_ if r.seat == seat]
        marks = [r.mark for r in mine]
        out.append(SeatSummary(seat, len(mine), round(sum(r.cost for r in mine), 2), marks.count("inaccuracy"),
                               marks.count("mistake"), marks.count("blunder"),
                               round(sum(r.true_cost for r in mine), 2)))
    return out


def phase_counts(reviewed_: list[Reviewed]) -> list[tuple[int, str, str, int, float, int, int, int]]:
    """(seat, by, phase, decisions, cost, inaccuracies, mistakes, blunders) for each seat, chooser and phase:
    the rows a player's accuracy over time sums."""
    rows: dict[tuple[int, str, str], list] = {}
    for r in reviewed_:
        c = rows.setdefault((r.seat, r.by, r.phase), [0, 0.0, 0, 0, 0])
        c[0] += 1
        c[1] += r.cost
        if r.mark:
            c[2 + ("inaccuracy", "mistake", "blunder").index(r.mark)] += 1
    return [(seat, by, phase, *c) for (seat, by, phase), c in sorted(rows.items())]
