"""The fair-play analyser: values the card choices of each deal the projection queued (``fairplay_deals``,
'pending'), from the table's events (its cards re-derived from the seeds, as every replay does) and a seed
derived from the deal and ``BALOOT_FAIRPLAY_SEED``, so that the same log always gives the same decisions.

The analysis is CPU work (seconds a deal: the exact values of the bids cost the most, domain/baloot/fairplay.py;
``kinds``, ``BALOOT_FAIRPLAY_KINDS``, e.g. "card", leaves the bids and doubles out where the hardware is short),
so it runs in processes of its own (``processes``, ``BALOOT_FAIRPLAY_PROCESSES``, default 1), never on the event loop the
bots and the API share. Any number of analysers may run, in any worker processes: each claims a few deals for
a lease (``FOR UPDATE SKIP LOCKED``, in a short transaction), analyses them outside any transaction and stores
what they give in another, so a deal is analysed by one at a time, and an analyser killed mid-deal leaves it
to the next once its lease has run out.

The same processes compute each deal's review values (domain/baloot/viewvalues.py: every card, bid and double
valued from its chooser's view, the hidden cards sampled and each sample solved exactly), 20 to 40 s of CPU a
deal at 8 samples (``BALOOT_REVIEW_SAMPLES``): at once for a deal whose review a player asked for (``requested_at``, before everything else),
and, with nothing else to do (``BALOOT_REVIEW_BACKFILL``, on by default), for every analysed deal with a person
in a seat; ``reviewed`` marks them and ``review_seats`` sums them for the players' accuracy.

Each decision is stored with who made it (``by``: the metadata role of the event, "player" for a person,
"bot" for a bot's seat, "clock" for a card the turn clock played) and the stream version of the card, for the
replay link; the reports judge a person on his own decisions only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os

import asyncpg
import msgspec

from domain.baloot.fairplay import Decision
from domain.baloot.review import phase_counts, review
from domain.baloot.events import BidMade
from domain.baloot.viewvalues import view_call_values, view_values
from domain import games
from services.eventstore.listen import woken_by, woken_within
from services.eventstore.store import read_stream
from services.fairplay.projection import CHANNEL
from services.tables import SecretMismatch, TableService, deal_rows, deal_spans, stream_of

log = logging.getLogger("baloot.fairplay")

ANALYSED = "baloot_fairplay_analysed"      # NOTIFY'd with each batch analysed (for status and tests)

SEED_ENV = "BALOOT_FAIRPLAY_SEED"
PROCESSES_ENV = "BALOOT_FAIRPLAY_PROCESSES"
KINDS_ENV = "BALOOT_FAIRPLAY_KINDS"          # comma-separated: "card", "bid", "double" (default: all three)
KINDS = ("card", "bid", "double")
SAMPLES = 16                     # deals of the hidden cards per decision (bench/fairplay.py measures with it)
REVIEW_SAMPLES = 8               # the review's: each sample solved exactly (bench/viewvalues.py: cards 6 s a deal,
                                 # bids and doubles 30 s)
REVIEW_SAMPLES_ENV = "BALOOT_REVIEW_SAMPLES"
BACKFILL_ENV = "BALOOT_REVIEW_BACKFILL"    # "0": reviews computed only when asked for
BATCH = 8                        # deals claimed at a time
LEASE = 300.0                    # seconds a claim lasts: an analyser killed mid-batch leaves its deals to the next
_CLAIM = ("UPDATE fairplay_deals SET claimed_until = now() + make_interval(secs => $2) WHERE (table_id, deal_no) IN "
          "(SELECT table_id, deal_no FROM fairplay_deals WHERE status = 'pending' AND (claimed_until IS NULL OR "
          "claimed_until < now()) {} LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING table_id, deal_no, game")
# A deal whose review someone asked for first (services/review.py), the oldest request first; then the queue.
_CLAIM_ASKED = _CLAIM.format("AND requested_at IS NOT NULL ORDER BY requested_at")
_CLAIM_QUEUED = _CLAIM.format("ORDER BY table_id, deal_no")
# The deals analysed whose review values are not computed yet (``reviewed`` false): asked for first; when idle,
# any with a person in a seat (a table of bots alone is reviewed only when asked).
_CLAIM_REVIEW = ("UPDATE fairplay_deals d SET claimed_until = now() + make_interval(secs => $2) WHERE (d.table_id, "
                 "d.deal_no) IN (SELECT f.table_id, f.deal_no FROM fairplay_deals f JOIN fairplay_tables t USING "
                 "(table_id) WHERE f.status = 'done' AND NOT f.reviewed AND (f.claimed_until IS NULL OR "
                 "f.claimed_until < now()) {} LIMIT $1 FOR UPDATE OF f SKIP LOCKED) "
                 "RETURNING d.table_id, d.deal_no, d.game, d.decisions")
_CLAIM_REVIEW_ASKED = _CLAIM_REVIEW.format("AND f.requested_at IS NOT NULL ORDER BY f.requested_at")
_CLAIM_REVIEW_IDLE = _CLAIM_REVIEW.format("AND '' = ANY(t.bots) ORDER BY f.table_id, f.deal_no")


class StoredDecision(msgspec.Struct, frozen=True):
    version: int                 # the card's stream version (the replay: /watch/table.html?id=…&at=version)
    by: str                      # "player", "bot" or "clock"
    decision: Decision


def analyse_span(game: str, events: list, versions: list[int], roles: dict[int, str], seed: int, samples: int,
                 kinds: tuple[str, ...] = KINDS) -> list[StoredDecision]:
    """One deal's decisions of ``kinds`` by its game's analysis (its events from ``deal_started``, each event's
    stream version), each with who made it. Runs in the analyser's processes."""
    return [StoredDecision(versions[d.index], roles.get(versions[d.index], "player"), d)
            for d in games.get(game).info.fair_play(events, seed=seed, samples=samples, kinds=kinds)]


