"""Bidding (§3, §10): two rounds of speaking from the dealer's right, then the contract and the rest of the cards.

Round 1 buys the face-up card's suit as Hokum, or Sun; round 2 names another suit (the second Hokum) or Sun.
Sun may take over a standing Hokum; a profile may first ask the Hokum bidder before-you (قبلك). Kawesh (كوش)
voids the deal before anyone has bought, and four walas in round 2 void it too.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.baloot.dealstate import DealState, act, check_seat, speaking_order, turn_error
from domain.baloot.cards import suit_name
from domain.baloot.doubling import doubling_allowed
from domain.baloot.events import Bid, BidMade, Contract, ContractFixed, DealVoided
from domain.errors import DomainError
from domain.baloot.tricks import NO_TRUMP

LOW_RANKS = 0b111  # 7, 8, 9 within a suit byte: Kawesh (كوش)


def bid_options(s: DealState, seat: int) -> list[Bid]:
    """The bids ``seat`` may make now (empty when it is not its turn to speak)."""
    if s.phase != "bidding" or seat != s.turn:
        return []
    p = s.profile
    if s.ask:
        return [Bid(seat, "before_you"), Bid(seat, "pass")]
    if s.confirming:
        return [Bid(seat, "confirm")] + ([Bid(seat, "sun")] if p.sun_allowed else [])
    fu_suit = s.faceup >> 3
    ashkal_seat = p.ashkal_allowed and p.sun_allowed and seat in (s.dealer, (s.dealer + 3) & 3)
    if s.round == 1:
        out = [Bid(seat, "pass")]
        if s.hokum_seat < 0:
            out.append(Bid(seat, "hokum", fu_suit))
        if p.sun_allowed:
            out.append(Bid(seat, "sun"))
        if ashkal_seat:
            out.append(Bid(seat, "ashkal"))
        if p.kawesh and not s.anybody_bid and _is_kawesh(s.first_five[seat]):
            out.append(Bid(seat, "kawesh"))
        return out
    out = [Bid(seat, "wala")]
    if s.hokum_seat < 0:
        out.extend(Bid(seat, "hokum", suit) for suit in range(4) if suit != fu_suit)
    if p.sun_allowed:
        out.append(Bid(seat, "sun"))
    if ashkal_seat and p.ashkal_in_round_two:
        out.append(Bid(seat, "ashkal"))
    return out


def _is_kawesh(hand: int) -> bool:
    return all(hand >> (8 * s) & 0xFF & ~LOW_RANKS == 0 for s in range(4))



def decide_bid(s: DealState, cmd: Bid) -> list:
    seat = cmd.seat
    check_seat(seat)
    if s.phase != "bidding":
        raise DomainError("not_bidding", f"bids are made in the bidding phase; the deal is in {s.phase}")
    if seat != s.turn:
        raise turn_error(s, seat, "bid")
    if cmd.bid == "hokum" and s.round == 1 and cmd.suit is None:
        cmd = Bid(seat, "hokum", s.faceup >> 3)
    if cmd not in bid_options(s, seat):
        raise _bid_refusal(s, cmd)
    events = [BidMade(seat, cmd.bid, cmd.suit)]
    bid = cmd.bid
    if bid == "kawesh":
        events.append(DealVoided("kawesh", seat))
    elif s.ask:
        if bid == "before_you":
            events.append(ContractFixed("sun", None, seat, False))
        elif len(s.ask) == 1:
            events.append(ContractFixed("sun", None, s.sun_seat, s.sun_ashkal))
    elif s.confirming:
        events.append(ContractFixed("hokum", s.hokum_suit, seat) if bid == "confirm"
                      else ContractFixed("sun", None, seat))
    elif bid in ("sun", "ashkal"):
        if not (s.profile.sun_priority_window and s.hokum_seat >= 0):
            events.append(ContractFixed("sun", None, seat, bid == "ashkal"))
    elif bid == "hokum" and not s.profile.sun_allowed:
        events.append(ContractFixed("hokum", cmd.suit, seat))   # Belote: the first taker holds it
    elif s.spoken == 3 and s.hokum_seat < 0 and bid != "hokum" and s.round == 2:
        events.append(DealVoided("all_wala"))
    return events


def _bid_refusal(s: DealState, cmd: Bid) -> DomainError:
    seat, bid = cmd.seat, cmd.bid
    p = s.profile
    if s.ask:
        return DomainError("before_you_answer", f"seat {seat} is asked before-you (قبلك): say before_you or pass")
    if s.confirming:
        return DomainError("confirm_answer", f"seat {seat}'s Hokum stands: say confirm, or sun to turn it into Sun")
    if bid in ("before_you", "confirm"):
        return DomainError("bid_not_allowed", f"{bid} is only an answer when the table asks for it")
    if bid == "wala" and s.round == 1:
        return DomainError("bid_not_allowed", "wala (ولا) is the pass of round 2; in round 1 say pass")
    if bid == "pass" and s.round == 2:
        return DomainError("bid_not_allowed", "in round 2 the pass is wala (ولا)")
    if bid in ("sun", "ashkal") and not p.sun_allowed:
        return DomainError("no_sun", f"the {p.name} profile has no Sun or Ashkal")
    if bid == "hokum":
        if s.hokum_seat >= 0:
            return DomainError("hokum_taken", f"seat {s.hokum_seat} bid Hokum: later seats may only pass or "
                                              "take Sun/Ashkal")
        fu = suit_name(s.faceup >> 3)
        if s.round == 1:
            return DomainError("hokum_suit", f"in round 1 Hokum is in the face-up card's suit ({fu})")
        return DomainError("hokum_suit", f"the second Hokum (حكم ثاني) names a suit other than the face-up {fu}")
    if bid == "ashkal":
        if seat not in (s.dealer, (s.dealer + 3) & 3) or not p.ashkal_allowed:
            return DomainError("ashkal_seat", f"Ashkal (أشكل) is only for the dealer (seat {s.dealer}) and the "
                                              f"seat before him (seat {(s.dealer + 3) & 3})")
        return DomainError("ashkal_round_two", "Ashkal is not allowed in round 2 at this table")
    if bid == "kawesh":
        if not p.kawesh or s.round != 1:
            return DomainError("kawesh", "Kawesh (كوش) is called in bidding round 1 only")
        if s.anybody_bid:
            return DomainError("kawesh", "Kawesh (كوش) must come before anyone has bought")
        return DomainError("kawesh", f"Kawesh (كوش) needs five cards all 7, 8 or 9; seat {seat} holds more")
    return DomainError("bid_not_allowed", f"{bid} is not a bid seat {seat} may make now")



def evolve_bid(s: DealState, e: BidMade) -> DealState:
    return replace(_spoken(s, e), bids=s.bids + ((e.seat, e.bid, e.suit),))


def _spoken(s: DealState, e: BidMade) -> DealState:
    bid = e.bid
    if s.ask:
        rest = s.ask[1:]
        return act(s, e.seat, ask=rest, turn=rest[0] if rest else -1)
    if s.confirming:
        return act(s, e.seat, confirming=False, turn=-1)
    spoken = s.spoken + 1
    changes = {"spoken": spoken}
    if bid == "hokum":
        changes.update(hokum_seat=e.seat, hokum_suit=e.suit, anybody_bid=True)
    elif bid in ("sun", "ashkal"):
        changes.update(sun_seat=e.seat, sun_ashkal=bid == "ashkal", anybody_bid=True)
        if s.profile.sun_priority_window and s.hokum_seat >= 0:
            return act(s, e.seat, ask=(s.hokum_seat,), turn=s.hokum_seat, **changes)
        return act(s, e.seat, turn=-1, **changes)
    elif bid == "kawesh":
        return act(s, e.seat, turn=-1, **changes)
    hokum_seat = changes.get("hokum_seat", s.hokum_seat)
    if spoken < 4:
        return act(s, e.seat, turn=s.order[spoken], **changes)
    if hokum_seat >= 0:
        return act(s, e.seat, confirming=s.profile.sun_allowed, turn=hokum_seat, **changes)
    if s.round == 1:
        return act(s, e.seat, round=2, spoken=0, turn=s.order[0])
    return act(s, e.seat, turn=-1, **changes)


def complete_deal(deck, dealer, hands, receiver) -> tuple[int, int, int, int]:
    """After the contract: ``receiver`` takes the face-up card and 2, the others 3, from ``dealer + 1``."""
    out = list(hands)
    out[receiver] |= 1 << deck[20]
    pos = 21
    for seat in speaking_order(dealer):
        n = 2 if seat == receiver else 3
        for c in deck[pos:pos + n]:
            out[seat] |= 1 << c
        pos += n
    return tuple(out)



def evolve_contract(s: DealState, e: ContractFixed) -> DealState:
    receiver = (e.buyer + 2) & 3 if e.ashkal else e.buyer   # Ashkal: the caller's partner takes the card
    hands = complete_deal(s.deck, s.dealer, s.first_five, receiver)
    contract = Contract(e.kind, e.suit, e.buyer, e.ashkal)
    trump = e.suit if e.kind == "hokum" else NO_TRUMP
    common = dict(contract=contract, trump=trump, hands=hands, confirming=False, ask=())
    if doubling_allowed(s, contract):
        ask = tuple(x for x in s.order if x & 1 != e.buyer & 1)
        return replace(s, phase="doubling", double_step=0, double_ask=ask, turn=ask[0], **common)
    return replace(s, phase="playing", leader=s.order[0], turn=s.order[0], **common)
