"""Auditing a deal: replay a hand record through the engine and say, in a referee's words, what happened.

Replay is a fold that keeps the valid prefix and names the first refused action (strict tables stop there);
in recorded tables every illegal play stored as made is listed, with the Qayd verdicts.
"""

from __future__ import annotations

import msgspec

from domain.baloot.cards import LAST_TRICK_BONUS, card_label, card_name, suit_name
from domain.baloot.deal import INITIAL, decide, describe_contract, evolve, step
from domain.baloot.events import (
    AwardDeal, BidMade, CardPlayed, ContractFixed, DealVoided, DoubleCalled, ProjectsDeclared, QaydCalled, QaydVerdict,
    RecordResult, SawaClaimed,
)
from domain.errors import DomainError
from domain.events import TableMode
from domain.baloot.handrecord import HandRecord, action_command, record_start
from domain.baloot.shuffle import deck_from_seed, seed_commitment
from domain.baloot.views import ContractView, contract_view
from domain.records import violation_lines


class Violation(msgspec.Struct, frozen=True):
    index: int
    seat: int | None
    rule: str
    message: str


class ProjectReport(msgspec.Struct, frozen=True):
    seat: int
    kind: str
    cards: list[str]
    value: int


class AuditReport(msgspec.Struct, kw_only=True):
    valid: bool
    violations: list[Violation]
    contract: ContractView | None
    card_points: tuple[int, int] | None
    game_points: tuple[int, int] | None
    kaboot: bool
    failed: bool
    void: bool
    complete: bool
    table_mode: TableMode = msgspec.field(name="table")
    profile: str
    actions: list[str]
    qayd: list[QaydVerdict]
    projects: list[ProjectReport]
    baloot: tuple[int, int]
    card_gp: tuple[int, int] | None
    multiplier: int
    notes: list[str]
    seed_check: str | None = None


class Narration(msgspec.Struct, frozen=True):
    """What an action of a deal was, in a referee's words, in parts: the action's index, the seat that acted and
    what it did (``what``, after the seat: "bids sun", "plays 7♠  ← illegal: revoke"), so that each reader
    names the seat his way (the audit "seat 2", the referee's desk the player's name)."""

    index: int
    seat: int
    what: str

    def line(self) -> str:
        """The audit's line: "#3 seat 2 bids sun"."""
        return f"#{self.index} seat {self.seat} {self.what}"


def narrate(index: int, e) -> Narration | None:
    """The words of the event ``e`` of action ``index``, or None for an event that is no player's action."""
    match e:
        case BidMade():
            suit = f" {suit_name(e.suit)}" if e.suit is not None else ""
            return Narration(index, e.seat, f"bids {e.bid}{suit}")
        case DoubleCalled():
            closed = " (closed)" if e.closed else " (open)" if e.closed is False else ""
            return Narration(index, e.seat, f"says {e.call}{closed}")
        case ProjectsDeclared():
            groups = "; ".join(" ".join(card_label(c) for c in g) for g in e.projects)
            return Narration(index, e.seat, f"declares {groups}")
        case CardPlayed():
            extra = " announcing Baloot (بلوت)" if e.baloot else ""
            bad = f"  ← illegal: {e.offence}" if e.offence else ""
            return Narration(index, e.seat, f"plays {card_label(e.card)}{extra}{bad}")
        case SawaClaimed():
            return Narration(index, e.seat, f"claims Sawa (سوا): {'holds' if e.valid else 'FALSE'}")
        case QaydCalled():
            return Narration(index, e.verdict.caller, f"calls Qayd (قيد) on action {e.verdict.index}")
    return None


def audit_record(record: HandRecord) -> AuditReport:
    """Replay ``record`` and report. The record must already be well-formed (parse_record)."""
    state, _ = step(INITIAL, record_start(record))
    violations: list[Violation] = []
    lines: list[str] = []
    verdicts: list[QaydVerdict] = []
    stopped = False
    awards = {r.after: r for r in record.rulings or () if r.ruling == "award_deal" and r.team is not None}
    annulled = next((r for r in record.rulings or () if r.ruling in ("annul_deal", "replay_deal")), None)
    for index, action in enumerate([*record.actions, None]):
        if index in awards and state.phase in ("doubling", "playing", "review"):
            r = awards[index]
            for e in decide(state, AwardDeal(team=r.team, reason=r.reason)):
                state = evolve(state, e)
            lines.append(f"   after action {index - 1}: the referee awards the deal to team {'AB'[r.team]}: "
                         f"{r.reason}")
        if action is None:
            break
        if state.phase in ("scored", "void"):
            violations.append(Violation(index, action.seat, "after_end",
                                        f"action {index} comes after the deal ended"))
            stopped = True
            break
        try:
            events = decide(state, action_command(action))
        except DomainError as err:
            violations.append(Violation(index, action.seat, err.rule, err.message))
            lines.append(f"#{index} seat {action.seat}: REFUSED ({err.rule}) {err.message}")
            stopped = True
            break
        for e in events:
            told = narrate(index, e)
            if told:
                lines.append(told.line())
            if isinstance(e, ContractFixed):
                lines.append(f"   contract: {describe_contract(evolve(state, e).contract)}")
            if isinstance(e, QaydCalled):
                verdicts.append(e.verdict)
                lines.append(f"   {e.verdict.message}")
            if isinstance(e, DealVoided):
                lines.append(f"   the deal is void ({e.reason})")
            before = state
            state = evolve(state, e)
            if state.trick_no > before.trick_no and isinstance(e, CardPlayed):
                team = state.leader & 1
                won = state.points[team] - before.points[team]
                last = f" with the last-trick {LAST_TRICK_BONUS}" if state.trick_no == 8 else ""
                lines.append(f"   trick {state.trick_no} to seat {state.leader} (team {'AB'[team]}), {won} points"
                             f"{last}")
        for off in state.offences:
            if off[0] == index:
                violations.append(Violation(index, off[1], off[2], f"seat {off[1]} {off[3]}"))
    if not stopped and state.phase == "review":
        state, _ = step(state, RecordResult())
    complete = state.phase in ("scored", "void")
    if annulled is not None:
        lines.append(f"   the referee annuls the deal ({annulled.ruling}): {annulled.reason}")
        complete = True             # decided by the ruling: it counts for nothing
    if not stopped and not complete:
        violations.append(Violation(len(record.actions), state.turn if state.turn >= 0 else None, "incomplete",
                                    f"the record ends before the deal is decided (phase {state.phase})"))
    return _report(record, state, violations, lines, verdicts, complete)