def seat_counts(decisions: list[StoredDecision]) -> list[tuple[int, str, int, int, int, int, int, int, int]]:
    """(seat, by, decisions, telling cards, followed true, partner-telling, followed partner, telling bids and
    doubles, followed true) for each seat and chooser."""
    counts: dict[tuple[int, str], list[int]] = {}
    for s in decisions:
        d = s.decision
        c = counts.setdefault((d.seat, s.by), [0] * 7)
        card = d.kind == "card"
        for i, x in enumerate((True, card and d.telling, card and d.followed_true, d.partner_telling,
                               d.followed_partner, not card and d.telling, not card and d.followed_true)):
            c[i] += x
    return [(seat, by, *c) for (seat, by), c in sorted(counts.items())]


def review_values(events, seed: int, samples: int, kinds: tuple[str, ...] = KINDS) -> dict[int, tuple[float, ...]]:
    """A deal's review values, by the index of each choice's event: its cards' (``view_values``) and its bids'
    and doubles' (``view_call_values``), of the kinds the analysis values. Runs in the analyser's processes."""
    values = view_values(events, seed, samples) if "card" in kinds else {}
    if "bid" in kinds or "double" in kinds:
        calls = view_call_values(events, seed, samples)
        values |= {i: v for i, v in calls.items() if ("bid" if isinstance(events[i], BidMade) else "double") in kinds}
    return values


async def _store_review(conn, deals) -> None:
    """The reviews of ``deals`` (table id, deal no, the deal's events or None where they could not be read, its
    stored decisions or None where it failed, its review values or None where they were not computed): the
    values, ``reviewed``, the request cleared, and the rows a player's accuracy sums (``review_seats``)."""
    rows, done = [], []
    for table_id, deal_no, events, stored, values in deals:
        if values is None:
            continue
        done.append((table_id, deal_no, msgspec.json.encode({str(k): v for k, v in values.items()}).decode()))
        if events and stored:
            reviewed_ = review(events, [s.decision for s in stored], [s.by for s in stored], values)
            rows += [(table_id, deal_no, *c) for c in phase_counts(reviewed_)]
    await conn.executemany("UPDATE fairplay_deals SET view_values = $3::jsonb, reviewed = true, requested_at = NULL, "
                           "claimed_until = NULL WHERE table_id = $1 AND deal_no = $2", done)
    await conn.executemany("DELETE FROM review_requests WHERE table_id = $1 AND deal_no = $2",
                           [(t, n) for t, n, _ in done])
    await conn.executemany(
        "INSERT INTO review_seats (table_id, deal_no, seat, by, phase, player, shared, analysed_at, decisions, cost, "
        "inaccuracies, mistakes, blunders) SELECT table_id, deal_no, $3, $4, $5, seats[$3 + 1], shared, analysed_at, "
        "$6, $7, $8, $9, $10 FROM "
        "fairplay_deals WHERE table_id = $1 AND deal_no = $2 ON CONFLICT DO NOTHING", rows)


