"""Play (§5, §6): eight tricks, with projects declared in the first, Baloot (بلوت) announced, and Sawa (سوا).

A strict table refuses an illegal card; a recorded table stores it as made, with its offence, for a Qayd.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.baloot.cards import KING, LAST_TRICK_BONUS, QUEEN, card_label, card_name, cards_of
from domain.baloot.dealstate import DealState, act, check_seat, team_letter, turn_error
from domain.baloot.events import (
    CardPlayed, ClaimSawa, Declare, DealScored, PlayCard, ProjectsDeclared, SawaClaimed,
)
from domain.errors import DomainError
from domain.baloot.projects import best_declaration, check_declaration
from domain.baloot.result import deal_result
from domain.baloot.tricks import (
    NO_TRUMP, card_points, legal_plays, offence_of, sawa_holds, trick_points, winning_index,
)


def play_mask(s: DealState, seat: int) -> int:
    p = s.profile
    return legal_plays(s.hands[seat], s.trick, s.trump, s.contract.closed, p.partner_winning_exemption,
                       p.undertrump_required)


def baloot_allowed(s: DealState, seat: int, card: int) -> bool:
    """Baloot (بلوت) is announced with the second of K/Q of trump, by the seat that played the first."""
    if s.trump == NO_TRUMP or card >> 3 != s.trump or card & 7 not in (KING, QUEEN) or seat in s.baloot_seats:
        return False
    other = s.trump * 8 + (QUEEN if card & 7 == KING else KING)
    return bool(s.played[seat] >> other & 1)


def baloot_holders(trump: int, hands, played_by, announced: tuple[int, ...]) -> tuple[int, ...]:
    """Seats that have announced Baloot or will (they hold K and Q of trump, one of them still unplayed)."""
    if trump == NO_TRUMP:
        return announced
    kq = 1 << (trump * 8 + KING) | 1 << (trump * 8 + QUEEN)
    out = list(announced)
    for s in range(4):
        if s not in announced and (hands[s] | played_by[s]) & kq == kq and hands[s] & kq:
            out.append(s)
    return tuple(out)


def _may_declare(s: DealState, seat: int) -> bool:
    return (s.profile.projects != "none" and s.trick_no == 0 and seat == s.turn and not s.played[seat]
            and all(d[0] != seat for d in s.declared))


_PLAY = tuple(tuple((PlayCard(seat, c), PlayCard(seat, c, True)) for c in range(32)) for seat in range(4))


def play_options(s: DealState, seat: int, sawa: bool = False) -> list:
    """The commands ``seat`` may send in play: each legal card (also with Baloot where it may be announced),
    the best declaration in trick 1, and Sawa when asked for (``sawa=True``: an exact search)."""
    if s.phase != "playing" or seat != s.turn:
        return []
    mask = play_mask(s, seat)
    plays = _PLAY[seat]
    out = []
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        out.append(plays[c][0])
        if baloot_allowed(s, seat, c):
            out.append(plays[c][1])
    if _may_declare(s, seat) and _has_project(s.hands[seat], s.profile.projects):
        best = best_declaration(seat, s.hands[seat], s.profile.projects, s.contract.kind == "sun")
        if best:
            out.append(Declare(seat, best))
    if sawa and sawa_valid(s, seat):
        out.append(ClaimSawa(seat))
    return out


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


def sawa_valid(s: DealState, seat: int) -> bool:
    p = s.profile
    return sawa_holds(s.hands, s.leader, s.trick, seat & 1, s.trump, s.contract.closed,
                      p.partner_winning_exemption, p.undertrump_required)


def decide_declare(s: DealState, cmd: Declare) -> list:
    seat = cmd.seat
    check_seat(seat)
    if s.profile.projects == "none":
        raise DomainError("no_projects", f"the {s.profile.name} profile has no declarations")
    if s.phase != "playing" or s.trick_no != 0 or s.played[seat]:
        raise DomainError("declare_late", "projects are declared in trick 1, right before the player's first card")
    if seat != s.turn:
        raise turn_error(s, seat, "play")
    if any(d[0] == seat for d in s.declared):
        raise DomainError("declare_twice", f"seat {seat} has already declared")
    if not cmd.projects:
        raise DomainError("bad_project", "a declaration names at least one project")
    check_declaration(seat, cmd.projects, s.hands[seat], s.profile.projects, s.contract.kind == "sun")
    return [ProjectsDeclared(seat, tuple(tuple(g) for g in cmd.projects))]


def decide_play(s: DealState, cmd: PlayCard) -> list:
    seat, card = cmd.seat, cmd.card
    if s.phase != "playing":
        raise DomainError("not_playing", f"cards are played after bidding and doubling; the deal is in {s.phase}")
    if seat != s.turn:
        check_seat(seat)
        raise turn_error(s, seat, "play")
    if not (isinstance(card, int) and 0 <= card < 32 and s.hands[seat] >> card & 1):
        label = card_label(card) if isinstance(card, int) and 0 <= card < 32 else repr(card)
        raise DomainError("card_not_held", f"seat {seat} does not hold {label}",
                          {"seat": seat, "card": card_name(card) if isinstance(card, int) and 0 <= card < 32 else None})
    offence = None
    p = s.profile
    if not play_mask(s, seat) >> card & 1:
        rule, why = offence_of(card, s.hands[seat], s.trick, s.trump, s.contract.closed,
                               p.partner_winning_exemption, p.undertrump_required)
        if s.table_mode == "strict":
            # The cards named as data too, for a page to say it in its own words: the card played, the card
            # led, and the cards the seat could have played.
            raise DomainError(rule, f"seat {seat} {why}", {
                "seat": seat, "card": card_name(card), "led": card_name(s.trick[0]) if s.trick else None,
                "held": [card_name(c) for c in cards_of(play_mask(s, seat))]})
        offence = rule
    if cmd.baloot and not baloot_allowed(s, seat, card):
        raise DomainError("false_baloot", "Baloot (بلوت) is announced with the second of K and Q of trump, "
                                          f"by the seat that played the first; seat {seat} cannot with "
                                          f"{card_label(card)}")
    event = CardPlayed(seat, card, cmd.baloot, offence) if offence or cmd.baloot else _PLAYED[seat][card]
    if s.trick_no == 7 and len(s.trick) == 3 and s.table_mode == "strict":
        # The last card of a strict table scores the deal at once (a recorded table waits for its review).
        return [event, DealScored(deal_result(evolve_play(s, event)))]
    return [event]


_PLAYED = tuple(tuple(CardPlayed(seat, c) for c in range(32)) for seat in range(4))


def decide_sawa(s: DealState, cmd: ClaimSawa) -> list:
    seat = cmd.seat
    check_seat(seat)
    if s.phase != "playing":
        raise DomainError("not_playing", "Sawa (سوا) is claimed during play")
    if seat != s.turn:
        raise turn_error(s, seat, "play or claim Sawa")
    valid = sawa_valid(s, seat)
    if not valid and s.table_mode == "strict":
        raise DomainError("false_sawa", f"Sawa (سوا) refused: team {team_letter(seat)} cannot win every remaining "
                                        "trick against every defence")
    event = SawaClaimed(seat, valid)
    if s.table_mode == "strict":
        return [event, DealScored(deal_result(evolve_sawa(s, event)))]
    return [event]


def evolve_declare(s: DealState, e: ProjectsDeclared) -> DealState:
    return act(s, e.seat, declared=s.declared + ((e.seat, e.projects),))


def evolve_play(s: DealState, e: CardPlayed) -> DealState:
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
        pts += LAST_TRICK_BONUS  # the last trick (الأرض)
    team = winner & 1
    points = (s.points[0] + pts, s.points[1]) if team == 0 else (s.points[0], s.points[1] + pts)
    tricks = (s.tricks[0] + 1, s.tricks[1]) if team == 0 else (s.tricks[0], s.tricks[1] + 1)
    return replace(s, hands=hands, played=played, trick=(), trick_no=trick_no, leader=winner,
                   turn=winner if trick_no < 8 else -1, phase="playing" if trick_no < 8 else "review",
                   points=points, tricks=tricks, history=s.history + ((s.leader, trick),), actions=actions,
                   actors=actors, **changes)


def evolve_sawa(s: DealState, e: SawaClaimed) -> DealState:
    team = e.seat & 1
    remaining = s.trick + tuple(c for h in s.hands for c in range(32) if h >> c & 1)
    pts = sum(card_points(c, s.trump) for c in remaining) + LAST_TRICK_BONUS   # Sawa takes the last trick too
    left = 8 - s.trick_no
    points = list(s.points)
    tricks = list(s.tricks)
    points[team] += pts
    tricks[team] += left
    changes = {}
    if not e.valid:
        changes["offences"] = s.offences + ((s.actions, e.seat, "false_sawa",
                                             f"claimed Sawa (سوا) but team {team_letter(e.seat)} could not win every "
                                             "remaining trick"),)
    return act(s, e.seat, points=tuple(points), tricks=tuple(tricks), trick=(), trick_no=8,
                hands=(0, 0, 0, 0), phase="review", turn=-1, sawa=(e.seat, e.valid), **changes)
