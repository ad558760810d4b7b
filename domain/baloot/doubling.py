"""Doubling (§4): after the contract and before the first card, the chain Double, Three, Four, Gahwa (قهوة).

The defenders may double; each step passes the right to answer to the other team. Hokum doubles are open
or closed (مقفول); Sun has only a Double, which a profile may limit to scores across a threshold.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.baloot.dealstate import DealState, act, check_seat, turn_error
from domain.baloot.events import Contract, Double, DoubleCalled
from domain.errors import DomainError

DOUBLE_STEPS = ("double", "three", "four", "gahwa")


def doubling_allowed(s: DealState, contract: Contract) -> bool:
    """§4: Hokum the whole chain at any score; Sun only a Double, and only across the threshold."""
    if not s.profile.doubling:
        return False
    if contract.kind == "hokum":
        return True
    t = s.profile.sun_double_threshold
    if t is None:
        return True
    buyer = contract.buyer & 1
    return s.scores_before[buyer] >= t and s.scores_before[1 - buyer] < t


def double_options(s: DealState, seat: int) -> list[Double]:
    if s.phase != "doubling" or seat != s.turn:
        return []
    call = DOUBLE_STEPS[s.double_step]
    if s.contract.kind == "hokum" and call != "gahwa":
        return [Double(seat, "pass"), Double(seat, call, False), Double(seat, call, True)]
    return [Double(seat, "pass"), Double(seat, call)]


def decide_double(s: DealState, cmd: Double) -> list:
    seat = cmd.seat
    check_seat(seat)
    if s.phase != "doubling":
        raise DomainError("not_doubling", f"doubling happens after the contract, before the first card; "
                                          f"the deal is in {s.phase}")
    if seat != s.turn:
        raise turn_error(s, seat, "double or pass")
    call = DOUBLE_STEPS[s.double_step]
    closed = cmd.closed
    if s.contract.kind == "hokum" and cmd.call not in ("pass", "gahwa"):
        closed = bool(closed)
    elif closed is False:
        closed = None
    cmd = Double(seat, cmd.call, None if cmd.call == "pass" else closed)
    if cmd not in double_options(s, seat):
        if cmd.call != "pass" and cmd.call != call:
            raise DomainError("double_order", f"the next step of the doubling chain is {call}, not {cmd.call}")
        raise DomainError("double_closed", "only Hokum doubles (Double, Three, Four) choose open or closed")
    return [DoubleCalled(seat, cmd.call, cmd.closed)]


def evolve_double(s: DealState, e: DoubleCalled) -> DealState:
    return replace(_answered(s, e), doubles=s.doubles + ((e.seat, e.call, e.closed),))


def _answered(s: DealState, e: DoubleCalled) -> DealState:
    if e.call == "pass":
        rest = s.double_ask[1:]
        if rest:
            return act(s, e.seat, double_ask=rest, turn=rest[0])
        return act(s, e.seat, phase="playing", double_ask=(), leader=s.order[0], turn=s.order[0])
    c = s.contract
    if e.call == "gahwa":
        contract = replace(c, gahwa=True, closed=False)
    else:
        contract = replace(c, multiplier=2 + s.double_step, closed=bool(e.closed))
    step = s.double_step + 1
    if c.kind == "sun" or step == len(DOUBLE_STEPS):
        return act(s, e.seat, contract=contract, phase="playing", double_ask=(), leader=s.order[0],
                   turn=s.order[0])
    ask = tuple(x for x in s.order if x & 1 != e.seat & 1)
    return act(s, e.seat, contract=contract, double_step=step, double_ask=ask, turn=ask[0])
