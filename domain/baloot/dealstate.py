"""The state of one deal, and the small helpers every phase of it shares.

It sits apart from ``deal.py`` so that the phase modules (bidding, doubling, play, result) can import the
state without importing the decider that dispatches to them.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.baloot.events import Contract, DealResult
from domain.errors import DomainError
from domain.events import TableMode
from domain.baloot.profiles import SAUDI, RuleProfile
from domain.baloot.tricks import NO_TRUMP

# Phases of a deal that is over: played out, void, annulled by a referee, or stopped by the game's end.
ENDED = ("scored", "void", "annulled", "stopped")


class DealState(msgspec.Struct, frozen=True, kw_only=True):
    phase: str = "new"                     # new bidding doubling playing review, then one of ENDED
    profile: RuleProfile = SAUDI
    table_mode: TableMode = "strict"
    dealer: int = 0
    scores_before: tuple[int, int] = (0, 0)
    deck: tuple[int, ...] = ()
    commitment: str | None = None
    seed: str | None = None
    hands: tuple[int, int, int, int] = (0, 0, 0, 0)
    first_five: tuple[int, int, int, int] = (0, 0, 0, 0)
    faceup: int = -1
    order: tuple[int, int, int, int] = (1, 2, 3, 0)   # speaking order from dealer + 1
    turn: int = -1
    # Bidding.
    round: int = 1
    spoken: int = 0
    hokum_seat: int = -1
    hokum_suit: int = -1
    sun_seat: int = -1
    sun_ashkal: bool = False
    ask: tuple[int, ...] = ()              # seats still asked before-you (قبلك)
    confirming: bool = False
    anybody_bid: bool = False
    bids: tuple[tuple[int, str, int | None], ...] = ()          # (seat, bid, suit) as spoken
    contract: Contract | None = None
    trump: int = NO_TRUMP
    # Doubling.
    double_step: int = 0                   # index into DOUBLE_STEPS
    double_ask: tuple[int, ...] = ()
    doubles: tuple[tuple[int, str, bool | None], ...] = ()     # (seat, call, closed)
    # Play.
    leader: int = -1
    trick: tuple[int, ...] = ()
    trick_no: int = 0
    played: tuple[int, int, int, int] = (0, 0, 0, 0)
    points: tuple[int, int] = (0, 0)
    tricks: tuple[int, int] = (0, 0)
    history: tuple[tuple[int, tuple[int, ...]], ...] = ()   # completed tricks: (leader, cards)
    declared: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...] = ()
    baloot_seats: tuple[int, ...] = ()
    sawa: tuple[int, bool] | None = None
    # Audit trail: the action count, who made each action (2 bits each), and offences stored as made.
    actions: int = 0
    actors: int = 0
    offences: tuple[tuple[int, int, str, str], ...] = ()
    result: DealResult | None = None


INITIAL = DealState()


def speaking_order(dealer: int) -> tuple[int, int, int, int]:
    return ((dealer + 1) & 3, (dealer + 2) & 3, (dealer + 3) & 3, dealer)


def team_letter(seat: int) -> str:
    return "AB"[seat & 1]


def actor_of(s: DealState, index: int) -> int:
    return s.actors >> (2 * index) & 3


def act(s: DealState, seat: int, **changes) -> DealState:
    """``s`` with ``changes`` and one more action, made by ``seat`` (the audit trail Qayd points into)."""
    return replace(s, actions=s.actions + 1, actors=s.actors | seat << (2 * s.actions), **changes)


def check_seat(seat: int) -> None:
    if not (isinstance(seat, int) and 0 <= seat <= 3):
        raise DomainError("bad_seat", f"seat {seat!r} does not exist (seats are 0-3)")


def turn_error(s: DealState, seat: int, what: str) -> DomainError:
    if s.turn < 0:
        return DomainError("not_your_turn", f"nobody is to {what} now")
    return DomainError("not_your_turn", f"it is seat {s.turn}'s turn to {what}, not seat {seat}'s",
                       {"seat": seat, "turn": s.turn})
