"""A bot that fails never stalls its table: a choice that raises, or one the rules refuse, is replaced by what
the table's clock plays for an absent seat, the failure is logged, and the game goes on to its end through
the real workers (security round 3, item 18)."""

from __future__ import annotations

import logging

from domain.baloot import bots
from domain.baloot.bots.simple import NormalBot
from domain.baloot.events import PlayCard
from domain.table import game_of
from services.tables import Table, fold_rows
from services.tables.pending import pending_work
from tests.workers.helpers import all_bots, assert_chain_holds, assert_exactly_once, ended, stream_rows


class Unreliable(NormalBot):
    """Fails on two positions in three (chosen from the view, so that a redelivered run decides the same):
    raises on one, plays a card the rules refuse on the next."""

    def choose(self, view):
        which = (view.viewer + len(view.bids) + len(view.trick) + 4 * len(view.tricks)) % 3
        if which == 0:
            raise ValueError("no deal is consistent with the view")
        legal = {a.card for a in view.legal_actions if isinstance(a, PlayCard)}
        if which == 1 and legal:
            return PlayCard(seat=view.viewer, card=next(c for c in range(32) if c not in legal))
        return super().choose(view)


async def test_a_failing_bot_plays_what_the_clock_would_and_the_table_finishes(rig, monkeypatch, caplog):
    monkeypatch.setitem(bots.BOTS, "hard", Unreliable)
    caplog.set_level(logging.ERROR, logger="baloot.tables")
    svc = await rig.tables()
    table = await svc.open_table(all_bots("t1", level="hard"))
    await rig.workers.enqueue(pending_work(table))
    rig.start()

    table = await rig.drain_until(svc, "t1", ended, timeout=120)

    rows = await stream_rows(svc.pool, "t1")
    assert_exactly_once(rows)
    await assert_chain_holds(svc.pool, "t1")
    failures = [r for r in caplog.records if getattr(r, "bot_failure", None)]
    assert any("no deal is consistent" in r.bot_failure for r in failures)
    refused = [r.bot_failure for r in failures if not r.bot_failure.startswith("ValueError")]
    assert refused and all(f.startswith("IllegalAction") or "Error" in f for f in refused), refused[:3]
    # Each failed turn played exactly what the table's clock plays for that seat at that point.
    for record in failures[:20]:
        before = fold_rows(Table(), rows[:record.version], svc.seeds.deal_seed)
        expected = game_of(before).auto_play(before.game, record.seat)
        assert f"it played {expected!r}" in record.getMessage()
    assert table.game.phase == "ended" and len(failures) >= 10
