"""The next round's pairings of a championship, known and not started yet: round 1's once the draw is made
(the draw is public), a later round's once the last one is decided; none otherwise. A Swiss round's pairing is
a matching over the whole field: worked out once per stored version, off the event loop, however often the
console and its spectators ask (a version's pairings never change)."""

from __future__ import annotations

import asyncio
import weakref

from domain.tournament.formats import waiting_round
from domain.tournament.state import ChampionshipState

KEPT = 64                 # versions whose pairings a championship service keeps

# By championship service (one per app and database), then by (championship, version).
_PAIRINGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def next_pairings(championships, championship_id: str) -> tuple[ChampionshipState, tuple | None]:
    """The championship's state and its next round's pairings: (round number, matches), or None."""
    champ = await championships.load(championship_id)
    known = _PAIRINGS.setdefault(championships, {})
    key = (championship_id, champ.version)
    if key not in known:
        known[key] = await asyncio.to_thread(waiting_round, champ.state)
        while len(known) > KEPT:
            known.pop(next(iter(known)))
    return champ.state, known[key]
