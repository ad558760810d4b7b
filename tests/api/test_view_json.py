"""A live stream's view is made as JSON directly (``services/api/wire.py: view_json``): it must be, byte for byte,
the encoding of the wire view the API's other routes return (``table_view``), for every game, every seat and a
spectator under every hands policy, at every step of whole games, a turn clock running or not, and for tables
not open yet. The states come from the rules engine in memory (bots playing every seat)."""

from __future__ import annotations

import datetime as dt
import hashlib

import msgspec
import pytest

from domain import table as table_rules
from domain.games import GAMES
from domain.table import TableOpened, TableProposed
from services.api.wire import table_view, view_json
from services.tables import Table

POLICIES = ("never", "after_deal", "always")


def _states(game_name: str, policy: str, seed: str):
    """The table after each bot turn of one whole game, as people playing it against a turn clock would have
    it (the bots that played are taken off the seats: the clock's deadline is in the views)."""
    game = GAMES[game_name]
    seats = game.info.seat_counts[0]
    opened = TableOpened(table_id=f"t-{game_name}", seats=tuple(f"u{i}" for i in range(seats)), game=game_name,
                         bots=(game.info.default_bot,) * seats, hands_policy=policy, delay_seconds=60.0,
                         turn_seconds=30.0, **game.profile_fields(game.profile(None)))

    def seed_of(n: int) -> str:
        return hashlib.sha256(f"{seed}/{n}".encode()).hexdigest()[:32]

    at = dt.datetime(2026, 12, 6, 12, 0, tzinfo=dt.timezone.utc)
    table = Table(last_at=at)
    for e in [opened, *game.open(seats, 0, game.profile_of(opened), seed_of, opened.table_mode)]:
        table = table_rules.evolve(table, e)
    yield msgspec.structs.replace(table, bots=(None,) * seats)
    version = 1
    while True:
        turns, table = table_rules.bot_run(table, game.choose_from, seed_of, limit=1)
        if not turns:
            return
        version += len(turns[0].events)
        yield msgspec.structs.replace(table, version=version, last_at=at + dt.timedelta(seconds=version),
                                      bots=(None,) * seats)


def _same(table: Table) -> None:
    memo: dict = {}
    for seat in (*range(len(table.seats)), None):
        expected = msgspec.json.encode(table_view(table, seat))
        assert view_json(table, seat, memo) == expected, (seat, table.version)
        assert view_json(table, seat) == expected                   # without a memo too


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("policy", POLICIES)
def test_a_views_json_is_the_wire_views_encoding_at_every_step(game_name, policy):
    clocks = 0
    for n, table in enumerate(_states(game_name, policy, f"{game_name}/{policy}")):
        _same(table)
        clocks += b'"turn_deadline":null' not in view_json(table, 0)
    assert n > 20 and clocks > 0               # whole games were played, some steps with the clock running


def test_a_table_not_open_yet_and_a_cancelled_one():
    opened = TableOpened(table_id="t-invited", seats=("a", "b", "c", "d"))
    invited = table_rules.evolve(Table(), TableProposed(table=opened, waiting=("b", "c")))
    assert invited.opened is None and invited.proposed is not None
    _same(invited)
    cancelled = msgspec.structs.replace(invited, cancelled=True)
    _same(cancelled)
    assert b'"status":"cancelled"' in view_json(cancelled, None)
