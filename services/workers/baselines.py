"""What the live path is measured against, in the same run: the database's batch appends with nothing
around them, and the engine with its bots in memory with nothing around it.

``append_rate``: events/s appended by the store's append function called straight from asyncpg, ``batch``
events a call (about a deal, what a bot worker appends at once), one stream a call, ``concurrency`` calls
in flight (in the schema of ``pool``: give it a scratch one).

``in_memory_rate``: events/s of whole all-bot games played by the rules engine and the bots in this process
(one core), each table opened, dealt and played as the table service does it (``domain.table.bot_run``,
each bot choosing from its seat's view), with no store, broker or service around them.
"""

from __future__ import annotations

import asyncio
import hashlib
import time

import asyncpg
import msgspec


async def append_rate(pool: asyncpg.Pool, events: int, batch: int = 40, concurrency: int = 4) -> float:
    from services.eventstore import NewEvent, append

    payload = {"seat": 1, "card": "QH", "n": 0}
    batches = [[NewEvent(event_type="card_played", data=payload) for _ in range(batch)]
               for _ in range(max(1, events // batch))]
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int, b: list) -> None:
        async with sem:
            await append(pool, f"raw-{i}", 0, b)

    t = time.perf_counter()
    await asyncio.gather(*(one(i, b) for i, b in enumerate(batches)))
    return sum(map(len, batches)) / (time.perf_counter() - t)


def in_memory_rate(seconds: float = 5.0, level: str = "normal", target: int = 152, seed: str = "baseline"
                   ) -> tuple[float, float]:
    """(events/s, bot actions/s) of this process's CPU over about ``seconds`` of whole games (at least one)."""
    from domain import table as table_rules
    from domain.baloot.profiles import SAUDI
    from domain import games as registry
    from domain.table import TableOpened, TableState

    profile = msgspec.structs.replace(SAUDI, target=target)
    events = actions = games = 0
    start = time.process_time()
    while not games or time.process_time() - start < seconds:
        def seed_of(n: int, g: int = games) -> str:
            return hashlib.sha256(f"{seed}/{g}/{n}".encode()).hexdigest()[:32]

        opened = TableOpened(table_id=f"memory-{games}", seats=("a", "b", "c", "d"), profile=profile,
                             bots=(level,) * 4)
        game = registry.get(opened.game)
        table = TableState()
        for e in [opened, *game.open(4, games % 4, profile, seed_of, opened.table_mode)]:
            table = table_rules.evolve(table, e)
            events += 1
        choose = game.choose_from
        while True:
            turns, table = table_rules.bot_run(table, choose, seed_of)
            if not turns:
                break
            events += sum(len(t.events) for t in turns)
            actions += len(turns)
        games += 1
    cpu = time.process_time() - start
    return events / cpu, actions / cpu
