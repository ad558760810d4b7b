"""Balut bots: each gets exactly a seat's view and answers one of its legal actions. Both are deterministic.

``simple`` keeps the dice of its most frequent face (the higher face among equals), throws three times and
writes the row that scores most now. ``strong`` maximises the expected final points: at the STC rules (each
row once, the score is the total) exactly, by dynamic programming over the open rows (128 sets) with an
expectimax over the keep decisions of a turn; at other profiles (IBF's four fills and points) the same turn
expectimax with a row-value heuristic (a score's worth over the row's par, and the IBF points it moves).
The tables are computed once per profile and cached (about a second).
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from math import factorial

from domain.balut.events import Roll, Score
from domain.balut.profiles import BalutProfile
from domain.balut.scoring import CATEGORIES, IBF_ROW_POINTS, category_score, row_points
from domain.balut.views import BalutView

# ---------------------------------------------------------------- dice as sorted multisets (hot tables)

OUTCOMES: tuple[tuple[int, ...], ...] = tuple(itertools.combinations_with_replacement(range(1, 7), 5))
OUTCOME_INDEX = {o: i for i, o in enumerate(OUTCOMES)}
KEEPS: tuple[tuple[int, ...], ...] = tuple(k for n in range(6) for k in
                                           itertools.combinations_with_replacement(range(1, 7), n))
KEEP_INDEX = {k: i for i, k in enumerate(KEEPS)}


def _probability(dice: tuple[int, ...]) -> float:
    """Chance that len(dice) fair dice show this multiset."""
    ways = factorial(len(dice))
    for count in Counter(dice).values():
        ways //= factorial(count)
    return ways / 6 ** len(dice)


def _transitions() -> tuple[tuple[tuple[int, float], ...], ...]:
    """For each keep: (outcome index, probability) of the dice after throwing the others."""
    out = []
    for k in KEEPS:
        rolls = itertools.combinations_with_replacement(range(1, 7), 5 - len(k))
        out.append(tuple((OUTCOME_INDEX[tuple(sorted(k + r))], _probability(r)) for r in rolls))
    return tuple(out)


def _sub_keeps() -> tuple[tuple[int, ...], ...]:
    """For each outcome: the distinct keeps it allows (every proper sub-multiset: one die at least is thrown)."""
    out = []
    for o in OUTCOMES:
        subs = {tuple(sorted(c)) for n in range(5) for c in itertools.combinations(o, n)}
        out.append(tuple(sorted(KEEP_INDEX[s] for s in subs)))
    return tuple(out)


TRANSITIONS = _transitions()
SUB_KEEPS = _sub_keeps()
FIRST_THROW = TRANSITIONS[KEEP_INDEX[()]]


def _expect(values) -> list[float]:
    """Expected value of ``values`` (by outcome) after each keep."""
    return [sum(p * values[o] for o, p in trans) for trans in TRANSITIONS]


def _best(end: list[float], keep_values: list[float]) -> list[float]:
    """Value of holding each outcome with a throw left: write now (``end``), or the best keep."""
    return [max(end[o], max(keep_values[k] for k in SUB_KEEPS[o])) for o in range(len(OUTCOMES))]


class TurnTable:
    """The expectimax of one turn for a value of the dice at its end: ``end[o]``, keeps after throws 1, 2."""

    __slots__ = ("end", "after_first", "after_second", "value")

    def __init__(self, end: list[float]):
        self.end = end
        self.after_second = _expect(end)                           # keep after throw 2, then throw 3
        self.after_first = _expect(_best(end, self.after_second))  # keep after throw 1, then throws 2-3
        held = _best(end, self.after_first)
        self.value = sum(p * held[o] for o, p in FIRST_THROW)      # before throw 1


@functools.lru_cache(maxsize=8)
def score_table(profile: BalutProfile) -> tuple[tuple[int, ...], ...]:
    """score_table(p)[c][o]: what outcome o scores in row c."""
    return tuple(tuple(category_score(c, o, profile) for o in OUTCOMES) for c in CATEGORIES)


@functools.lru_cache(maxsize=8)
def open_set_tables(profile: BalutProfile) -> tuple[list[float], list[TurnTable | None]]:
    """Exact solitaire values for one-fill sheets: V[mask of open rows] and each mask's turn table."""
    scores = score_table(profile)
    n = len(CATEGORIES)
    value = [0.0] * (1 << n)
    tables: list[TurnTable | None] = [None] * (1 << n)
    for mask in sorted(range(1, 1 << n), key=int.bit_count):
        rows = [c for c in range(n) if mask >> c & 1]
        end = [max(scores[c][o] + value[mask & ~(1 << c)] for c in rows) for o in range(len(OUTCOMES))]
        table = TurnTable(end)
        tables[mask] = table
        value[mask] = table.value
    return value, tables


