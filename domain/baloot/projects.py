"""Projects (المشاريع): what a declared group is worth, which team's projects score (§6.1, §6.2, §9)."""

from __future__ import annotations

from domain.baloot.cards import ACE, JACK, KING, NINE, QUEEN, TEN, card_label, card_rank, card_suit
from domain.baloot.events import ProjectScore
from domain.errors import DomainError

# Saudi projects: (Hokum GP, Sun GP, raw value, class rank for the comparison).
SAUDI_PROJECTS = {
    "sira": (2, 4, 20, 1),           # سرا: three in sequence
    "fifty": (5, 10, 50, 2),         # خمسين: four in sequence
    "hundred": (10, 20, 100, 3),     # مية: five or more in sequence, or four T/J/Q/K (and four A in Hokum)
    "four_hundred": (None, 40, 200, 4),  # أربعمية: four aces, Sun only
}
# Belote declarations (§9), in card points.
BELOTE_SEQUENCES = {3: ("tierce", 20), 4: ("fifty", 50)}
BELOTE_FOURS = {JACK: 200, NINE: 150, ACE: 100, TEN: 100, KING: 100, QUEEN: 100}


class Project:
    """One valid declared group, with its value under a contract and its comparison key."""

    __slots__ = ("seat", "kind", "cards", "value", "raw", "key")

    def __init__(self, seat, kind, cards, value, raw, key):
        self.seat, self.kind, self.cards, self.value, self.raw, self.key = seat, kind, cards, value, raw, key

    def score(self) -> ProjectScore:
        return ProjectScore(self.seat, self.kind, self.cards, self.value, self.raw)


def _describe(cards) -> str:
    return " ".join(card_label(c) for c in cards)


def evaluate(seat: int, group: tuple[int, ...], scheme: str, sun: bool) -> Project:
    """The project formed by ``group`` for ``scheme`` ('saudi' or 'belote'); DomainError if it is none."""
    cards = tuple(sorted(group))
    suits = {card_suit(c) for c in cards}
    ranks = sorted(card_rank(c) for c in cards)
    if len(set(cards)) != len(cards):
        raise DomainError("bad_project", f"the group {_describe(cards)} repeats a card")
    if len(suits) == 1 and len(cards) >= 3 and ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        top = ranks[-1]
        if scheme == "belote":
            kind, value = BELOTE_SEQUENCES.get(len(cards), ("hundred", 100))
            return Project(seat, kind, cards, value, value, (value, 1, top))
        kind = "sira" if len(cards) == 3 else "fifty" if len(cards) == 4 else "hundred"
        hokum_gp, sun_gp, raw, cls = SAUDI_PROJECTS[kind]
        return Project(seat, kind, cards, sun_gp if sun else hokum_gp, raw, (cls, 1, top))
    if len(cards) == 4 and len(set(ranks)) == 1:
        rank = ranks[0]
        if scheme == "belote":
            if rank not in BELOTE_FOURS:
                raise DomainError("bad_project", f"four {card_label(cards[0])[:-1]}s score nothing")
            value = BELOTE_FOURS[rank]
            return Project(seat, "four_of_a_kind", cards, value, value, (value, 0, rank))
        if rank == ACE and sun:
            _, gp, raw, cls = SAUDI_PROJECTS["four_hundred"]
            return Project(seat, "four_hundred", cards, gp, raw, (cls, 0, rank))
        if rank >= TEN:
            hokum_gp, sun_gp, raw, cls = SAUDI_PROJECTS["hundred"]
            return Project(seat, "hundred", cards, sun_gp if sun else hokum_gp, raw, (cls, 0, rank))
        raise DomainError("bad_project", "four 9s, 8s or 7s score nothing")
    raise DomainError("bad_project", f"{_describe(cards)} is neither a sequence of three or more in one suit "
                                     "nor four of a kind")


def check_declaration(seat: int, groups, hand: int, scheme: str, sun: bool) -> list[Project]:
    """Validate a declaration against the hand: each group a project, no card used twice."""
    used = 0
    projects = []
    for group in groups:
        for c in group:
            if not 0 <= c < 32 or not hand >> c & 1:
                raise DomainError("bad_project", f"seat {seat} does not hold {card_label(c) if 0 <= c < 32 else c}")
            if used >> c & 1:
                raise DomainError("bad_project", f"{card_label(c)} serves in two projects; a card serves in one")
            used |= 1 << c
        projects.append(evaluate(seat, tuple(group), scheme, sun))
    return projects


def best_declaration(seat: int, hand: int, scheme: str, sun: bool) -> tuple[tuple[int, ...], ...]:
    """A highest-valued non-overlapping set of projects in ``hand`` (what a bot or the UI offers)."""
    candidates = []
    for suit in range(4):
        run = []
        for rank in range(8):
            if hand >> (suit * 8 + rank) & 1:
                run.append(suit * 8 + rank)
            else:
                if len(run) >= 3:
                    candidates.append(tuple(run))
                run = []
        if len(run) >= 3:
            candidates.append(tuple(run))
    for rank in range(8):
        four = tuple(s * 8 + rank for s in range(4))
        if all(hand >> c & 1 for c in four):
            try:
                evaluate(seat, four, scheme, sun)
            except DomainError:
                continue
            candidates.append(four)
    masks = [sum(1 << c for c in group) for group in candidates]
    values = [evaluate(seat, group, scheme, sun).value for group in candidates]
    return _best_set(candidates, masks, values, 0, 0, (), 0, ((), 0))[0]


def _best_set(candidates: list, masks: list[int], values: list[int], i: int, used: int, chosen: tuple, value: int,
              best: tuple[tuple, int]) -> tuple[tuple, int]:
    """``best`` or a better non-overlapping extension of ``chosen`` by the candidates from ``i`` on, as (groups,
    value); of equal values, the first found. A function of the module, not a closure that calls itself: such a
    closure is a reference cycle, left to the garbage collector after every call (1,280 of them freed at once
    stopped the API's event loop for 0.1 s, as a round's tables reached their first tricks)."""
    if value > best[1]:
        best = (chosen, value)
    for j in range(i, len(candidates)):
        if not used & masks[j]:
            best = _best_set(candidates, masks, values, j + 1, used | masks[j], chosen + (candidates[j],),
                             value + values[j], best)
    return best


def compare(projects: list[Project], speaking_order: tuple[int, ...]) -> int | None:
    """The team whose projects score (§6.2): best project wins, a full tie goes to the earlier speaker."""
    if not projects:
        return None
    best = max(projects, key=lambda p: (p.key, -speaking_order.index(p.seat)))
    return best.seat & 1
