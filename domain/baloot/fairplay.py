"""Fair-play analysis of played deals: does a player choose as if he saw the hidden cards?

For every card a player chose among several legal ones, each legal card is valued twice by the hard bot's
evaluator (``card_values``): under the information the player had (``samples`` deals of the hidden cards
consistent with his seat's view, the hard bot's own sampling, seeded from ``seed`` and the view), and under
the true hands (the same rollout, on the one true deal). The decision is *telling* when the two disagree on the
best card by at least ``margin`` GP on the true hands: there an honest player follows the honest best, and a
player who sees the hands follows the true one. Only the events and the seed go in, so the same log and seed
always give the same report.

Over a player's telling decisions, ``flag`` counts how many followed the true best and compares it with the
share an honest population follows (``baseline``: measured on honest players, bots of every level or the
players themselves), by a one-sided exact binomial test. A flag is a reason for a referee to look at the
replays, never a verdict: a strong honest player follows the true best more often than a weak one, and a
guess can be right.

The partner variant asks the same of the partner's hand: the seat's sampling with his partner's true hand
known (what a colluding pair tells each other), telling where its best is not the honest best and is worth
the margin on the true hands.

What this module does not do yet (the fair-play issue's rest): bids, doubles and declarations; the daily-board
variant; the read model and the endpoints.
"""

from __future__ import annotations

import math
import random

import msgspec

from domain.baloot.bots.hard import best_of, card_values, view_seed
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.simple import _plays
from domain.baloot.cards import card_name
from domain.baloot.deal import INITIAL, evolve, step
from domain.baloot.handrecord import HandRecord, record_commands, record_start
from domain.baloot.events import CardPlayed, PlayCard, RecordResult, StartDeal
from domain.baloot.views import view


class CardDecision(msgspec.Struct, frozen=True):
    index: int                     # the card's event in the deal (0 = the first event)
    seat: int
    trick: int                     # 1 to 8
    legal: tuple[str, ...]
    played: str
    honest: tuple[float, ...]      # each legal card's mean GP margin for the player's team, as he could know it
    true: tuple[float, ...]        # the same on the true hands
    honest_best: str
    true_best: str
    telling: bool                  # the honest and the true best differ by >= margin GP on the true hands
    followed_true: bool            # played the true best where it was not the honest best
    # The partner variant: the same sampling with the partner's true hand known (None where his hidden
    # declaration leaves no such deal to sample); telling where its best is not the honest best and is worth
    # the margin more on the true hands: a choice right only given the partner's hand.
    partner: tuple[float, ...] | None = None
    partner_best: str | None = None
    partner_telling: bool = False
    followed_partner: bool = False


def analyse_deal(events, seed: int = 0, samples: int = 24, margin: float = 2.0,
                 seats: tuple[int, ...] = (0, 1, 2, 3)) -> list[CardDecision]:
    """Every card choice of a played deal (its events, from the deal's start) by ``seats``, valued as above."""
    state, out = INITIAL, []
    for index, event in enumerate(events):
        if isinstance(event, CardPlayed) and state.phase == "playing" and event.seat in seats:
            v = view(state, event.seat)
            plays = _plays(v)
            if len(plays) > 1:
                out.append(_decision(state, v, plays, index, event, seed, samples, margin))
        state = evolve(state, event)
    return out


def _decision(state, v, plays, index, event, seed, samples, margin) -> CardDecision:
    k = Knowledge(v)
    honest = sampled_values(v, k, plays, seed, samples)
    true = card_values(v, k, plays, [(state.hands, state.declared)])
    h, t = best_of(honest), best_of(true)
    played = next(i for i, a in enumerate(plays) if a.card == event.card)
    telling = h != t and true[t] - true[h] >= margin
    names = tuple(card_name(a.card) for a in plays)
    partner = partner_values(state, v, plays, seed, samples)
    p = best_of(partner) if partner is not None else None
    partner_telling = p is not None and p != h and true[p] - true[h] >= margin
    return CardDecision(index, event.seat, len(v.tricks) + 1, names, names[played], tuple(honest), tuple(true),
                        names[h], names[t], telling, telling and played == t,
                        tuple(partner) if partner is not None else None, names[p] if p is not None else None,
                        partner_telling, partner_telling and played == p)


def sampled_values(v, k: Knowledge, plays, seed: int, samples: int) -> list[float]:
    rng = random.Random(view_seed(v, seed))
    return [t / samples for t in card_values(v, k, plays, (k.sample(rng) for _ in range(samples)))]


