"""What each seat may see (and what a spectator may see): the only thing clients and bots receive.

A seat's view holds its own hand and what is public at the table: the rules (the profile with its switches),
the face-up card, every bid and double, the cards played, declared projects (their cards once trick 1 is
over), Baloot announcements, the score.
Other seats' cards: the players see the cards left in hand laid open once the deal has ended (scored or
void), as at a real table. A spectator sees hands as the table's policy says (``HandsPolicy``): ``never``,
``after_deal`` (the laid-open cards of an ended deal) or ``always``. This is the one place that decides it.
"""

from __future__ import annotations

import functools

import msgspec

from domain.baloot.cards import card_name, cards_of, suit_name
from domain.baloot.deal import DealState, legal_actions
from domain.baloot.tricks import winning_index
from domain.baloot.events import DealResult
from domain.events import HandsPolicy, TableMode
from domain.baloot.game import GameState
from domain.baloot.profiles import RuleProfile
from domain.baloot.projects import evaluate




class PlayedCard(msgspec.Struct, frozen=True):
    seat: int
    card: str


class TrickView(msgspec.Struct, frozen=True):
    leader: int
    cards: list[PlayedCard]
    winner: int | None = None              # the seat that took it


class BidView(msgspec.Struct, frozen=True, omit_defaults=True):
    seat: int
    bid: str
    suit: str | None = None


class DoubleView(msgspec.Struct, frozen=True, omit_defaults=True):
    seat: int
    call: str
    closed: bool | None = None


class ContractView(msgspec.Struct, frozen=True):
    type: str
    suit: str | None
    buyer: int
    ashkal: bool
    multiplier: int
    gahwa: bool
    closed: bool


def contract_view(c) -> ContractView | None:
    """The contract as clients and reports show it (suit as a letter)."""
    if c is None:
        return None
    return ContractView(c.kind, suit_name(c.suit) if c.suit is not None else None, c.buyer, c.ashkal,
                        c.multiplier, c.gahwa, c.closed)


class DeclarationView(msgspec.Struct, frozen=True, omit_defaults=True):
    seat: int
    kinds: list[str]
    cards: list[list[str]] | None = None   # shown once trick 1 is over


class DealView(msgspec.Struct, frozen=True, kw_only=True):
    viewer: int | None                     # the seat, or None for a spectator
    phase: str
    rules: RuleProfile                     # the switches the deal is played under (public)
    dealer: int
    turn: int | None
    round: int
    scores_before: tuple[int, int]
    hand: list[str] | None                 # the viewer's own cards
    hands: list[list[str]] | None          # all hands: spectators only, when the table shows them
    hand_sizes: list[int]
    faceup: str | None
    faceup_taken_by: int | None
    bids: list[BidView]
    doubles: list[DoubleView]
    contract: ContractView | None
    trick: list[PlayedCard]
    winning: int | None = None             # the seat whose card wins the trick on the table so far
    tricks: list[TrickView]
    tricks_won: tuple[int, int]
    points: tuple[int, int]
    declarations: list[DeclarationView]
    baloot: list[int]
    legal_actions: list                    # commands the viewer may send now
    may_claim_sawa: bool                   # the server decides the claim exactly
    commitment: str | None
    seed: str | None
    result: DealResult | None


class GameView(msgspec.Struct, frozen=True, kw_only=True):
    phase: str
    profile: str
    table_mode: TableMode = msgspec.field(name="table")
    target: int
    scores: tuple[int, int]
    deal_no: int
    winner: int | None
    end_reason: str | None
    deal: DealView | None
    # The game points of each finished deal, in order (a void or annulled deal counts 0-0): the game's score
    # sheet, public as the score is.
    results: list[tuple[int, int]] = []


def _winner(leader: int, cards, trump: int) -> int:
    return (leader + winning_index(tuple(cards), trump)) & 3


def _played(leader: int, cards) -> list[PlayedCard]:
    return [PlayedCard((leader + i) & 3, card_name(c)) for i, c in enumerate(cards)]


@functools.lru_cache(maxsize=1 << 12)
def _project_kind(group: tuple[int, ...], scheme: str, sun: bool) -> str:
    return evaluate(0, group, scheme, sun).kind


@functools.lru_cache(maxsize=1 << 16)
def _trick_view(leader: int, cards: tuple[int, ...], trump: int) -> TrickView:
    """A finished trick as every view shows it, made once (views are read, never changed: one object serves
    every view of the deal that shows the trick)."""
    return TrickView(leader, _played(leader, cards), _winner(leader, cards, trump))


def view(s: DealState, seat: int | None, *, hands: HandsPolicy = "after_deal") -> DealView:
    """The deal as ``seat`` sees it; ``seat=None`` is a spectator, who sees hands (and the seed that gives
    them) as ``hands`` allows."""
    spectator = seat is None
    c = s.contract
    declarations = []
    for d_seat, groups in s.declared:
        kinds = [_project_kind(tuple(g), s.profile.projects, c.kind == "sun") for g in groups] if c else []
        shown = s.trick_no >= 1 or s.phase in ("review", "scored")
        declarations.append(DeclarationView(d_seat, kinds, [[card_name(x) for x in g] for g in groups]
                                            if shown else None))
    receiver = None
    if c is not None:
        receiver = (c.buyer + 2) & 3 if c.ashkal else c.buyer
    playing = s.phase == "playing"
    # A finished deal is laid open, as at a real table, once its seed is out (at once, at a table of its
    # own; a shared board's when every table of it is done): until then its player sees his own play only.
    ended = s.phase in ("scored", "void", "stopped") and (s.commitment is None or s.seed is not None)
    open_hands = (hands == "always" or (ended and hands == "after_deal")) if spectator else ended
    return DealView(
        viewer=seat,
        phase=s.phase,
        rules=s.profile,
        dealer=s.dealer,
        turn=s.turn if s.turn >= 0 else None,
        round=s.round,
        scores_before=s.scores_before,
        hand=None if spectator else [card_name(x) for x in cards_of(s.hands[seat])],
        hands=[[card_name(x) for x in cards_of(h)] for h in s.hands] if open_hands else None,
        hand_sizes=[h.bit_count() for h in s.hands],
        faceup=card_name(s.faceup) if s.faceup >= 0 else None,
        faceup_taken_by=receiver,
        bids=[BidView(b[0], b[1], suit_name(b[2]) if b[2] is not None else None) for b in s.bids],
        doubles=[DoubleView(*d) for d in s.doubles],
        contract=contract_view(c),
        trick=_played(s.leader, s.trick) if playing else [],
        winning=_winner(s.leader, s.trick, s.trump) if playing and s.trick else None,
        tricks=[_trick_view(leader, cards, s.trump) for leader, cards in s.history],
        tricks_won=s.tricks,
        points=s.points,
        declarations=declarations,
        baloot=list(s.baloot_seats),
        legal_actions=[] if spectator else legal_actions(s, seat),
        may_claim_sawa=not spectator and playing and s.turn == seat,
        commitment=s.commitment,
        seed=None if spectator and hands == "never" else s.seed,     # the seed gives every hand
        result=s.result,
    )


def game_view(g: GameState, seat: int | None, *, hands: HandsPolicy = "after_deal") -> GameView:
    return GameView(phase=g.phase, profile=g.profile.name, table_mode=g.table_mode, target=g.profile.target,
                    scores=g.scores, deal_no=g.deal_no, winner=g.winner, end_reason=g.end_reason,
                    deal=view(g.deal, seat, hands=hands) if g.deal_no else None,
                    results=[tuple(r) for r in g.results])
