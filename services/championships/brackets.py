"""A section of a championship's knock-out bracket, as a page of a large championship asks for it: a stage's
round, ``size`` matches from section ``number`` on, ``depth`` rounds deep; or the section holding a match."""

from __future__ import annotations

from projections import bracket as bracket_projection
from services.errors import Conflict, NotFound


def bracket_section(bracket, *, stage: str | None, round_no: int | None, number: int, size: int, depth: int,
                    match: str | None = None):
    """The section of ``bracket`` asked for (``match``: the one holding that match), and the teams it shows."""
    by_stage = bracket_projection.by_stage(bracket)          # one pass over the matches, for all that follows
    if match is not None:
        where = bracket_projection.place(bracket, match, by_stage)
        if where is None:
            raise NotFound("no_such_match", f"no knock-out match {match!r} in this championship", field="match")
        stage, round_no, position = where
        number = position // size + 1
    stages = bracket_projection.outline(by_stage)
    if not stages:
        raise Conflict("no_bracket", "this championship has no knock-out match paired yet")
    stage = stage or stages[0].stage
    known = next((s for s in stages if s.stage == stage), None)
    if known is None:
        raise NotFound("no_such_stage", f"no knock-out stage {stage!r} in this championship", field="stage")
    round_no = round_no or known.rounds[0][0]
    part = bracket_projection.section(bracket, stage, round_no, number, size, depth, by_stage)
    if part is None:
        raise NotFound("no_such_round", f"stage {stage!r} has no round {round_no}", field="round")
    shown = [t for col in part.columns for slot in col.slots if slot.node is not None
             for t in (slot.node.team_a, slot.node.team_b) if t is not None]
    return part, shown
