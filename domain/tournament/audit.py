"""Audit a championship from its events: re-derive the draw and every pairing and compare.

Like replaying a disputed hand: fold the events, and at each decision recompute it from the state
before it. Returns the list of discrepancies (empty when every decision checks out).
"""

from __future__ import annotations

from domain.tournament import events as e
from domain.tournament.decider import evolve
from domain.tournament.draw import commitment, rating_order, seeded_order
from domain.tournament.formats import next_round
from domain.tournament.state import initial


def audit(events) -> list[str]:
    problems: list[str] = []
    state = initial()
    for event in events:
        if isinstance(event, e.DrawMade):
            field = [t for t in state.team_order if not state.teams[t].withdrawn]
            if event.method == "seeded":
                if commitment(event.seed) != state.commitment:
                    problems.append("the revealed seed does not match the published commitment")
                if list(event.order) != seeded_order(field, event.seed):
                    problems.append("the draw order does not follow from the seed")
            elif event.method == "manual":
                if sorted(event.order) != sorted(field):
                    problems.append("the organiser's draw order is not the field, each team once")
            elif list(event.order) != rating_order(field, dict(event.ratings)):
                problems.append("the draw order does not follow from the ratings")
        elif isinstance(event, e.RoundPaired):
            derived = next_round(state)
            if derived is None:
                problems.append(f"round {event.round} was paired after the championship was decided")
            else:
                matches, inputs = derived
                if tuple(matches) != event.matches:
                    problems.append(f"round {event.round}: the pairing does not follow from its inputs")
                if inputs != event.inputs:
                    problems.append(f"round {event.round}: the recorded inputs differ from the derived ones")
        state = evolve(state, event)
    return problems