@functools.lru_cache(maxsize=8)
def row_par(profile: BalutProfile) -> tuple[float, ...]:
    """A row's par: the expected score of a turn played for that row alone."""
    return tuple(TurnTable([float(v) for v in row]).value for row in score_table(profile))


# ---------------------------------------------------------------- the bots


def _keep_positions(dice: list[int], keep: tuple[int, ...]) -> tuple[int, ...]:
    """Positions of ``dice`` holding the multiset ``keep``."""
    left = Counter(keep)
    out = []
    for p, d in enumerate(dice):
        if left[d]:
            left[d] -= 1
            out.append(p)
    return tuple(out)


class _Bot:
    """What every level shares: the first throw is of all five dice; levels differ after it."""

    level = ""

    def choose(self, v: BalutView):
        return Roll(v.viewer) if v.throws == 0 else self.after_throw(v, v.viewer)

    def after_throw(self, v: BalutView, seat: int):
        raise NotImplementedError


class SimpleBot(_Bot):
    """Keep the most frequent face, throw three times, write the row that scores most now."""

    level = "simple"

    def after_throw(self, v: BalutView, seat: int):
        dice = v.dice
        if v.throws < 3 and len(set(dice)) > 1:
            counts = Counter(dice)
            face = max(counts, key=lambda f: (counts[f], f))
            return Roll(seat, _keep_positions(dice, (face,) * counts[face]))
        open_rows = v.sheets[seat].open
        return Score(seat, max(open_rows, key=lambda c: (category_score(c, dice, v.profile),
                                                          -CATEGORIES.index(c))))


class StrongBot(_Bot):
    """Maximise the expected final points (see the module docstring)."""

    level = "strong"

    def after_throw(self, v: BalutView, seat: int):
        table, end_value = self._table(v)
        o = OUTCOME_INDEX[tuple(sorted(v.dice))]
        if v.throws < 3:
            keeps = table.after_first if v.throws == 1 else table.after_second
            k = max(SUB_KEEPS[o], key=keeps.__getitem__)
            if keeps[k] > table.end[o]:
                return Roll(seat, _keep_positions(v.dice, KEEPS[k]))
        open_rows = v.sheets[seat].open
        return Score(seat, max(open_rows, key=lambda c: (end_value(c, o), -CATEGORIES.index(c))))

    def _table(self, v: BalutView):
        profile = v.profile
        sheet = v.sheets[v.viewer]
        scores = score_table(profile)
        open_index = [CATEGORIES.index(c) for c in sheet.open]
        if profile.fills == 1 and profile.points == "total":
            value, tables = open_set_tables(profile)
            mask = sum(1 << c for c in open_index)
            return tables[mask], lambda c, o: scores[CATEGORIES.index(c)][o] + value[mask & ~(1 << CATEGORIES.index(c))]
        return _heuristic_table(profile, sheet.rows, tuple(open_index))


def _heuristic_table(profile: BalutProfile, rows: dict[str, list[int]], open_index: tuple[int, ...]):
    """Multi-fill profiles: a row's worth is its score over par plus 50 per IBF point it moves (50 points of
    total are one IBF point); a zero that kills a straight or house bonus costs that bonus."""
    scores = score_table(profile)
    par = row_par(profile)
    sheet = tuple(tuple(rows[c]) for c in CATEGORIES)
    ibf = profile.points == "ibf"
    before = sum(row_points(sheet, profile).values()) if ibf else 0

    @functools.cache
    def bonus(c: int, v: int) -> float:
        """What writing ``v`` in row ``c`` moves the IBF points, in units of total (50 a point)."""
        if not ibf:
            return 0.0
        after = sheet[:c] + (sheet[c] + (v,),) + sheet[c + 1:]
        value = 50.0 * (sum(row_points(after, profile).values()) - before)
        name = CATEGORIES[c]
        if name in ("straight", "house") and v == 0 and all(sheet[c]):
            value -= 50 * IBF_ROW_POINTS[name] * 0.5      # the row's bonus is lost; it was about even odds
        return value

    def worth(c: int, o: int) -> float:
        v = scores[c][o]
        return v - par[c] + bonus(c, v)

    end = [max(worth(c, o) for c in open_index) for o in range(len(OUTCOMES))]
    return TurnTable(end), lambda name, o: worth(CATEGORIES.index(name), o)


BOTS: dict[str, type] = {"simple": SimpleBot, "strong": StrongBot}


def bot(level: str):
    if level not in BOTS:
        raise ValueError(f"unknown Balut bot level {level!r} (known: {', '.join(BOTS)})")
    return BOTS[level]()
