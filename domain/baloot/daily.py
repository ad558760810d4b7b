"""Boards, board sets and scoring against the field: the daily deal and duplicate scoring (docs/daily.md).

A **board** is one deal fixed in advance: its seed gives the deck (``baloot-shuffle/1``) and its number the
dealer. A **board set** (a day's boards, or a session of a duplicate event) has one seed; each board's seed
derives from it (``board_seed``), so publishing the set's commitment when it opens fixes every board, and
revealing the set's seed when it closes lets anyone check every board.

A **result** is the GP margin of the team holding the scored seat's cards on a board (its game points minus
the other team's). It is scored against the **field** (everyone else's result on the same board, same
seat): matchpoints (the share of the field beaten, ties counting half) and IMPs (the margin's difference
from the field's datum, on the scale ``IMP_SCALE``). A day's score is the sum over its boards. Everything
here is pure: the caller passes seeds and results.
"""

from __future__ import annotations

import bisect
import hashlib
from typing import Iterable

import msgspec

from domain.baloot.shuffle import deck_from_seed, seed_commitment

BOARD_VERSION = "baloot-board/1"

# A GP difference of at least IMP_SCALE[k] is worth k + 1 IMPs (the sign of the difference is the IMPs'
# sign): 0-1 GP 0 IMPs, 2-4 1, 5-8 2, ..., 100 and more 12. A Hokum deal is worth 16 GP and a Sun deal 26
# GP before doubling, so one deal's swing is a few IMPs and a doubled Sun or a big project many.
IMP_SCALE: tuple[int, ...] = (2, 5, 9, 13, 18, 24, 31, 39, 48, 60, 76, 100)
MP_UNIT = 10_000          # matchpoint shares are stored in ten-thousandths (100.00% of a board = 10,000)


class Board(msgspec.Struct, frozen=True):
    """One board of a set: its number (1-based), its seed and the dealer that number gives."""

    set_id: str
    number: int
    seed: str
    dealer: int

    @property
    def deck(self) -> tuple[int, ...]:
        return deck_from_seed(self.seed)


class BoardSet(msgspec.Struct, frozen=True):
    """A set of boards as the public sees it: the commitment from its opening, the seed once it closed."""

    set_id: str
    size: int
    commitment: str
    seed: str | None = None          # revealed when the set closes

    @property
    def closed(self) -> bool:
        return self.seed is not None


def board_seed(set_seed: str, number: int) -> str:
    """Board ``number``'s seed: hex SHA-256 of ``baloot-board/1:<set seed>:<number>``, first 32 digits."""
    return hashlib.sha256(f"{BOARD_VERSION}:{set_seed}:{number}".encode()).hexdigest()[:32]


def board_dealer(number: int) -> int:
    """The dealer of board ``number``: seat (number - 1) mod 4, turning as deals do at a table."""
    return (number - 1) & 3


def board(set_id: str, set_seed: str, number: int) -> Board:
    if number < 1:
        raise ValueError("boards are numbered from 1")
    return Board(set_id, number, board_seed(set_seed, number), board_dealer(number))


def boards(set_id: str, set_seed: str, size: int) -> tuple[Board, ...]:
    return tuple(board(set_id, set_seed, n) for n in range(1, size + 1))


def open_set(set_id: str, set_seed: str, size: int) -> BoardSet:
    """The set as published when it opens: its commitment, not its seed."""
    if size < 1:
        raise ValueError("a board set has at least one board")
    return BoardSet(set_id, size, seed_commitment(set_seed))


def close_set(opened: BoardSet, set_seed: str) -> BoardSet:
    """The set with its seed revealed; ValueError if the seed is not the one committed to."""
    if seed_commitment(set_seed) != opened.commitment:
        raise ValueError("the seed does not match the set's commitment")
    return msgspec.structs.replace(opened, seed=set_seed)


def check_board(opened: BoardSet, set_seed: str, number: int, deck: tuple[int, ...]) -> bool:
    """Whether ``deck`` is board ``number`` of the set committed to (anyone can check after the close)."""
    return seed_commitment(set_seed) == opened.commitment and board(opened.set_id, set_seed, number).deck == tuple(deck)


# ---------------------------------------------------------------- scoring against the field

def margin(game_points: tuple[int, int], seat: int) -> int:
    """The GP margin of ``seat``'s team: its game points minus the other team's."""
    team = seat & 1
    return game_points[team] - game_points[1 - team]


def imps(difference: int) -> int:
    """IMPs for a GP ``difference`` on ``IMP_SCALE`` (antisymmetric: imps(-d) == -imps(d))."""
    n = bisect.bisect_right(IMP_SCALE, abs(difference))
    return n if difference >= 0 else -n


def matchpoints(field: Iterable[int]) -> list[float]:
    """Each result's matchpoints: one per other result it beats, a half per other result it ties. A field
    of n results shares n(n-1)/2."""
    results = list(field)
    ordered = sorted(results)
    out = []
    for r in results:
        below = bisect.bisect_left(ordered, r)
        equal = bisect.bisect_right(ordered, r) - below - 1
        out.append(below + equal / 2)
    return out


def mp_share(points: float, field_size: int) -> int:
    """Matchpoints as a share of the most a result could get, in ``MP_UNIT``, rounded down (alone on a
    board: half)."""
    if field_size <= 1:
        return MP_UNIT // 2
    return int(points * 2) * MP_UNIT // (2 * (field_size - 1))


def datum(field: Iterable[int]) -> int:
    """The field's datum for IMPs: its mean margin rounded to the nearest GP, halves upward."""
    results = list(field)
    if not results:
        raise ValueError("an empty field has no datum")
    total = sum(results)
    return (2 * total + len(results)) // (2 * len(results))


