"""A daily set's stream decided (``domain.baloot.daily.decide``/``evolve``): it opens once with its commitment,
closes once with the seed it committed to (another seed is refused before anything is stored), and is marked
revealed once; a command that has happened already decides nothing."""

import pytest

from domain.baloot import daily
from domain.baloot.daily import BoardSetClosed, BoardSetOpened, BoardSetRevealed, CloseSet, MarkRevealed, OpenSet

OPEN = OpenSet(set_id="2026-12-01/saudi", seed="s3cret", boards=8, profile="saudi", bot_level="normal")


def run(state: daily.SetState, command) -> tuple[list, daily.SetState]:
    events = daily.decide(state, command)
    for e in events:
        state = daily.evolve(state, e)
    return events, state


def test_a_set_opens_once_publishing_its_commitment_not_its_seed():
    events, state = run(daily.SetState(), OPEN)
    committed = daily.open_set(OPEN.set_id, "s3cret", 8).commitment
    assert events == [BoardSetOpened(set_id=OPEN.set_id, boards=8, commitment=committed, profile="saudi",
                                     bot_level="normal")]
    assert state.board_set == daily.BoardSet(OPEN.set_id, 8, committed)
    assert run(state, OPEN)[0] == []                                  # opened already (by another player)


def test_a_set_closes_once_with_the_seed_it_committed_to_and_is_marked_revealed_once():
    _, opened = run(daily.SetState(), OPEN)
    with pytest.raises(ValueError):
        daily.decide(opened, CloseSet("guess"))
    events, closed = run(opened, CloseSet("s3cret"))
    assert events == [BoardSetClosed(set_id=OPEN.set_id, seed="s3cret")]
    assert closed.board_set.closed and closed.board_set.seed == "s3cret"
    assert run(closed, CloseSet("s3cret"))[0] == []
    events, revealed = run(closed, MarkRevealed(3))
    assert events == [BoardSetRevealed(set_id=OPEN.set_id, tables=3)] and revealed.revealed
    assert run(revealed, MarkRevealed(3))[0] == []
