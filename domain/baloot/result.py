"""The result of a deal (§6.3, §8): the score of a finished deal, and Qayd at a recorded table.

A recorded table stores illegal actions as made. Until the result is recorded (after the last trick, in
the review) either team may call Qayd (قيد) on an action of the other: proven, the deal goes to the
caller's team; unfounded, to the accused's.
"""

from __future__ import annotations

from domain.baloot.cards import KING, QUEEN
from domain.baloot.dealstate import DealState, actor_of, check_seat, team_letter
from domain.baloot.events import AwardDeal, CallQayd, DealResult, DealScored, QaydCalled, QaydVerdict, RecordResult
from domain.errors import DomainError
from domain.baloot.projects import Project, compare, evaluate
from domain.baloot.scoring import score_deal, score_qayd, score_taken


def deal_result(s: DealState) -> DealResult:
    """The result of the deal played out to ``s`` (projects compared, Baloot counted)."""
    projects = _projects(s)
    team = compare(projects, s.order)
    return score_deal(s.profile, s.contract, s.points, s.tricks, projects, team, _baloots(s))


def decide_record_result(s: DealState, cmd: RecordResult) -> list:
    if s.phase != "review":
        raise DomainError("not_in_review", "the result is recorded only after the last trick "
                                           "of a recorded table")
    return [DealScored(deal_result(s))]


def decide_qayd(s: DealState, cmd: CallQayd) -> list:
    seat, index = cmd.seat, cmd.index
    check_seat(seat)
    if s.table_mode != "recorded":
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
                              f"team {team_letter(seat)} loses the deal")
    event = QaydCalled(verdict)
    result = score_qayd(s.profile, s.contract, verdict, s.points, s.tricks, _projects(s), _baloots(s))
    return [event, DealScored(result)]


def decide_award(s: DealState, cmd: AwardDeal) -> list:
    """A referee gives the deal being played to one team, as a proven Qayd would (the contract fixed: before,
    there is no deal value to give; annul the deal instead)."""
    if cmd.team not in (0, 1):
        raise DomainError("bad_team", "teams are 0 (seats 0+2) and 1 (seats 1+3)")
    if not cmd.reason.strip():
        raise DomainError("award_reason", "a referee awards a deal with a reason")
    if s.phase not in ("doubling", "playing", "review"):
        raise DomainError("award_closed", f"a deal is awarded once its contract is fixed and until its result is "
                                          f"recorded; this one is in {s.phase} (annul it instead)")
    why = f"the referee awards the deal to team {'AB'[cmd.team]}: {cmd.reason.strip()}"
    return [DealScored(score_taken(s.profile, s.contract, cmd.team, s.points, s.tricks, _projects(s), _baloots(s),
                                   why, awarded=cmd.reason.strip()))]


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
