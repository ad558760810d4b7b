"""One deal as a decider: ``decide(state, command) -> events`` and ``evolve(state, event) -> state``.

The phases follow the rules file, one module each: bidding (§3, §10) in ``bidding.py``, doubling (§4) in
``doubling.py``, play with projects, Baloot and Sawa (§5, §6) in ``play.py``, the review of a recorded table
where Qayd may be called (§8) and the result (§6.3) in ``result.py``. This module holds the start and the end
of a deal (the deck, the seed) and dispatches the rest. ``evolve`` never validates; ``decide`` refuses with
a DomainError naming the rule broken.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.baloot.bidding import LOW_RANKS, bid_options, complete_deal, decide_bid, evolve_bid, evolve_contract
from domain.baloot.cards import suit_name
from domain.baloot.dealstate import ENDED, INITIAL, DealState, act, actor_of, check_seat, speaking_order, team_letter
from domain.baloot.doubling import DOUBLE_STEPS, decide_double, double_options, doubling_allowed, evolve_double
from domain.baloot.events import (
    AwardDeal, Bid, BidMade, CallQayd, CardPlayed, CardsDealt, ClaimSawa, Contract, ContractFixed, Declare, DealResult,
    DealScored, DealStarted, DealVoided, Double, DoubleCalled, PlayCard, ProjectsDeclared, QaydCalled,
    RecordResult, SawaClaimed, SeedRevealed, StartDeal,
)
from domain.errors import DomainError
from domain.events import RevealSeed
from domain.baloot.play import (
    decide_declare, decide_play, decide_sawa, evolve_declare, evolve_play, evolve_sawa, play_mask, play_options,
)
from domain.baloot.result import decide_award, decide_qayd, decide_record_result
from domain.baloot.shuffle import deck_from_seed, seed_commitment

# The names importers use, including those that now live in the phase modules (kept here for them).
__all__ = [
    "DOUBLE_STEPS", "ENDED", "INITIAL", "LOW_RANKS", "DealState", "actor_of", "bid_options", "complete_deal",
    "deal_first_five", "dealt_from_committed_seed", "dealt_from_seed", "decide", "describe_contract",
    "double_options", "doubling_allowed", "evolve", "fold", "legal_actions", "play_mask", "speaking_order", "step",
]


def legal_actions(s: DealState, seat: int, *, sawa: bool = False) -> list:
    """Every command ``seat`` may send now. Plays with Baloot appear in both forms; a declaration is offered
    as the best set (any valid set is accepted); Sawa is listed only with ``sawa=True`` (exact search)."""
    phase = s.phase
    if phase == "playing":
        return play_options(s, seat, sawa)
    if phase == "bidding":
        return bid_options(s, seat)
    if phase == "doubling":
        return double_options(s, seat)
    if phase == "review":
        return [RecordResult()]
    return []


def decide(s: DealState, cmd) -> list:
    """The events ``cmd`` causes in state ``s``; DomainError (naming the rule) if it is refused."""
    match cmd:
        case PlayCard():
            return decide_play(s, cmd)
        case Bid():
            return decide_bid(s, cmd)
        case Double():
            return decide_double(s, cmd)
        case Declare():
            return decide_declare(s, cmd)
        case ClaimSawa():
            return decide_sawa(s, cmd)
        case CallQayd():
            return decide_qayd(s, cmd)
        case RecordResult():
            return decide_record_result(s, cmd)
        case AwardDeal():
            return decide_award(s, cmd)
        case StartDeal():
            return _decide_start(s, cmd)
        case RevealSeed():
            return _decide_reveal(s, cmd)
    raise DomainError("unknown_command", f"{type(cmd).__name__} is not a deal command")


def evolve(s: DealState, e) -> DealState:
    """The state after event ``e``. Never validates: events are facts."""
    match e:
        case CardPlayed():
            return evolve_play(s, e)
        case BidMade():
            return evolve_bid(s, e)
        case ContractFixed():
            return evolve_contract(s, e)
        case DoubleCalled():
            return evolve_double(s, e)
        case ProjectsDeclared():
            return evolve_declare(s, e)
        case SawaClaimed():
            return evolve_sawa(s, e)
        case QaydCalled():
            return act(s, e.verdict.caller, turn=-1)
        case DealScored():
            return replace(s, phase="scored", result=e.result, turn=-1)
        case DealVoided():
            result = DealResult(card_points=(0, 0), game_points=(0, 0), void=True,
                                notes=(f"void deal ({e.reason})",))
            return replace(s, phase="void", result=result, turn=-1)
        case SeedRevealed():
            return replace(s, seed=e.seed)
        case DealStarted():
            order = speaking_order(e.dealer)
            started = replace(s, phase="bidding", profile=e.profile, table_mode=e.table_mode, dealer=e.dealer,
                              scores_before=tuple(e.scores_before), commitment=e.commitment, order=order,
                              turn=order[0])
            return _with_deck(started, e.deck) if e.deck is not None else started
        case CardsDealt():
            return _with_deck(s, e.deck)
    return s


def step(s: DealState, cmd) -> tuple[DealState, list]:
    """Decide ``cmd``, then fold every event it causes (private ones such as ``cards_dealt`` too): the new
    state and the events. A refused command raises DomainError and changes nothing."""
    events = decide(s, cmd)
    for e in events:
        s = evolve(s, e)
    return s, events


def fold(events, state: DealState = INITIAL) -> DealState:
    """Fold ``events`` into a state."""
    for e in events:
        state = evolve(state, e)
    return state


# ---------------------------------------------------------------- the start and the end of a deal


def _decide_start(s: DealState, cmd: StartDeal) -> list:
    if s.phase != "new":
        raise DomainError("deal_started", "this deal has already started")
    check_seat(cmd.dealer)
    if (cmd.seed is None) == (cmd.deck is None):
        raise DomainError("bad_deck", "give exactly one of a seed or a deck order")
    common = dict(profile=cmd.profile, table_mode=cmd.table_mode, dealer=cmd.dealer,
                  scores_before=tuple(cmd.scores_before))
    if cmd.seed is not None:
        # The log gets the commitment; the cards go in a private event the server re-derives from the seed.
        return [DealStarted(**common, commitment=seed_commitment(cmd.seed)), dealt_from_seed(cmd.seed)]
    deck = tuple(cmd.deck)
    if sorted(deck) != list(range(32)):
        raise DomainError("bad_deck", "the deck must hold each of the 32 cards exactly once")
    return [DealStarted(**common, deck=deck)]


def dealt_from_seed(seed: str) -> CardsDealt:
    """The private ``cards_dealt`` of a deal dealt from ``seed``."""
    return CardsDealt(deck_from_seed(seed))


def dealt_from_committed_seed(seed: str, commitment: str | None) -> CardsDealt:
    """The private ``cards_dealt`` of a deal whose ``deal_started`` committed to ``commitment``; ValueError if
    ``seed`` is not the one committed to (wrong cards would be worse than none)."""
    if seed_commitment(seed) != commitment:
        raise ValueError("the seed given is not the one committed to")
    return dealt_from_seed(seed)


def _decide_reveal(s: DealState, cmd: RevealSeed) -> list:
    if s.phase not in ENDED:
        raise DomainError("seed_too_early", "the seed is revealed only when the deal has ended")
    if s.commitment is None or s.seed is not None:
        raise DomainError("seed_not_committed", "this deal has no pending seed commitment")
    if seed_commitment(cmd.seed) != s.commitment or deck_from_seed(cmd.seed) != s.deck:
        raise DomainError("seed_mismatch", "the seed does not match the commitment published at the start")
    return [SeedRevealed(cmd.seed)]


def deal_first_five(deck: tuple[int, ...], dealer: int) -> tuple[int, int, int, int]:
    """Hands after 3 then 2 cards each from ``dealer + 1`` (§2)."""
    hands = [0, 0, 0, 0]
    for i, seat in enumerate(speaking_order(dealer)):
        for c in deck[3 * i:3 * i + 3] + deck[12 + 2 * i:14 + 2 * i]:
            hands[seat] |= 1 << c
    return tuple(hands)


def _with_deck(s: DealState, deck) -> DealState:
    first_five = deal_first_five(deck, s.dealer)
    return replace(s, deck=tuple(deck), hands=first_five, first_five=first_five, faceup=deck[20])


def describe_contract(c: Contract | None) -> str:
    if c is None:
        return "no contract"
    text = f"{_contract_name(c)} bought by seat {c.buyer} (team {team_letter(c.buyer)})"
    if c.multiplier > 1:
        text += f", doubled ×{c.multiplier}"
    if c.gahwa:
        text += ", Gahwa (قهوة)"
    if c.closed:
        text += ", closed (مقفول)"
    return text


def _contract_name(c: Contract) -> str:
    if c.kind == "hokum":
        return f"Hokum {suit_name(c.suit)}"
    return "Ashkal (Sun)" if c.ashkal else "Sun"