async def _answer(result):
    return result


def spawn_context():
    # A fresh interpreter for the analysis processes: the worker's threads and event loop are not forked.
    return multiprocessing.get_context("spawn")


class FairPlayAnalyser:
    def __init__(self, pool: asyncpg.Pool, tables: TableService, *, seed: int | None = None,
                 samples: int = SAMPLES, processes: int | None = None, batch: int = BATCH, poll: float = 5.0,
                 kinds: tuple[str, ...] | None = None, backfill: bool | None = None,
                 review_samples: int | None = None):
        self.pool, self.tables, self.samples, self.batch, self.poll = pool, tables, samples, batch, poll
        self.backfill = os.environ.get(BACKFILL_ENV, "1").strip() != "0" if backfill is None else backfill
        self.review_samples = (int(os.environ.get(REVIEW_SAMPLES_ENV, str(REVIEW_SAMPLES))) if review_samples is None
                               else review_samples)
        self.seed = int(os.environ.get(SEED_ENV, "0")) if seed is None else seed
        if kinds is None:
            kinds = tuple(k.strip() for k in os.environ.get(KINDS_ENV, ",".join(KINDS)).split(",") if k.strip())
        if not kinds or set(kinds) - set(KINDS):
            raise ValueError(f"{KINDS_ENV}: some of {', '.join(KINDS)}, not {kinds!r}")
        self.kinds = kinds
        n = int(os.environ.get(PROCESSES_ENV, "1")) if processes is None else processes
        self.executor = concurrent.futures.ProcessPoolExecutor(max(1, n), mp_context=spawn_context())

    async def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def run_once(self) -> int:
        """One batch of the queue's work, the most wanted first: deals whose review was asked for (analysed and
        reviewed), then deals analysed before whose review was asked for (reviewed), then the queue (analysed),
        then, with nothing else to do and ``backfill`` on, deals with a person in a seat (reviewed); how many
        deals were done (0: nothing to do). Deals are claimed for ``LEASE`` in one short transaction and their
        results stored in another: no transaction stays open while the analysis computes (an open one holds
        back every reader of the log, the live feeds included)."""
        done = await self._analyse(await self.pool.fetch(_CLAIM_ASKED, self.batch, LEASE), review=True)
        done += await self._review(await self.pool.fetch(_CLAIM_REVIEW_ASKED, self.batch, LEASE))
        if done:
            return done
        done = await self._analyse(await self.pool.fetch(_CLAIM_QUEUED, self.batch, LEASE), review=False)
        if done or not self.backfill:
            return done
        return await self._review(await self.pool.fetch(_CLAIM_REVIEW_IDLE, self.batch, LEASE))

    async def _analyse(self, rows, review: bool) -> int:
        """Analyse the claimed deals ``rows`` (and compute their review values with ``review``)."""
        if not rows:
            return 0
        rows = sorted(rows, key=lambda r: (r["table_id"], r["deal_no"]))
        tables: dict[str, tuple[list, dict[int, str]]] = {}
        prepared = [await self._prepare(r["game"], r["table_id"], r["deal_no"], tables) for r in rows]
        results = await asyncio.gather(*(self._compute(*job, review=review) if job else _answer((*failed, None))
                                         for job, failed in prepared))
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.executemany(
                "UPDATE fairplay_deals SET status = $3, decisions = $4::jsonb, error = $5, analysed_at = now(), "
                "claimed_until = NULL WHERE table_id = $1 AND deal_no = $2 AND status = 'pending'",
                [(r["table_id"], r["deal_no"], status, None if d is None else msgspec.json.encode(d).decode(), error)
                 for r, (status, d, error, _) in zip(rows, results)])
            await _store_review(conn, [(r["table_id"], r["deal_no"], job[1] if job else None, d, values)
                                       for r, (job, _), (_, d, _, values) in zip(rows, prepared, results)])
            await conn.executemany(
                "INSERT INTO fairplay_seats (table_id, deal_no, seat, by, player, championship_id, shared, decisions, "
                "telling, followed, partner_telling, followed_partner, bid_telling, bid_followed) SELECT table_id, "
                "deal_no, $3, $4, seats[$3 + 1], championship_id, shared, $5, $6, $7, $8, $9, $10, $11 "
                "FROM fairplay_deals WHERE table_id = $1 AND deal_no = $2 ON CONFLICT DO NOTHING",
                [(r["table_id"], r["deal_no"], *c) for r, (_, d, _, _) in zip(rows, results) for c in seat_counts(d or [])])
            await conn.execute("SELECT pg_notify($1, $2)", ANALYSED, str(len(rows)))
        return len(rows)

    async def _review(self, rows) -> int:
        """Compute the review values of the claimed deals ``rows`` (analysed before) and store their reviews."""
        if not rows:
            return 0
        tables: dict[str, tuple[list, dict[int, str]]] = {}
        prepared = [(await self._prepare(r["game"], r["table_id"], r["deal_no"], tables))[0] for r in rows]
        values = await asyncio.gather(*(self._values(job[1], job[4], job[5]) if job else _answer({})
                                        for job in prepared))
        jobs = [(r["table_id"], r["deal_no"], job[1] if job else None,
                 msgspec.json.decode(r["decisions"], type=list[StoredDecision]) if r["decisions"] else [], v)
                for r, job, v in zip(rows, prepared, values)]
        async with self.pool.acquire() as conn, conn.transaction():
            await _store_review(conn, jobs)
            await conn.execute("SELECT pg_notify($1, $2)", ANALYSED, str(len(rows)))
        return len(rows)

    async def _values(self, events, table_id: str, deal_no: int) -> dict[int, tuple[float, ...]]:
        """The review's values of a deal's choices (sampled and solved), in the analysis' processes; none for
        events the analysis cannot follow (logged: the deal is marked reviewed, with nothing to show)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.executor, review_values, events, self.seed, self.review_samples, self.kinds)
        except (ValueError, LookupError) as exc:
            log.warning("fairplay: table %s deal %s not reviewed: %s", table_id, deal_no, exc)
            return {}

    async def _prepare(self, game: str, table_id: str, deal_no: int, tables: dict[str, tuple[list, dict[int, str]]]):
        """What the analysis of a deal takes (its events, their versions, who chose each; each table's events
        and roles read once per batch), or why it cannot be analysed: (job, None) or (None, failure)."""
        try:
            if table_id not in tables:
                tables[table_id] = (await self.tables.events(table_id), await self._roles(table_id))
            events, roles = tables[table_id]
            spans = deal_spans(events)
            if not 1 <= deal_no <= len(spans):
                raise LookupError(f"the table has {len(spans)} deal(s), not {deal_no}")
            rows = [(v, e) for v, _, e in deal_rows(events, spans[deal_no - 1][2])]
        except (ValueError, LookupError, SecretMismatch) as exc:
            return None, self._failed(table_id, deal_no, exc)
        return (game, [e for _, e in rows], [v for v, _ in rows], roles, table_id, deal_no), None

    async def _compute(self, game, events, versions, roles, table_id, deal_no, review: bool = False):
        try:
            decisions = await asyncio.get_running_loop().run_in_executor(
                self.executor, analyse_span, game, events, versions, roles, self.seed,
                self.samples, self.kinds)
            values = await self._values(events, table_id, deal_no) if review else None
        except (ValueError, LookupError) as exc:        # events the analysis cannot follow: named, not retried
            return (*self._failed(table_id, deal_no, exc), None)
        return "done", decisions, None, values

    @staticmethod
    def _failed(table_id: str, deal_no: int, exc: Exception) -> tuple[str, None, str]:
        log.warning("fairplay: table %s deal %s not analysed: %s", table_id, deal_no, exc)
        return "failed", None, str(exc)

    async def _roles(self, table_id: str) -> dict[int, str]:
        """Who stored each event of the table (its metadata role), by version."""
        rows = await read_stream(self.pool, stream_of(table_id))
        return {r.version: r.metadata.get("role", "player") for r in rows}

    async def run(self) -> None:
        """Analyse until cancelled, woken by the projection's notifications (and every ``poll`` seconds)."""
        async with self.pool.acquire() as conn, woken_by(conn, CHANNEL) as woken:
            while True:
                woken.clear()
                if not await self.run_once():
                    await woken_within(woken, self.poll)