def _report(record, state, violations, lines, verdicts, complete) -> AuditReport:
    c = state.contract
    r = state.result
    seed_check = None
    if record.seed is not None:
        deck = tuple(card_name(c) for c in deck_from_seed(record.seed))
        ok_deck = list(deck) == list(record.deck)
        ok_commit = record.commitment is None or seed_commitment(record.seed) == record.commitment
        seed_check = "seed matches the commitment and the deck" if ok_deck and ok_commit else (
            "seed does NOT match " + ("the deck" if not ok_deck else "the commitment"))
        if not (ok_deck and ok_commit):
            violations.append(Violation(-1, None, "seed_mismatch", seed_check))
    return AuditReport(
        valid=not violations,
        violations=violations,
        contract=contract_view(c),
        card_points=tuple(r.card_points) if r else None,
        game_points=tuple(r.game_points) if r else None,
        kaboot=bool(r and r.kaboot), failed=bool(r and r.failed), void=bool(r and r.void), complete=complete,
        table_mode=record.table_mode, profile=record.profile, actions=lines, qayd=verdicts,
        projects=[ProjectReport(p.seat, p.kind, [card_name(x) for x in p.cards], p.value) for p in r.projects]
        if r else [],
        baloot=tuple(r.baloot) if r else (0, 0), card_gp=tuple(r.card_gp) if r else None,
        multiplier=c.multiplier if c else 1, notes=list(r.notes) if r else [], seed_check=seed_check,
    )


def render_report(report: AuditReport) -> str:
    """The report as text a referee reads."""
    out = [f"baloot-hand/1 audit — profile {report.profile}, {report.table_mode} table"]
    c = report.contract
    if c:
        kind = "Ashkal (Sun)" if c.ashkal else "Sun" if c.type == "sun" else f"Hokum {c.suit}"
        extra = (f", ×{c.multiplier}" if c.multiplier > 1 else "") + (", Gahwa" if c.gahwa else "") + (
            ", closed" if c.closed else "")
        out.append(f"Contract: {kind}, buyer seat {c.buyer} (team {'AB'[c.buyer & 1]}){extra}")
    else:
        out.append("Contract: none")
    out.append("")
    out.append("Actions:")
    out.extend(f"  {line}" for line in report.actions)
    out.append("")
    out.extend(violation_lines(report.violations, lambda v: f"action {v.index}"))
    for q in report.qayd:
        out.append(f"Qayd verdict: {q.message}")
    if report.seed_check:
        out.append(f"Seed: {report.seed_check}")
    out.append("")
    if report.game_points is not None:
        out.append("Score (team A = seats 0+2, team B = seats 1+3):")
        out.append(f"  card points       A {report.card_points[0]:>4}   B {report.card_points[1]:>4}")
        if report.card_gp is not None and any(report.card_gp):
            out.append(f"  card GP           A {report.card_gp[0]:>4}   B {report.card_gp[1]:>4}")
        for p in report.projects:
            out.append(f"  project           seat {p.seat} {p.kind} {' '.join(p.cards)} = {p.value}")
        if any(report.baloot):
            out.append(f"  Baloot            A {report.baloot[0]:>4}   B {report.baloot[1]:>4}")
        flags = [n for n, on in (("Kaboot", report.kaboot), ("buyer failed", report.failed),
                                 ("void", report.void)) if on]
        if flags:
            out.append(f"  {', '.join(flags)}")
        for note in report.notes:
            out.append(f"  · {note}")
        out.append(f"  GAME POINTS       A {report.game_points[0]:>4}   B {report.game_points[1]:>4}")
    else:
        out.append("Score: not decided (the replay stopped)")
    out.append("")
    out.append("VALID" if report.valid else f"INVALID: {len(report.violations)} violation(s)")
    return "\n".join(out)