def field_imps(field: Iterable[int]) -> list[int]:
    """Each result's IMPs against the field's datum."""
    results = list(field)
    d = datum(results)
    return [imps(r - d) for r in results]


class BoardScore(msgspec.Struct, frozen=True):
    """One entry's score on one board."""

    entry: str
    margin: int
    matchpoints: float
    mp_share: int            # in MP_UNIT
    imps: int


def score_board(results: dict[str, int]) -> dict[str, BoardScore]:
    """Score one board's field (entry -> margin)."""
    entries = list(results)
    margins = [results[e] for e in entries]
    mps = matchpoints(margins)
    ims = field_imps(margins) if margins else []
    n = len(entries)
    return {e: BoardScore(e, m, p, mp_share(p, n), i) for e, m, p, i in zip(entries, margins, mps, ims)}


class Standing(msgspec.Struct, frozen=True):
    """One entry's day: its totals and what breaks ties (docs/daily.md, "Ranking")."""

    entry: str
    mp: int                  # sum of board shares, in MP_UNIT
    imps: int
    boards: int
    finished_at: int         # position in the log of the entry's last result (earlier is better)


def score_day(boards_results: dict[int, dict[str, int]], finished_at: dict[str, int]) -> list[Standing]:
    """Every entry's day from each board's field (board -> entry -> margin), ranked."""
    totals: dict[str, list[int]] = {}
    for results in boards_results.values():
        for e, s in score_board(results).items():
            t = totals.setdefault(e, [0, 0, 0])
            t[0] += s.mp_share
            t[1] += s.imps
            t[2] += 1
    standings = [Standing(e, mp, im, b, finished_at.get(e, 0)) for e, (mp, im, b) in totals.items()]
    return rank(standings, "mp")


def sort_key(s: Standing, scoring: str = "mp") -> tuple:
    """The ranking order: the chosen total, then the other total, more boards, earlier finish, entry id."""
    first, second = (s.mp, s.imps) if scoring == "mp" else (s.imps, s.mp)
    return (-first, -second, -s.boards, s.finished_at, s.entry)


def rank(standings: Iterable[Standing], scoring: str = "mp") -> list[Standing]:
    if scoring not in ("mp", "imps"):
        raise ValueError("scoring is 'mp' or 'imps'")
    return sorted(standings, key=lambda s: sort_key(s, scoring))


# ---------------------------------------------------------------- a set's events (its own stream)

class BoardSetOpened(msgspec.Struct, frozen=True, tag="board_set_opened", kw_only=True):
    """A board set opens: its commitment is published (its seed is not), with what its boards are played
    under (profile, bot level)."""

    set_id: str
    boards: int
    commitment: str
    profile: str
    bot_level: str


class BoardSetClosed(msgspec.Struct, frozen=True, tag="board_set_closed", kw_only=True):
    """A board set closes: its seed is revealed (checked against the commitment); every board is public."""

    set_id: str
    seed: str


class BoardSetRevealed(msgspec.Struct, frozen=True, tag="board_set_revealed", kw_only=True):
    """Every table that played the set's boards has revealed the seeds it held back (``tables`` of them)."""

    set_id: str
    tables: int


SET_EVENTS = (BoardSetOpened, BoardSetClosed, BoardSetRevealed)


# ---------------------------------------------------------------- a set's decider

class SetState(msgspec.Struct, frozen=True):
    """A set's stream folded: its opening, its seed once it closed, whether its tables revealed theirs."""

    version: int = 0
    opened: BoardSetOpened | None = None
    seed: str | None = None
    revealed: bool = False

    @property
    def board_set(self) -> BoardSet | None:
        """The set as the public sees it (None before it opens)."""
        o = self.opened
        return None if o is None else BoardSet(o.set_id, o.boards, o.commitment, self.seed)


class OpenSet(msgspec.Struct, frozen=True, kw_only=True):
    """Open set ``set_id`` of ``boards`` boards from ``seed`` (published as its commitment only)."""

    set_id: str
    seed: str
    boards: int
    profile: str
    bot_level: str


class CloseSet(msgspec.Struct, frozen=True):
    """Close the set, revealing its ``seed``."""

    seed: str


class MarkRevealed(msgspec.Struct, frozen=True):
    """Every one of the set's ``tables`` has revealed the seeds it held back."""

    tables: int


def decide(state: SetState, command) -> list:
    """The events of a set's command; none when it has happened already (the set opened, closed, revealed)."""
    match command:
        case OpenSet():
            return _decide_open(state, command)
        case CloseSet():
            return _decide_close(state, command)
        case MarkRevealed():
            return _decide_revealed(state, command)
    raise TypeError(f"{type(command).__name__} is not a board set command")


def _decide_open(state: SetState, command: OpenSet) -> list:
    if state.opened is not None:
        return []
    bs = open_set(command.set_id, command.seed, command.boards)
    return [BoardSetOpened(set_id=bs.set_id, boards=bs.size, commitment=bs.commitment, profile=command.profile,
                           bot_level=command.bot_level)]


def _decide_close(state: SetState, command: CloseSet) -> list:
    """ValueError if the seed is not the one committed to (``close_set``)."""
    if state.seed is not None:
        return []
    bs = close_set(state.board_set, command.seed)
    return [BoardSetClosed(set_id=bs.set_id, seed=command.seed)]


def _decide_revealed(state: SetState, command: MarkRevealed) -> list:
    if state.revealed:
        return []
    return [BoardSetRevealed(set_id=state.opened.set_id, tables=command.tables)]


def evolve(state: SetState, e) -> SetState:
    """The set after event ``e``."""
    replace = msgspec.structs.replace
    if isinstance(e, BoardSetOpened):
        return replace(state, opened=e)
    if isinstance(e, BoardSetClosed):
        return replace(state, seed=e.seed)
    return replace(state, revealed=True)
