"""A game of Balut as a decider: turns one after another, each up to three throws and one row written.

A game is one event stream: ``balut_started``, then per turn ``balut_turn_started`` (the commitment to the
turn's seed), the throws, the row scored and the seed revealed, and ``balut_ended`` after the last row of
the last sheet. ``evolve`` never validates; ``decide`` refuses with a DomainError naming the rule broken.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.balut.dice import DICE, FACES, THROWS, faces_from_seed, seed_commitment, thrown
from domain.balut.events import (
    BalutEnded, BalutResult, BalutStarted, CategoryScored, DiceDrawn, DiceRolled, Roll, Score, StartBalut,
    StartTurn, TurnSeedRevealed, TurnStarted,
)
from domain.balut.profiles import STC, BalutProfile
from domain.balut.scoring import (
    CATEGORIES, CATEGORY_INDEX, Sheet, category_score, empty_sheet, final_points, open_categories, places,
    sheet_full, sheet_total,
)
from domain.errors import DomainError
from domain.events import RevealSeed

MIN_PLAYERS = 1
MAX_PLAYERS = 8


class BalutState(msgspec.Struct, frozen=True, kw_only=True):
    phase: str = "new"                         # new, playing, ended
    profile: BalutProfile = STC
    players: int = 0
    first_player: int = 0
    sheets: tuple[Sheet, ...] = ()
    round: int = 0                             # 1-based; 0 before the first turn
    order: tuple[int, ...] = ()                # this round's throwing order
    index: int = -1                            # position in ``order`` of the current (or last) turn
    turn: int = -1                             # the seat to throw or score; -1 between turns
    stage: str = "none"                        # none (before the first turn), rolling, scored
    throws: int = 0
    dice: tuple[int, ...] = ()
    commitment: str | None = None
    seed: str | None = None
    faces: tuple[int, ...] = ()                # the turn's faces: private until the seed is revealed
    round_scores: tuple[int, ...] = ()         # what each seat wrote this round (-1: not yet)
    turns: int = 0                             # turns started so far
    result: BalutResult | None = None


INITIAL = BalutState()


def total_turns(s: BalutState) -> int:
    return s.players * len(CATEGORIES) * s.profile.fills


def next_turn(s: BalutState) -> tuple[int, int, tuple[int, ...]]:
    """(seat, round, order) of the turn that starts next."""
    if s.round and s.index + 1 < len(s.order):
        return s.order[s.index + 1], s.round, s.order
    n = s.players
    lead = s.first_player
    if s.round and s.profile.round_order == "best_previous":
        # STC rule 7: the best score of the round before throws first; among equals, the earlier thrower.
        lead = max(s.order, key=lambda seat: (s.round_scores[seat], -s.order.index(seat)))
    order = tuple((lead + i) % n for i in range(n))
    return lead, s.round + 1, order


def needs(s: BalutState) -> str | None:
    """What the table must send next by itself: ``reveal_seed`` after a seeded turn, ``start_turn``, or None."""
    if s.stage == "scored" and s.commitment is not None and s.seed is None:
        return "reveal_seed"
    if s.phase == "playing" and s.stage in ("none", "scored"):
        return "start_turn"
    return None


def legal_actions(s: BalutState, seat: int) -> list:
    """Every command ``seat`` may send now: throws (by the positions kept) and rows to write."""
    if s.phase != "playing" or s.stage != "rolling" or seat != s.turn:
        return []
    out: list = []
    if s.throws == 0:
        return [Roll(seat)]
    if s.throws < THROWS:
        out = [Roll(seat, tuple(p for p in range(DICE) if mask >> p & 1)) for mask in range((1 << DICE) - 1)]
    out.extend(Score(seat, c) for c in open_categories(s.sheets[seat], s.profile))
    return out


def decide(s: BalutState, cmd) -> list:
    """The events of ``cmd`` for the game ``s``; DomainError naming the rule if refused."""
    match cmd:
        case StartBalut():
            return _decide_start(s, cmd)
        case StartTurn():
            return _decide_turn(s, cmd)
        case Roll():
            return _decide_roll(s, cmd)
        case Score():
            return _decide_score(s, cmd)
        case RevealSeed():
            return _decide_reveal(s, cmd)
    raise DomainError("unknown_command", f"{type(cmd).__name__} is not a Balut command")


def _decide_start(s: BalutState, cmd: StartBalut) -> list:
    if s.phase != "new":
        raise DomainError("game_started", "this game has already started")
    if not MIN_PLAYERS <= cmd.players <= MAX_PLAYERS:
        raise DomainError("bad_players", f"Balut is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                                         f"not {cmd.players}")
    if not 0 <= cmd.first_player < cmd.players:
        raise DomainError("bad_seat", f"seat {cmd.first_player} does not exist (seats are 0-{cmd.players - 1})")
    return [BalutStarted(profile=cmd.profile, players=cmd.players, first_player=cmd.first_player)]


def _decide_turn(s: BalutState, cmd: StartTurn) -> list:
    if s.phase != "playing":
        raise DomainError("game_not_playing", f"the game is {s.phase}")
    if s.stage == "rolling":
        raise DomainError("turn_in_progress", f"seat {s.turn} has not written a row yet")
    if s.commitment is not None and s.seed is None:
        raise DomainError("seed_unrevealed", "the last turn's seed must be revealed before the next turn")
    if (cmd.seed is None) == (cmd.faces is None):
        raise DomainError("bad_dice", "give exactly one of a seed or the turn's faces")
    seat, rnd, _ = next_turn(s)
    if cmd.seed is not None:
        return [TurnStarted(seat=seat, round=rnd, commitment=seed_commitment(cmd.seed)),
                DiceDrawn(faces_from_seed(cmd.seed))]
    faces = tuple(cmd.faces)
    if len(faces) != FACES or not all(isinstance(f, int) and 1 <= f <= 6 for f in faces):
        raise DomainError("bad_dice", f"a turn has {FACES} faces (five dice, three throws), each 1-6")
    return [TurnStarted(seat=seat, round=rnd, faces=faces)]


def _check_turn(s: BalutState, seat: int, what: str) -> None:
    if s.phase != "playing":
        raise DomainError("game_not_playing", f"the game is {s.phase}")
    if s.stage != "rolling":
        raise DomainError("not_your_turn", f"nobody is to {what} now: the next turn has not started")
    if seat != s.turn:
        raise DomainError("not_your_turn", f"it is seat {s.turn}'s turn to {what}, not seat {seat}'s")


def _decide_roll(s: BalutState, cmd: Roll) -> list:
    _check_turn(s, cmd.seat, "throw")
    keep = tuple(cmd.keep)
    if s.throws >= THROWS:
        raise DomainError("no_throws_left", f"seat {cmd.seat} has thrown three times and must write a row")
    if any(not isinstance(p, int) or not 0 <= p < DICE for p in keep) or len(set(keep)) != len(keep):
        raise DomainError("bad_keep", f"dice to keep are named by distinct positions 0-4, not {list(keep)}")
    if s.throws == 0 and keep:
        raise DomainError("first_throw_all_dice", "the first throw of a turn is of all five dice")
    if len(keep) == DICE:
        raise DomainError("nothing_to_throw", "keeping all five dice leaves nothing to throw: write a row")
    keep = tuple(sorted(keep))
    dice = thrown(s.faces, s.throws, s.dice or (0,) * DICE, keep)
    return [DiceRolled(seat=cmd.seat, throw=s.throws + 1, keep=keep, dice=dice)]


def _decide_score(s: BalutState, cmd: Score) -> list:
    _check_turn(s, cmd.seat, "write a row")
    if s.throws == 0:
        raise DomainError("throw_first", f"seat {cmd.seat} must throw before writing a row")
    if cmd.category not in CATEGORY_INDEX:
        raise DomainError("bad_category", f"{cmd.category!r} is not a row (rows: {', '.join(CATEGORIES)})")
    row = s.sheets[cmd.seat][CATEGORY_INDEX[cmd.category]]
    if len(row) >= s.profile.fills:
        times = "once" if s.profile.fills == 1 else f"{s.profile.fills} times"
        raise DomainError("row_full", f"seat {cmd.seat}'s {cmd.category} row is full: each row is written {times}")
    scored = CategoryScored(seat=cmd.seat, category=cmd.category, dice=s.dice,
                            points=category_score(cmd.category, s.dice, s.profile))
    after = evolve(s, scored)
    if all(sheet_full(sheet, s.profile) for sheet in after.sheets):
        return [scored, BalutEnded(result=game_result(after))]
    return [scored]


def _decide_reveal(s: BalutState, cmd: RevealSeed) -> list:
    if s.stage != "scored":
        raise DomainError("seed_too_early", "a turn's seed is revealed only once its row is written")
    if s.commitment is None or s.seed is not None:
        raise DomainError("seed_not_committed", "this turn has no pending seed commitment")
    if seed_commitment(cmd.seed) != s.commitment or faces_from_seed(cmd.seed) != s.faces:
        raise DomainError("seed_mismatch", "the seed does not match the commitment published at the turn's start")
    return [TurnSeedRevealed(cmd.seed)]


def game_result(s: BalutState) -> BalutResult:
    """Totals, final points and places of the sheets as they stand (ties: points, then the total)."""
    totals = tuple(sheet_total(sh) for sh in s.sheets)
    points = tuple(final_points(sh, s.profile) for sh in s.sheets)
    ranks = places(list(zip(points, totals)))
    return BalutResult(totals=totals, points=points, places=ranks,
                       winners=tuple(seat for seat, p in enumerate(ranks) if p == 1))


def evolve(s: BalutState, e) -> BalutState:
    """The state after event ``e``. Never validates: events are facts."""
    match e:
        case DiceRolled():
            return replace(s, throws=e.throw, dice=tuple(e.dice))
        case CategoryScored():
            sheet = list(s.sheets[e.seat])
            i = CATEGORY_INDEX[e.category]
            sheet[i] = sheet[i] + (e.points,)
            sheets = s.sheets[:e.seat] + (tuple(sheet),) + s.sheets[e.seat + 1:]
            scores = s.round_scores[:e.seat] + (e.points,) + s.round_scores[e.seat + 1:]
            return replace(s, sheets=sheets, round_scores=scores, stage="scored", turn=-1)
        case TurnStarted():
            new_round = e.round != s.round
            _, _, order = next_turn(s)
            return replace(s, round=e.round, order=order if new_round else s.order,
                           index=0 if new_round else s.index + 1, turn=e.seat, stage="rolling", throws=0,
                           dice=(), commitment=e.commitment, seed=None, faces=tuple(e.faces or ()),
                           round_scores=(-1,) * s.players if new_round else s.round_scores, turns=s.turns + 1)
        case DiceDrawn():
            return replace(s, faces=tuple(e.faces))
        case TurnSeedRevealed():
            return replace(s, seed=e.seed)
        case BalutStarted():
            return replace(s, phase="playing", profile=e.profile, players=e.players, first_player=e.first_player,
                           sheets=tuple(empty_sheet() for _ in range(e.players)))
        case BalutEnded():
            return replace(s, phase="ended", result=e.result)
    return s


def step(s: BalutState, cmd) -> tuple[BalutState, list]:
    """Decide ``cmd``, then fold every event it causes (the private ``balut_dice_drawn`` too): the new state
    and the events. A refused command raises DomainError and changes nothing."""
    events = decide(s, cmd)
    for e in events:
        s = evolve(s, e)
    return s, events


def private_events(s: BalutState, e, seed_of) -> list:
    """The private events that follow stored event ``e`` (folded into ``s``), re-derived from the seeds:
    a seeded turn's faces. ValueError when ``seed_of`` does not give the seed committed to."""
    if type(e) is not TurnStarted or e.commitment is None:
        return []
    seed = seed_of(s.turns)
    if seed_commitment(seed) != e.commitment:
        raise ValueError(f"turn {s.turns}: the seed given is not the one committed to")
    return [DiceDrawn(faces_from_seed(seed))]


def fold(events, state: BalutState = INITIAL) -> BalutState:
    """Fold ``events`` into a state."""
    for e in events:
        state = evolve(state, e)
    return state


def follow_ups(s: BalutState, events: list, seed_of) -> list:
    """``events`` and what follows them by itself: a written row reveals its turn's seed, then, while the
    game goes on, the next turn starts from ``seed_of(its number)`` (turns counted from 1, as deals are)."""
    for e in events:
        s = evolve(s, e)
    return list(events) + follow_on(s, seed_of)


def follow_on(s: BalutState, seed_of) -> list:
    """What follows by itself at ``s``: a written row's turn seed revealed, then the next turn started."""
    out: list = []
    if needs(s) == "reveal_seed":
        s, revealed = step(s, RevealSeed(seed_of(s.turns)))
        out.extend(revealed)
    if needs(s) == "start_turn":
        out.extend(decide(s, StartTurn(seed=seed_of(s.turns + 1))))
    return out
