"""One deal as a decider: ``decide(state, command) -> events`` and ``evolve(state, event) -> state``.

The phases follow the rules file: bidding (§3, §10), doubling (§4), play with projects, Baloot and Sawa
(§5, §6), the review of a recorded table where Qayd may be called (§8), then the result (§6.3).
``evolve`` never validates; ``decide`` refuses with a DomainError naming the rule broken.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.cards import KING, QUEEN, card_label, suit_name
from domain.events import (
    Bid, BidMade, CallQayd, CardPlayed, CardsDealt, ClaimSawa, Contract, ContractFixed, Declare, DealResult, DealScored,
    DealStarted, DealVoided, DomainError, Double, DoubleCalled, PlayCard, ProjectsDeclared, QaydCalled,
    QaydVerdict, RecordResult, RevealSeed, SawaClaimed, SeedRevealed, StartDeal,
)
from domain.profiles import SAUDI, RuleProfile
from domain.projects import Project, best_declaration, check_declaration, compare, evaluate
from domain.scoring import score_deal, score_qayd
from domain.shuffle import deck_from_seed, seed_commitment
from domain.tricks import (
    NO_TRUMP, card_points, legal_plays, offence_of, sawa_holds, trick_points, winning_index,
)

import msgspec

DOUBLE_STEPS = ("double", "three", "four", "gahwa")
LOW_RANKS = 0b111  # 7, 8, 9 within a suit byte: Kawesh (كوش)
# Phases of a deal that is over: played out, void, annulled by a referee, or stopped by the game's end.
ENDED = ("scored", "void", "annulled", "stopped")


class DealState(msgspec.Struct, frozen=True, kw_only=True):
    phase: str = "new"                     # new bidding doubling playing review, then one of ENDED
    profile: RuleProfile = SAUDI
    table: str = "strict"
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

# ---------------------------------------------------------------- helpers


def speaking_order(dealer: int) -> tuple[int, int, int, int]:
    return ((dealer + 1) & 3, (dealer + 2) & 3, (dealer + 3) & 3, dealer)


def deal_first_five(deck: tuple[int, ...], dealer: int) -> tuple[int, int, int, int]:
    """Hands after 3 then 2 cards each from ``dealer + 1`` (§2)."""
    hands = [0, 0, 0, 0]
    for i, seat in enumerate(speaking_order(dealer)):
        for c in deck[3 * i:3 * i + 3] + deck[12 + 2 * i:14 + 2 * i]:
            hands[seat] |= 1 << c
    return tuple(hands)


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


def _team(seat: int) -> str:
    return "AB"[seat & 1]


def _contract_name(c: Contract) -> str:
    if c.kind == "hokum":
        return f"Hokum {suit_name(c.suit)}"
    return "Ashkal (Sun)" if c.ashkal else "Sun"


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


def actor_of(s: DealState, index: int) -> int:
    return s.actors >> (2 * index) & 3


def _act(s: DealState, seat: int, **changes) -> DealState:
    return replace(s, actions=s.actions + 1, actors=s.actors | seat << (2 * s.actions), **changes)


# ---------------------------------------------------------------- what may be done


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


def double_options(s: DealState, seat: int) -> list[Double]:
    if s.phase != "doubling" or seat != s.turn:
        return []
    call = DOUBLE_STEPS[s.double_step]
    if s.contract.kind == "hokum" and call != "gahwa":
        return [Double(seat, "pass"), Double(seat, call, False), Double(seat, call, True)]
    return [Double(seat, "pass"), Double(seat, call)]


def play_mask(s: DealState, seat: int) -> int:
    p = s.profile
    return legal_plays(s.hands[seat], s.trick, s.trump, s.contract.closed, p.partner_winning_exemption,
                       p.undertrump_required)


def _baloot_allowed(s: DealState, seat: int, card: int) -> bool:
    """Baloot (بلوت) is announced with the second of K/Q of trump, by the seat that played the first."""
    if s.trump == NO_TRUMP or card >> 3 != s.trump or card & 7 not in (KING, QUEEN) or seat in s.baloot_seats:
        return False
    other = s.trump * 8 + (QUEEN if card & 7 == KING else KING)
    return bool(s.played[seat] >> other & 1)


def _may_declare(s: DealState, seat: int) -> bool:
    return (s.profile.projects != "none" and s.trick_no == 0 and seat == s.turn and not s.played[seat]
            and all(d[0] != seat for d in s.declared))


_PLAY = tuple(tuple((PlayCard(seat, c), PlayCard(seat, c, True)) for c in range(32)) for seat in range(4))


def legal_actions(s: DealState, seat: int, *, sawa: bool = False) -> list:
    """Every command ``seat`` may send now. Plays with Baloot appear in both forms; a declaration is offered
    as the best set (any valid set is accepted); Sawa is listed only with ``sawa=True`` (exact search)."""
    phase = s.phase
    if phase == "playing":
        if seat != s.turn:
            return []
        mask = play_mask(s, seat)
        plays = _PLAY[seat]
        out = []
        while mask:
            low = mask & -mask
            c = low.bit_length() - 1
            mask ^= low
            out.append(plays[c][0])
            if _baloot_allowed(s, seat, c):
                out.append(plays[c][1])
        if _may_declare(s, seat) and _has_project(s.hands[seat], s.profile.projects):
            best = best_declaration(seat, s.hands[seat], s.profile.projects, s.contract.kind == "sun")
            if best:
                out.append(Declare(seat, best))
        if sawa and _sawa_valid(s, seat):
            out.append(ClaimSawa(seat))
        return out
    if phase == "bidding":
        return bid_options(s, seat)
    if phase == "doubling":
        return double_options(s, seat)
    if phase == "review":
        return [RecordResult()]
    return []


def _has_project(hand: int, scheme: str) -> bool:
    """A cheap test that ``hand`` holds some project under ``scheme``, before the exact best-set search."""
    for s in range(4):
        m = hand >> (8 * s) & 0xFF
        if m & m >> 1 & m >> 2:
            return True
    m = hand & hand >> 8 & hand >> 16 & hand >> 24 & 0xFF
    return bool(m & _FOUR_OF_A_KIND_RANKS[scheme])


# Ranks (bit 0 = 7 ... bit 7 = A) whose four of a kind is a project: T to A in Saudi, 9 to A in Belote.
_FOUR_OF_A_KIND_RANKS = {"saudi": 0b11111000, "belote": 0b11111100, "none": 0}


def _sawa_valid(s: DealState, seat: int) -> bool:
    p = s.profile
    return sawa_holds(s.hands, s.leader, s.trick, seat & 1, s.trump, s.contract.closed,
                      p.partner_winning_exemption, p.undertrump_required)


# ---------------------------------------------------------------- decide


def decide(s: DealState, cmd) -> list:
    """The events ``cmd`` causes in state ``s``; DomainError (naming the rule) if it is refused."""
    match cmd:
        case PlayCard():
            return _decide_play(s, cmd)
        case Bid():
            return _decide_bid(s, cmd)
        case Double():
            return _decide_double(s, cmd)
        case Declare():
            return _decide_declare(s, cmd)
        case ClaimSawa():
            return _decide_sawa(s, cmd)
        case CallQayd():
            return _decide_qayd(s, cmd)
        case RecordResult():
            if s.phase != "review":
                raise DomainError("not_in_review", "the result is recorded only after the last trick "
                                                   "of a recorded table")
            return [DealScored(_score(s))]
        case StartDeal():
            return _decide_start(s, cmd)
        case RevealSeed():
            return _decide_reveal(s, cmd)
    raise DomainError("unknown_command", f"{type(cmd).__name__} is not a deal command")


def _check_seat(seat: int) -> None:
    if not (isinstance(seat, int) and 0 <= seat <= 3):
        raise DomainError("bad_seat", f"seat {seat!r} does not exist (seats are 0-3)")


def _decide_start(s: DealState, cmd: StartDeal) -> list:
    if s.phase != "new":
        raise DomainError("deal_started", "this deal has already started")
    _check_seat(cmd.dealer)
    if (cmd.seed is None) == (cmd.deck is None):
        raise DomainError("bad_deck", "give exactly one of a seed or a deck order")
    common = dict(profile=cmd.profile, table=cmd.table, dealer=cmd.dealer, scores_before=tuple(cmd.scores_before))
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


def _decide_reveal(s: DealState, cmd: RevealSeed) -> list:
    if s.phase not in ENDED:
        raise DomainError("seed_too_early", "the seed is revealed only when the deal has ended")
    if s.commitment is None or s.seed is not None:
        raise DomainError("seed_not_committed", "this deal has no pending seed commitment")
    if seed_commitment(cmd.seed) != s.commitment or deck_from_seed(cmd.seed) != s.deck:
        raise DomainError("seed_mismatch", "the seed does not match the commitment published at the start")
    return [SeedRevealed(cmd.seed)]


def _turn_error(s: DealState, seat: int, what: str) -> DomainError:
    if s.turn < 0:
        return DomainError("not_your_turn", f"nobody is to {what} now")
    return DomainError("not_your_turn", f"it is seat {s.turn}'s turn to {what}, not seat {seat}'s")


def _decide_bid(s: DealState, cmd: Bid) -> list:
    seat = cmd.seat
    _check_seat(seat)
    if s.phase != "bidding":
        raise DomainError("not_bidding", f"bids are made in the bidding phase; the deal is in {s.phase}")
    if seat != s.turn:
        raise _turn_error(s, seat, "bid")
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


def _decide_double(s: DealState, cmd: Double) -> list:
    seat = cmd.seat
    _check_seat(seat)
    if s.phase != "doubling":
        raise DomainError("not_doubling", f"doubling happens after the contract, before the first card; "
                                          f"the deal is in {s.phase}")
    if seat != s.turn:
        raise _turn_error(s, seat, "double or pass")
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


def _decide_declare(s: DealState, cmd: Declare) -> list:
    seat = cmd.seat
    _check_seat(seat)
    if s.profile.projects == "none":
        raise DomainError("no_projects", f"the {s.profile.name} profile has no declarations")
    if s.phase != "playing" or s.trick_no != 0 or s.played[seat]:
        raise DomainError("declare_late", "projects are declared in trick 1, right before the player's first card")
    if seat != s.turn:
        raise _turn_error(s, seat, "play")
    if any(d[0] == seat for d in s.declared):
        raise DomainError("declare_twice", f"seat {seat} has already declared")
    if not cmd.projects:
        raise DomainError("bad_project", "a declaration names at least one project")
    check_declaration(seat, cmd.projects, s.hands[seat], s.profile.projects, s.contract.kind == "sun")
    return [ProjectsDeclared(seat, tuple(tuple(g) for g in cmd.projects))]


def _decide_play(s: DealState, cmd: PlayCard) -> list:
    seat, card = cmd.seat, cmd.card
    if s.phase != "playing":
        raise DomainError("not_playing", f"cards are played after bidding and doubling; the deal is in {s.phase}")
    if seat != s.turn:
        _check_seat(seat)
        raise _turn_error(s, seat, "play")
    if not (isinstance(card, int) and 0 <= card < 32 and s.hands[seat] >> card & 1):
        label = card_label(card) if isinstance(card, int) and 0 <= card < 32 else repr(card)
        raise DomainError("card_not_held", f"seat {seat} does not hold {label}")
    offence = None
    p = s.profile
    if not play_mask(s, seat) >> card & 1:
        rule, why = offence_of(card, s.hands[seat], s.trick, s.trump, s.contract.closed,
                               p.partner_winning_exemption, p.undertrump_required)
        if s.table == "strict":
            raise DomainError(rule, f"seat {seat} {why}")
        offence = rule
    if cmd.baloot and not _baloot_allowed(s, seat, card):
        raise DomainError("false_baloot", "Baloot (بلوت) is announced with the second of K and Q of trump, "
                                          f"by the seat that played the first; seat {seat} cannot with "
                                          f"{card_label(card)}")
    event = CardPlayed(seat, card, cmd.baloot, offence) if offence or cmd.baloot else _PLAYED[seat][card]
    if s.trick_no == 7 and len(s.trick) == 3 and s.table == "strict":
        return [event, DealScored(_score(evolve(s, event)))]
    return [event]


_PLAYED = tuple(tuple(CardPlayed(seat, c) for c in range(32)) for seat in range(4))


def _decide_sawa(s: DealState, cmd: ClaimSawa) -> list:
    seat = cmd.seat
    _check_seat(seat)
    if s.phase != "playing":
        raise DomainError("not_playing", "Sawa (سوا) is claimed during play")
    if seat != s.turn:
        raise _turn_error(s, seat, "play or claim Sawa")
    valid = _sawa_valid(s, seat)
    if not valid and s.table == "strict":
        raise DomainError("false_sawa", f"Sawa (سوا) refused: team {_team(seat)} cannot win every remaining "
                                        "trick against every defence")
    event = SawaClaimed(seat, valid)
    if s.table == "strict":
        return [event, DealScored(_score(evolve(s, event)))]
    return [event]


def _decide_qayd(s: DealState, cmd: CallQayd) -> list:
    seat, index = cmd.seat, cmd.index
    _check_seat(seat)
    if s.table != "recorded":
        raise DomainError("qayd_strict_table", "Qayd (قيد) is called at recorded tables; a strict table refuses "
                                               "illegal actions instead")
    if s.phase not in ("doubling", "playing", "review"):
        raise DomainError("qayd_closed", f"Qayd is possible until the deal's result is recorded; the deal is in "
                                         f"{s.phase}")
    if not (isinstance(index, int) and 0 <= index < s.actions):
        raise DomainError("qayd_index", f"action {index} does not exist (this deal has {s.actions} actions)")
    accused = actor_of(s, index)
    if accused & 1 == seat & 1:
        raise DomainError("qayd_own_team", f"seat {seat} cannot accuse its own team's action {index}")
    offence = next((o for o in s.offences if o[0] == index), None)
    if offence:
        verdict = QaydVerdict(seat, index, accused, True, offence[2],
                              f"Qayd (قيد) proven: action {index}, seat {accused} {offence[3]} ({offence[2]})")
    else:
        verdict = QaydVerdict(seat, index, accused, False, None,
                              f"Qayd (قيد) unfounded: action {index} by seat {accused} broke no rule; "
                              f"team {_team(seat)} loses the deal")
    event = QaydCalled(verdict)
    result = score_qayd(s.profile, s.contract, verdict, s.points, s.tricks, _projects(s), _baloots(s))
    return [event, DealScored(result)]


# ---------------------------------------------------------------- scoring a finished deal


def _projects(s: DealState) -> list[Project]:
    if s.contract is None:
        return []
    sun = s.contract.kind == "sun"
    return [evaluate(seat, group, s.profile.projects, sun) for seat, groups in s.declared for group in groups]


def _baloots(s: DealState) -> tuple[int, int]:
    counts = [0, 0]
    for seat in s.baloot_seats:
        if s.profile.baloot_absorbed_by_hundred and _inside_hundred(s, seat):
            continue
        counts[seat & 1] += 1
    return counts[0], counts[1]


def _inside_hundred(s: DealState, seat: int) -> bool:
    k, q = s.trump * 8 + KING, s.trump * 8 + QUEEN
    return any(len(g) >= 5 and k in g and q in g for d_seat, groups in s.declared if d_seat == seat
               for g in groups)


def _score(s: DealState) -> DealResult:
    projects = _projects(s)
    team = compare(projects, s.order)
    return score_deal(s.profile, s.contract, s.points, s.tricks, projects, team, _baloots(s))


# ---------------------------------------------------------------- evolve


def evolve(s: DealState, e) -> DealState:
    """The state after event ``e``. Never validates: events are facts."""
    match e:
        case CardPlayed():
            return _evolve_play(s, e)
        case BidMade():
            return replace(_evolve_bid(s, e), bids=s.bids + ((e.seat, e.bid, e.suit),))
        case ContractFixed():
            return _evolve_contract(s, e)
        case DoubleCalled():
            return replace(_evolve_double(s, e), doubles=s.doubles + ((e.seat, e.call, e.closed),))
        case ProjectsDeclared():
            return _act(s, e.seat, declared=s.declared + ((e.seat, e.projects),))
        case SawaClaimed():
            return _evolve_sawa(s, e)
        case QaydCalled():
            return _act(s, e.verdict.caller, turn=-1)
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
            started = replace(s, phase="bidding", profile=e.profile, table=e.table, dealer=e.dealer,
                              scores_before=tuple(e.scores_before), commitment=e.commitment, order=order,
                              turn=order[0])
            return _with_deck(started, e.deck) if e.deck is not None else started
        case CardsDealt():
            return _with_deck(s, e.deck)
    return s


def _with_deck(s: DealState, deck) -> DealState:
    first_five = deal_first_five(deck, s.dealer)
    return replace(s, deck=tuple(deck), hands=first_five, first_five=first_five, faceup=deck[20])


def _evolve_bid(s: DealState, e: BidMade) -> DealState:
    bid = e.bid
    if s.ask:
        rest = s.ask[1:]
        return _act(s, e.seat, ask=rest, turn=rest[0] if rest else -1)
    if s.confirming:
        return _act(s, e.seat, confirming=False, turn=-1)
    spoken = s.spoken + 1
    changes = {"spoken": spoken}
    if bid == "hokum":
        changes.update(hokum_seat=e.seat, hokum_suit=e.suit, anybody_bid=True)
    elif bid in ("sun", "ashkal"):
        changes.update(sun_seat=e.seat, sun_ashkal=bid == "ashkal", anybody_bid=True)
        if s.profile.sun_priority_window and s.hokum_seat >= 0:
            return _act(s, e.seat, ask=(s.hokum_seat,), turn=s.hokum_seat, **changes)
        return _act(s, e.seat, turn=-1, **changes)
    elif bid == "kawesh":
        return _act(s, e.seat, turn=-1, **changes)
    hokum_seat = changes.get("hokum_seat", s.hokum_seat)
    if spoken < 4:
        return _act(s, e.seat, turn=s.order[spoken], **changes)
    if hokum_seat >= 0:
        return _act(s, e.seat, confirming=s.profile.sun_allowed, turn=hokum_seat, **changes)
    if s.round == 1:
        return _act(s, e.seat, round=2, spoken=0, turn=s.order[0])
    return _act(s, e.seat, turn=-1, **changes)


def _evolve_contract(s: DealState, e: ContractFixed) -> DealState:
    receiver = (e.buyer + 2) & 3 if e.ashkal else e.buyer   # Ashkal: the caller's partner takes the card
    hands = complete_deal(s.deck, s.dealer, s.first_five, receiver)
    contract = Contract(e.kind, e.suit, e.buyer, e.ashkal)
    trump = e.suit if e.kind == "hokum" else NO_TRUMP
    common = dict(contract=contract, trump=trump, hands=hands, confirming=False, ask=())
    if doubling_allowed(s, contract):
        ask = tuple(x for x in s.order if x & 1 != e.buyer & 1)
        return replace(s, phase="doubling", double_step=0, double_ask=ask, turn=ask[0], **common)
    return replace(s, phase="playing", leader=s.order[0], turn=s.order[0], **common)


def _evolve_double(s: DealState, e: DoubleCalled) -> DealState:
    if e.call == "pass":
        rest = s.double_ask[1:]
        if rest:
            return _act(s, e.seat, double_ask=rest, turn=rest[0])
        return _act(s, e.seat, phase="playing", double_ask=(), leader=s.order[0], turn=s.order[0])
    c = s.contract
    if e.call == "gahwa":
        contract = replace(c, gahwa=True, closed=False)
    else:
        contract = replace(c, multiplier=2 + s.double_step, closed=bool(e.closed))
    step = s.double_step + 1
    if c.kind == "sun" or step == len(DOUBLE_STEPS):
        return _act(s, e.seat, contract=contract, phase="playing", double_ask=(), leader=s.order[0],
                    turn=s.order[0])
    ask = tuple(x for x in s.order if x & 1 != e.seat & 1)
    return _act(s, e.seat, contract=contract, double_step=step, double_ask=ask, turn=ask[0])


def _evolve_play(s: DealState, e: CardPlayed) -> DealState:
    seat, card = e.seat, e.card
    bit = 1 << card
    hands = s.hands
    hand = hands[seat]
    played = s.played
    trick = s.trick + (card,)
    index = s.actions
    changes = {}
    if e.offence:
        p = s.profile
        _, why = offence_of(card, hand, s.trick, s.trump, s.contract.closed, p.partner_winning_exemption,
                            p.undertrump_required) or (None, "")
        changes["offences"] = s.offences + ((index, seat, e.offence, f"played {card_label(card)}: {why}"),)
    if e.baloot:
        changes["baloot_seats"] = s.baloot_seats + (seat,)
    hands = hands[:seat] + (hand & ~bit,) + hands[seat + 1:]
    played = played[:seat] + (played[seat] | bit,) + played[seat + 1:]
    actions, actors = index + 1, s.actors | seat << (2 * index)
    if len(trick) < 4:
        return replace(s, hands=hands, played=played, trick=trick, turn=(seat + 1) & 3, actions=actions,
                       actors=actors, **changes)
    trump = s.trump
    winner = (s.leader + winning_index(trick, trump)) & 3
    pts = trick_points(trick, trump)
    trick_no = s.trick_no + 1
    if trick_no == 8:
        pts += 10  # the last trick (الأرض)
    team = winner & 1
    points = (s.points[0] + pts, s.points[1]) if team == 0 else (s.points[0], s.points[1] + pts)
    tricks = (s.tricks[0] + 1, s.tricks[1]) if team == 0 else (s.tricks[0], s.tricks[1] + 1)
    return replace(s, hands=hands, played=played, trick=(), trick_no=trick_no, leader=winner,
                   turn=winner if trick_no < 8 else -1, phase="playing" if trick_no < 8 else "review",
                   points=points, tricks=tricks, history=s.history + ((s.leader, trick),), actions=actions,
                   actors=actors, **changes)


def _evolve_sawa(s: DealState, e: SawaClaimed) -> DealState:
    team = e.seat & 1
    remaining = s.trick + tuple(c for h in s.hands for c in range(32) if h >> c & 1)
    pts = sum(card_points(c, s.trump) for c in remaining) + 10
    left = 8 - s.trick_no
    points = list(s.points)
    tricks = list(s.tricks)
    points[team] += pts
    tricks[team] += left
    changes = {}
    if not e.valid:
        changes["offences"] = s.offences + ((s.actions, e.seat, "false_sawa",
                                             f"claimed Sawa (سوا) but team {_team(e.seat)} could not win every "
                                             "remaining trick"),)
    return _act(s, e.seat, points=tuple(points), tricks=tuple(tricks), trick=(), trick_no=8,
                hands=(0, 0, 0, 0), phase="review", turn=-1, sawa=(e.seat, e.valid), **changes)


# ---------------------------------------------------------------- convenience


def replay(events, state: DealState = INITIAL) -> DealState:
    """Fold ``events`` into a state."""
    for e in events:
        state = evolve(state, e)
    return state


def describe_contract(c: Contract | None) -> str:
    if c is None:
        return "no contract"
    text = f"{_contract_name(c)} bought by seat {c.buyer} (team {_team(c.buyer)})"
    if c.multiplier > 1:
        text += f", doubled ×{c.multiplier}"
    if c.gahwa:
        text += ", Gahwa (قهوة)"
    if c.closed:
        text += ", closed (مقفول)"
    return text
