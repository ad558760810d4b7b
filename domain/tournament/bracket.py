"""Knock-out bracket slots shared by single elimination, groups and the winners' bracket.

A bracket is a list of slots in bracket order; match j of a round is slots 2j and 2j+1, and its winner
fills slot j of the next round. Empty slots (None) are byes in the first round and walkovers later.
"""

from __future__ import annotations

from domain.tournament.events import Match
from domain.tournament.state import MatchOutcome, Round, match_id


def bracket_size(teams: int) -> int:
    """The smallest power of two holding `teams` (1 for a field of one)."""
    size = 1
    while size < teams:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """Seed number (0 = top seed) at each slot, so seeds 1 and 2 can only meet in the final.

    >>> seed_positions(8)
    [0, 7, 3, 4, 1, 6, 2, 5]
    """
    seeds = [0]
    while len(seeds) < size:
        mirror = 2 * len(seeds) - 1
        seeds = [s for seed in seeds for s in (seed, mirror - seed)]
    return seeds


def first_round_slots(order: list[str]) -> list[str | None]:
    """Slots of the first round: top seeds face the empty slots, so byes go to the best seeds."""
    return [order[s] if s < len(order) else None for s in seed_positions(bracket_size(len(order)))]


def pair_slots(slots: list[str | None], round_number: int, stage: str, start: int,
               first_round: bool) -> list[Match]:
    """Matches of adjacent slots, numbered from table `start`; empty slots become byes or walkovers."""
    matches = []
    for j in range(len(slots) // 2):
        a, b = slots[2 * j], slots[2 * j + 1]
        if a is None:
            a, b = b, a
        note = "" if b is not None else "void" if a is None else "bye" if first_round else "walkover"
        matches.append(Match(match_id(round_number, start + j), round_number, start + j, stage, a, b,
                             note))
    return matches


def winners(round_: Round, matches: list[Match] | tuple[Match, ...]) -> list[str | None]:
    """The slot each of `matches` sends into the next round."""
    outcomes = round_.outcomes
    return [outcomes[m.index].winner for m in matches]


def outcome_of_note(match: Match) -> MatchOutcome | None:
    """Byes, walkovers and voids are decided by the pairing itself."""
    if match.note == "":
        return None
    if match.note == "void":
        return MatchOutcome("void", None)
    return MatchOutcome(match.note, match.team_a)
