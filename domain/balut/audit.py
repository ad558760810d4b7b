"""Auditing a Balut game: replay a ``balut-game/1`` record and say, in a scorer's words, what happened.

Replay is a fold that keeps the valid prefix and names the first refused action; the dice and points the
scorer wrote down, and each revealed seed, are checked against the replay and listed when they differ.
"""

from __future__ import annotations

import msgspec

from domain.balut.dice import dice_text, faces_from_seed, parse_dice, parse_faces, seed_commitment
from domain.balut.game import INITIAL, BalutState, game_result, next_turn, step
from domain.balut.record import GameRecord, record_start, turn_commands
from domain.balut.scoring import CATEGORIES
from domain.records import violation_lines
from domain.errors import DomainError

FORMAT = "balut-game/1"


class Violation(msgspec.Struct, frozen=True):
    turn: int                          # index in ``turns``; -1 for the record as a whole
    seat: int | None
    rule: str
    message: str


class AuditReport(msgspec.Struct, kw_only=True):
    format: str = FORMAT
    valid: bool
    complete: bool
    violations: list[Violation]
    profile: str
    players: int
    actions: list[str]
    sheets: list[dict[str, list[int]]]
    totals: list[int]
    points: list[int]
    places: list[int]
    seeds_checked: int


def _check_claims(i: int, turn, state_dice: list, points: int | None, violations: list) -> None:
    for t, (throw, dice) in enumerate(zip(turn.throws, state_dice)):
        if throw.dice is not None and parse_dice(throw.dice) != dice:
            violations.append(Violation(i, turn.seat, "dice_mismatch",
                                        f"throw {t + 1} shows {dice_text(dice)}, the record says {throw.dice}"))
    if turn.points is not None and points is not None and turn.points != points:
        violations.append(Violation(i, turn.seat, "points_mismatch",
                                    f"{dice_text(state_dice[-1])} scores {points} in {turn.category}, the record "
                                    f"says {turn.points}"))


def _check_seed(i: int, turn, violations: list) -> bool:
    if turn.seed is None:
        return False
    if faces_from_seed(turn.seed) != parse_faces(turn.faces):
        violations.append(Violation(i, turn.seat, "seed_mismatch", "the seed does not give the turn's faces"))
    elif turn.commitment is not None and seed_commitment(turn.seed) != turn.commitment:
        violations.append(Violation(i, turn.seat, "seed_mismatch", "the seed does not match the commitment"))
    return True


def audit_record(record: GameRecord) -> AuditReport:
    """Replay ``record`` and report. The record must already be well-formed (parse_record)."""
    state, _ = step(INITIAL, record_start(record))
    violations: list[Violation] = []
    lines: list[str] = []
    seeds = 0
    for i, turn in enumerate(record.turns):
        if state.phase == "ended":
            violations.append(Violation(i, turn.seat, "after_end", f"turn {i} comes after the game ended"))
            break
        expected = next_turn(state)[0]
        if turn.seat != expected:
            violations.append(Violation(i, turn.seat, "not_your_turn",
                                        f"turn {i} belongs to seat {expected}, not seat {turn.seat}"))
            lines.append(f"#{i} seat {turn.seat}: REFUSED (not_your_turn) it is seat {expected}'s turn")
            break
        seeds += _check_seed(i, turn, violations)
        thrown: list = []
        points = None
        try:
            for cmd in turn_commands(turn):
                state, events = step(state, cmd)
                for e in events:
                    if hasattr(e, "throw"):
                        thrown.append(e.dice)
                    if hasattr(e, "points"):
                        points = e.points
        except DomainError as err:
            violations.append(Violation(i, turn.seat, err.rule, err.message))
            lines.append(f"#{i} seat {turn.seat}: REFUSED ({err.rule}) {err.message}")
            break
        lines.append(_turn_line(i, turn, thrown, points))
        _check_claims(i, turn, thrown, points, violations)
    complete = state.phase == "ended"
    if not complete and not violations:
        violations.append(Violation(len(record.turns), None, "incomplete",
                                    f"the record ends after {state.turns} of the game's turns"))
    return _report(record, state, violations, lines, complete, seeds)


def _turn_line(i: int, turn, thrown: list, points: int | None) -> str:
    throws = " → ".join(
        dice_text(d) + (f" (kept {''.join(str(thrown[t - 1][p]) for p in turn.throws[t].keep)})"
                        if t and turn.throws[t].keep else "")
        for t, d in enumerate(thrown))
    row = f": {turn.category} {points}" if turn.category is not None else ": (no row written yet)"
    return f"#{i} seat {turn.seat} throws {throws}{row}"


def _report(record: GameRecord, state: BalutState, violations, lines, complete, seeds) -> AuditReport:
    result = state.result or game_result(state)
    return AuditReport(
        valid=not violations, complete=complete, violations=violations, profile=record.profile,
        players=record.players, actions=lines,
        sheets=[{c: list(row) for c, row in zip(CATEGORIES, sheet)} for sheet in state.sheets],
        totals=list(result.totals), points=list(result.points), places=list(result.places), seeds_checked=seeds,
    )


def render_report(report: AuditReport) -> str:
    """The report as text a scorer reads."""
    out = [f"{FORMAT} audit — profile {report.profile}, {report.players} players", "", "Turns:"]
    out.extend(f"  {line}" for line in report.actions)
    out.append("")
    out.extend(violation_lines(report.violations, lambda v: f"turn {v.turn}"))
    out.append(f"Seeds checked: {report.seeds_checked}")
    out.append("")
    out.append("Sheets:" + ("" if report.complete else " (the game is not finished)"))
    out.append("  row       " + "".join(f"  seat {s:<3}" for s in range(report.players)))
    for c in CATEGORIES:
        out.append(f"  {c:<10}" + "".join(f"  {'+'.join(map(str, sh[c])) or '-':>8}" for sh in report.sheets))
    out.append("  TOTAL     " + "".join(f"  {t:>8}" for t in report.totals))
    if report.points != report.totals:
        out.append("  POINTS    " + "".join(f"  {p:>8}" for p in report.points))
    out.append("  PLACE     " + "".join(f"  {p:>8}" for p in report.places))
    out.append("")
    out.append("VALID" if report.valid else f"INVALID: {len(report.violations)} violation(s)")
    return "\n".join(out)
