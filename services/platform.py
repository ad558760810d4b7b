"""The composition root: the application layer of one process, built in one place.

Every door builds its services here — the API's lifespan, each worker event loop's runtime, the rehearsal,
``baloot status`` and the tests — so that each service is given what it works with when it is made, in
order, and nothing is wired afterwards. The one circle (a table's append may move its championship on, whose
next round opens tables) is closed inside the flow, which makes the table, championship and daily services
and the access policy it reaches (``services/flow.py``).
"""

from __future__ import annotations

import asyncpg

from services.accounts import Accounts
from services.anchor import Signer
from services.eventstore.listen import Listener
from services.flow import Flow, WorkQueue
from services.lobby import LobbyService
from services.secret import server_secret
from services.tables.feeds import TableFeeds
from services.tables.seeds import Seeds


class Platform:
    """``secret``: the server secret (``services.secret``); ``signer`` signs receipts; ``work`` queues the
    workers' part of what follows an append (None: nothing is queued, the reconciler finds it);
    ``listener`` lets live streams follow tables (the API's); ``daily`` the daily deal's options; ``hasher``
    the accounts' password hasher (argon2-cffi's ``PasswordHasher``; default: RFC 9106's parameters)."""

    def __init__(self, pool: asyncpg.Pool, secret: bytes, *, signer: Signer | None = None,
                 work: WorkQueue | None = None, listener: Listener | None = None, daily: dict | None = None,
                 cache_size: int = 4096, hasher=None):
        self.pool = pool
        self.seeds = Seeds(secret)
        self.feeds = TableFeeds(pool, self.seeds, listener, cache_size)
        self.flow = Flow(pool, self.seeds, self.feeds, work=work, signer=signer, daily=daily)
        self.tables, self.championships = self.flow.tables, self.flow.championships
        self.daily, self.access = self.flow.daily, self.flow.access
        self.accounts = Accounts(pool, hasher)
        self.lobby = LobbyService(self.tables, self.championships)

    @classmethod
    async def on(cls, pool: asyncpg.Pool, *, secret: bytes | None = None, **options) -> Platform:
        """The platform on ``pool``, with the configured server secret unless ``secret`` is given."""
        return cls(pool, secret if secret is not None else await server_secret(pool), **options)
