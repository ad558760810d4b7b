"""The play's hot path leaves nothing for the garbage collector: every object it makes is freed by its last
reference, so the API's collector has no cycles to find and free at once. A recursive closure in the search
for a seat's best declaration left one cycle a call, and a round of tables reaching their first tricks
together made the API's event loop stand still for a tenth of a second while it freed 1,280 of them."""

from __future__ import annotations

import gc
import hashlib

import pytest

from domain import table as table_rules
from domain.baloot.cards import parse_hand
from domain.baloot.play import play_options
from domain.baloot.profiles import BELOTE_DECLARATIONS, SAUDI
from domain.baloot.projects import best_declaration
from domain.table import GAMES, TableOpened, TableState


@pytest.fixture
def domain_garbage():
    """What the collector finds unreachable, made by the domain (its objects and functions, compiled or not),
    once the test has run with the collector off; other threads of the test process may leave their own."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)

    def found() -> list:
        gc.collect()
        return [o for o in gc.garbage
                if type(o).__module__.startswith("domain") or str(getattr(o, "__module__", "")).startswith("domain")]

    try:
        yield found
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_the_best_declaration_search_leaves_no_cycle(domain_garbage):
    # Two sequences and four of a kind: the search tries several sets.
    hand = parse_hand("7S 8S 9S TS JH QH KH AH AS AD AC")
    for seat in range(4):
        for scheme, sun in (("saudi", False), ("saudi", True), ("belote", False)):
            assert best_declaration(seat, hand, scheme, sun)
    assert domain_garbage() == []


@pytest.mark.parametrize("level", ["easy", "normal"])
@pytest.mark.parametrize("profile", [SAUDI, BELOTE_DECLARATIONS], ids=["saudi", "belote_declarations"])
def test_a_whole_game_of_bots_and_every_seats_options_leave_no_cycle(domain_garbage, level, profile):
    def seed_of(n: int) -> str:
        return hashlib.sha256(f"garbage/{n}".encode()).hexdigest()[:32]

    opened = TableOpened(table_id="t", seats=("a", "b", "c", "d"), profile=profile, bots=(level,) * 4)
    game = GAMES[opened.game]
    table = TableState()
    for e in [opened, *game.open(4, 0, profile, seed_of, opened.table_mode)]:
        table = table_rules.evolve(table, e)
    while True:
        turns, table = table_rules.bot_run(table, game.choose_from, seed_of)
        if not turns:
            break
        deal = table.game.deal
        if deal is not None:
            for seat in range(4):          # what each seat's view offers (the API renders it per follower)
                play_options(deal, seat)
    assert table.game.phase == "ended"
    assert domain_garbage() == []
