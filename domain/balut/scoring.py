"""The rows of the score sheet, what a throw scores in each, and a sheet's totals, points and places.

Seven rows (docs/balut.md §2): fours, fives and sixes count only their own face; the straight is 1-2-3-4-5
(15) or 2-3-4-5-6 (20); the house is three of one face and two of another (the sum of the pips, at most 28);
choice is the sum of any five dice; a Balut is five of a kind (30 at STC, 20 plus its pips at IBF). Ones,
twos and threes count only inside a straight, a house, a choice or a Balut. A throw that does not make the
row scores 0 there: that is how a row is scratched.
"""

from __future__ import annotations

from collections import Counter

from domain.balut.profiles import STC, BalutProfile

CATEGORIES = ("fours", "fives", "sixes", "straight", "house", "choice", "balut")
CATEGORY_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
LOW_STRAIGHT = (1, 2, 3, 4, 5)
HIGH_STRAIGHT = (2, 3, 4, 5, 6)

# IBF points (docs/balut.md §5): a row's threshold over its four entries, and the points it gives.
IBF_ROW_THRESHOLDS = {"fours": 52, "fives": 65, "sixes": 78, "choice": 100}
IBF_ROW_POINTS = {"fours": 2, "fives": 2, "sixes": 2, "straight": 4, "house": 3, "choice": 2}
IBF_POINTS_PER_BALUT = 2


def category_score(category: str, dice, profile: BalutProfile = STC) -> int:
    """What ``dice`` score in ``category`` (0 when they do not make it)."""
    match category:
        case "fours":
            return 4 * dice.count(4)
        case "fives":
            return 5 * dice.count(5)
        case "sixes":
            return 6 * dice.count(6)
        case "straight":
            s = tuple(sorted(dice))
            return sum(s) if s in (LOW_STRAIGHT, HIGH_STRAIGHT) else 0
        case "house":
            return sum(dice) if sorted(Counter(dice).values()) == [2, 3] else 0
        case "choice":
            return sum(dice)
        case "balut":
            if len(set(dice)) != 1:
                return 0
            return 30 if profile.balut_score == "thirty" else 20 + sum(dice)
    raise ValueError(f"unknown row {category!r} (rows: {', '.join(CATEGORIES)})")


Sheet = tuple[tuple[int, ...], ...]       # per row (CATEGORIES order), the scores written, in order


def empty_sheet() -> Sheet:
    return tuple(() for _ in CATEGORIES)


def sheet_total(sheet: Sheet) -> int:
    return sum(sum(row) for row in sheet)


def sheet_full(sheet: Sheet, profile: BalutProfile) -> bool:
    return all(len(row) == profile.fills for row in sheet)


def open_categories(sheet: Sheet, profile: BalutProfile) -> tuple[str, ...]:
    return tuple(c for c, row in zip(CATEGORIES, sheet) if len(row) < profile.fills)


def total_band_points(total: int) -> int:
    """IBF points for the sheet's total: -2 under 300, then one more for each 50 from 300, 6 from 650."""
    if total < 300:
        return -2
    return min(6, (total - 300) // 50 - 1)


def row_points(sheet: Sheet, profile: BalutProfile) -> dict[str, int]:
    """IBF points earned by each row of a sheet (rows that earn nothing are left out)."""
    out: dict[str, int] = {}
    for category, row in zip(CATEGORIES, sheet):
        if category == "balut":
            if any(row):
                out[category] = IBF_POINTS_PER_BALUT * sum(1 for v in row if v)
        elif category in IBF_ROW_THRESHOLDS:
            if sum(row) >= IBF_ROW_THRESHOLDS[category]:
                out[category] = IBF_ROW_POINTS[category]
        elif len(row) == profile.fills and all(row):      # straight, house: every entry made
            out[category] = IBF_ROW_POINTS[category]
    return out


def final_points(sheet: Sheet, profile: BalutProfile) -> int:
    """The game's points: the total (STC), or the IBF points of rows and of the total's band."""
    total = sheet_total(sheet)
    if profile.points == "total":
        return total
    return sum(row_points(sheet, profile).values()) + total_band_points(total)


def places(keys) -> tuple[int, ...]:
    """1-based places from comparable ``keys`` (higher is better); equal keys share a place (1, 1, 3)."""
    return tuple(1 + sum(1 for other in keys if other > k) for k in keys)