def knowing_partner(v, partner_hand: int) -> Knowledge | None:
    """The seat's knowledge with its partner's hand shown to it (what a colluding pair knows), or None when
    no deal is left to sample (the partner's hidden declaration)."""
    k = Knowledge(v)
    partner = (k.me + 2) & 3
    if partner in k.hidden:
        return None
    k.known[partner] |= partner_hand
    k.pool &= ~partner_hand
    k.excluded = [x & ~partner_hand for x in k.excluded]
    return k


def partner_values(state, v, plays, seed: int, samples: int) -> list[float] | None:
    k = knowing_partner(v, state.hands[(v.viewer + 2) & 3])
    if k is None:
        return None
    try:
        return sampled_values(v, k, plays, seed, samples)
    except ValueError:                       # no deal fits: nothing to compare with
        return None


def record_events(record: HandRecord) -> list:
    """A hand record's deal replayed to its events (a record the engine refuses raises its rule error)."""
    state, events = step(INITIAL, record_start(record))
    for command in record_commands(record):
        state, new = step(state, command)
        events += new
    return events


def true_best_card(state) -> PlayCard | None:
    """The card the seat to play would choose seeing every hand (the "ghost" the tests plant), or None when it
    has one legal card or is not playing a card."""
    v = view(state, state.turn)
    plays = _plays(v)
    if len(plays) < 2:
        return None
    return plays[best_of(card_values(v, Knowledge(v), plays, [(state.hands, state.declared)]))]


class Flag(msgspec.Struct, frozen=True):
    telling: int                   # the player's telling decisions
    followed_true: int             # of which he played the true best
    share: float
    baseline: float                # the honest population's share
    p_value: float                 # P(at least this many | honest), one-sided exact binomial
    flagged: bool                  # p_value below the level asked


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    return min(1.0, sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1)))


VARIANTS = {"true": ("telling", "followed_true"), "partner": ("partner_telling", "followed_partner")}


def flag(decisions, baseline: float, level: float = 0.001, variant: str = "true") -> Flag:
    """A player's decisions (``CardDecision``, his own) against the honest share ``baseline``: of his telling
    decisions (``variant`` "true": the true hands; "partner": his partner's hand), how many followed them."""
    telling_of, followed_of = VARIANTS[variant]
    telling = [d for d in decisions if getattr(d, telling_of)]
    n, k = len(telling), sum(getattr(d, followed_of) for d in telling)
    p = binomial_tail(k, n, baseline)
    return Flag(n, k, k / n if n else 0.0, baseline, p, n > 0 and p < level)


def honest_share(decisions, variant: str = "true") -> float:
    """The share of telling decisions that followed them (``variant``), over an honest population's decisions."""
    telling_of, followed_of = VARIANTS[variant]
    telling = [d for d in decisions if getattr(d, telling_of)]
    return sum(getattr(d, followed_of) for d in telling) / len(telling) if telling else 0.0


def partner_best_card(state, seed: int = 0, samples: int = 24) -> PlayCard | None:
    """The card the seat to play would choose knowing its partner's hand (the colluder the tests plant)."""
    v = view(state, state.turn)
    plays = _plays(v)
    if len(plays) < 2:
        return None
    values = partner_values(state, v, plays, seed, samples)
    return plays[best_of(values)] if values is not None else None


def play_deal(seed: str, choose, dealer: int = 0) -> list:
    """A deal from ``seed`` played to its end, each action by ``choose(state)`` (the whole state: the
    planted cheaters of the tests and benchmarks read the hidden hands; an honest player is
    ``lambda state: bot.choose(view(state, state.turn))``); its events."""
    state, events = step(INITIAL, StartDeal(dealer=dealer, seed=seed))
    while state.phase not in ("scored", "void"):
        state, new = step(state, RecordResult() if state.phase == "review" else choose(state))
        events += new
    return events


CHEATS = ("ghost", "partner")


def planted(players, cheats: dict[int, str], share: float = 1.0, seed: int = 0, samples: int = 16):
    """``choose(state)`` for ``play_deal``: each seat played by ``players[seat]`` (a bot), but the seats of
    ``cheats`` cheat on a share ``share`` of their card choices (drawn from ``seed``): "ghost" plays the true
    best card, "partner" the best knowing its partner's hand (a colluding pair: both partners so; its own
    sampling seeded from ``seed``, as the hard bot's). The planted cheaters of the tests and the benchmark
    (bench/fairplay.py)."""
    rng = random.Random(seed)

    def choose(state):
        seat = state.turn
        kind = cheats.get(seat) if state.phase == "playing" else None
        if kind is not None and rng.random() < share:
            card = (true_best_card(state) if kind == "ghost"
                    else partner_best_card(state, seed=seed, samples=samples))
            if card is not None:
                return card
        return players[seat].choose(view(state, seat))

    return choose
