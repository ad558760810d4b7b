"""The chaos rehearsal's driver (deploy/chaos starts the stack, then runs this on the host).

A championship of ``--teams`` teams is run twice on the stack of deploy/compose.yml, through HAProxy and the
workers only: once without faults (the baseline, skipped with ``--no-baseline``), then under a fault schedule
drawn from ``--seed`` and printed, a fault every ``--every`` seconds for as long as the event lasts. Most teams
are bots (played by the workers at full speed); ``--humans`` teams are two scripted human clients each,
playing their tables through HAProxy as a person's browser would (the lobby, the table's view, a command with
its command id), under the championship's turn clock. The clients keep every answer they are given: each
acknowledged command and each receipt.

The faults (``KINDS``): ``kill -9`` of an API replica or a worker (and of a worker as a round starts), SIGTERM
of either (a drain), RabbitMQ stopped and started (once with its queues purged), PostgreSQL's primary
restarted, worker2's database connections slowed and then cut (a TCP proxy of this driver's is between them),
the webhook receiver down for a stretch, and once a failover: the primary killed, the standby promoted by this
driver (the operator's part: ``pg_promote()``), the commits no longer waiting for a standby until the old
primary, emptied, has joined again as the new primary's standby.

At the end (faults stopped, every table done, the workers stopped), every check (``Chaos.checks``); any failure
exits 1. The figures are printed, and with ``--markdown FILE`` written as the table of deploy/SCALING.md.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import datetime as dt
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
from standardwebhooks.webhooks import Webhook

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api import choose  # noqa: E402  (the benchmark's player: a legal action, mostly plausible)
from bench.lean_http import HttpError, Pool  # noqa: E402
from services.eventstore import rebuild_projection  # noqa: E402
from services.fairplay.projection import fairplay_read_model  # noqa: E402
from services.webhooks.outbox import webhooks_read_model  # noqa: E402
from services.workers.rehearsal import Rehearsal  # noqa: E402

LB = "http://127.0.0.1:21880"
NODES = {"postgres": 21432, "postgres2": 21433}          # the two PostgreSQL containers' services and ports
PROXIES = {21442: 21432, 21443: 21433}                   # worker2's way to each node (WORKER2_DATABASE_URL)
DATABASE_URL = ("postgresql://postgres@127.0.0.1:21432,127.0.0.1:21433/baloot"
                "?target_session_attrs=read-write")
RECEIVER_PORT = 21890
PROJECT = "baloot"
APPS = ("api1", "api2", "worker1", "worker2", "haproxy")
DEADLINE = 30.0          # seconds a client waits for an answer before it counts the request as hung
STALL = 180.0            # seconds without a new event, outside a fault, before the run is called stalled
RUN_TAG = os.urandom(3).hex()


def say(text: str) -> None:
    print(f"chaos: {text}", flush=True)


def container(service: str) -> str:
    return f"{PROJECT}_{service}_1"


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), check=check, capture_output=True, text=True)


async def podman(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return await asyncio.to_thread(run, "podman", *args, check=check)


async def compose(*args: str) -> None:
    await asyncio.to_thread(run, *shlex.split(os.environ["CHAOS_COMPOSE"]), *args)


def pctl(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


# ---------------------------------------------------------------- a TCP proxy: latency, then a cut


class Proxy:
    """Between worker2 and one database node: passes bytes through, or late (``latency`` seconds a chunk), or
    not at all (``cut``: every open connection aborted, new ones aborted as they come)."""

    def __init__(self, listen: int, target: int):
        self.listen, self.target = listen, target
        self.latency = 0.0
        self.is_cut = False
        self.pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", self.listen)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.is_cut:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        pair = (writer, up_writer)
        self.pairs.add(pair)
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer),
                                 return_exceptions=True)
        finally:
            self.pairs.discard(pair)
            for w in pair:
                w.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # Whichever way a side ends (a close, or a reset: a worker killed with -9), the other is ended too. (Only
        # on a close, as first written, a killed worker's server session stayed open "idle in transaction",
        # holding its projection's lock: a partition the fault did not mean to make.)
        try:
            while data := await reader.read(65536):
                if self.latency:
                    await asyncio.sleep(self.latency)
                writer.write(data)
                await writer.drain()
        finally:
            writer.transport.abort()

    def cut(self) -> None:
        self.is_cut = True
        for pair in list(self.pairs):
            for w in pair:
                w.transport.abort()

    def restore(self) -> None:
        self.is_cut, self.latency = False, 0.0


# ---------------------------------------------------------------- the organiser's webhook receiver


class Receiver:
    """A bare HTTP server that takes the organiser's webhooks: each signature verified (Standard Webhooks), each
    ``webhook-id`` handled once (a repeat is answered 2xx and counted, as a receiver drops ids it has seen),
    in the order received per championship. ``down()`` closes it (connections refused) until ``up()``."""

    def __init__(self, port: int):
        self.port = port
        self.secret: str | None = None
        self.handled: dict[str, list[tuple[str, int]]] = collections.defaultdict(list)   # championship -> (id, seq)
        self.seen: set[str] = set()
        self.repeats = 0
        self.bad_signatures = 0
        self.server: asyncio.Server | None = None
        self.open: set[asyncio.StreamWriter] = set()

    async def up(self) -> None:
        if self.server is None:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def down(self) -> None:
        if self.server is not None:
            self.server.close()
            for w in list(self.open):
                w.transport.abort()
            await self.server.wait_closed()
            self.server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open.add(writer)
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                headers = {}
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = h.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                status = self._take(headers, body)
                writer.write(f"HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n".encode())
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self.open.discard(writer)
            writer.transport.abort()

    def _take(self, headers: dict, body: bytes) -> int:
        try:
            Webhook(self.secret).verify(body, headers)
        except Exception:
            self.bad_signatures += 1
            return 400
        msg_id = headers["webhook-id"]
        if msg_id in self.seen:
            self.repeats += 1
            return 204
        self.seen.add(msg_id)
        data = json.loads(body)["data"]
        self.handled[data["championship_id"]].append((msg_id, data["sequence"]))
        return 204


# ---------------------------------------------------------------- what the clients saw


@dataclass
class Seen:
    """Every answer the scripted human clients were given, by the fault in force when it came."""

    acked: list[tuple[str, str, str, int]] = field(default_factory=list)   # (table, command id, user, version)
    receipts: list[dict] = field(default_factory=list)
    replayed: int = 0                        # commands answered with their stored outcome (a retry's)
    refused: collections.Counter = field(default_factory=collections.Counter)      # (fault, rule) 503s
    cut: collections.Counter = field(default_factory=collections.Counter)          # fault -> transport errors
    problems: collections.Counter = field(default_factory=collections.Counter)     # 4xx rules the client acted on
    bad: list[str] = field(default_factory=list)                                   # nothing a client can act on
    hung: list[str] = field(default_factory=list)                                  # past DEADLINE
    actions: int = 0
    fault: str = "none"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)


class Client:
    """One scripted person: the lobby, then each live table of hers played to its end. Her requests go through
    HAProxy on the benchmark's lean connections (``bench/lean_http.py``: a hundred people's polling costs
    the driver little of the machine it shares with the stack)."""

    def __init__(self, pool: Pool, user_id: str, token: str, seen: Seen, rng: random.Random,
                 think: tuple[float, float], poll: float):
        self.pool, self.user_id, self.seen, self.rng, self.think, self.poll = pool, user_id, seen, rng, think, poll
        self.headers = {"authorization": f"Bearer {token}"}
        self.n = 0

    async def call(self, method: str, path: str, body: dict | None = None) -> Answer:
        """The request until it gets an answer a person's page acts on: 2xx, or a 4xx problem document. A 503
        problem document with Retry-After is waited out and the same request sent again (a command keeps its
        command id); so is a connection cut in flight. Anything else is noted as a failure and retried."""
        data = b"" if body is None else json.dumps(body).encode()
        while True:
            fault = self.seen.fault
            try:
                r = Answer(*await asyncio.wait_for(self.pool.exchange(method, path, self.headers, data), DEADLINE))
            except asyncio.TimeoutError:
                self.seen.hung.append(f"{fault}: {method} {path}")
                continue
            except (HttpError, OSError):
                self.seen.cut[fault] += 1
                await asyncio.sleep(0.5)
                continue
            problem = r.headers.get("content-type", "").startswith("application/problem+json")
            if r.status < 400:
                return r
            if r.status == 503 and problem and r.headers.get("retry-after"):
                self.seen.refused[(fault, r.json().get("rule"))] += 1
                await asyncio.sleep(min(float(r.headers["retry-after"]), 3.0) * self.rng.uniform(0.5, 1.0))
                continue
            if 400 <= r.status < 500 and problem:
                self.seen.problems[r.json().get("rule")] += 1
                return r
            self.seen.bad.append(f"{fault}: {method} {path} -> {r.status} {r.headers.get('content-type')} "
                                 f"{r.body[:160]!r}")
            await asyncio.sleep(1.0)

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            lobby = (await self.call("GET", "/me/lobby")).json()
            live = [t["table_id"] for t in lobby.get("live", [])]
            for table_id in live:
                await self.play_table(table_id, stop)
            if not live:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), 2.0)

    async def play_table(self, table_id: str, stop: asyncio.Event) -> None:
        while not stop.is_set():
            r = await self.call("GET", f"/tables/{table_id}/view")
            if r.status >= 400:
                return
            view = r.json()
            deal = view.get("deal") or {}
            if view.get("phase") == "ended" or view.get("status") == "finished":
                return
            legal = deal.get("legal_actions") or []
            if deal.get("turn") != view.get("seat") or not legal:
                await asyncio.sleep(self.poll)
                continue
            await asyncio.sleep(self.rng.uniform(*self.think))
            self.n += 1
            command_id = f"{self.user_id}-{self.n}"
            r = await self.call("POST", f"/tables/{table_id}/commands",
                                {"command_id": command_id, "action": choose(legal, self.rng)})
            if r.status == 200:
                done = r.json()
                self.seen.actions += 1
                self.seen.replayed += bool(done.get("replayed"))
                self.seen.acked.append((table_id, command_id, self.user_id, done["version"]))
                self.seen.receipts.extend(done.get("receipts") or [])


# ---------------------------------------------------------------- the championship through the API


class Organiser:
    def __init__(self, http: httpx.AsyncClient):
        self.http = http

    async def ok(self, method: str, path: str, headers: dict | None = None, expect: int = 200, **kw) -> dict:
        for _ in range(60):        # set-up runs before any fault; a replica still warming up is waited for
            try:
                r = await self.http.request(method, path, headers=headers, **kw)
            except httpx.TransportError:
                await asyncio.sleep(1)
                continue
            if r.status_code == 503:
                await asyncio.sleep(1)
                continue
            if r.status_code != expect:
                raise SystemExit(f"chaos: FAILED: {method} {path} -> {r.status_code} {r.text[:300]}")
            return r.json()
        raise SystemExit(f"chaos: FAILED: {method} {path} never answered")

    async def user(self, name: str) -> tuple[str, str]:
        body = await self.ok("POST", "/users", json={"name": f"{name} {RUN_TAG}"}, expect=201)
        return body["user_id"], body["token"]


@dataclass
class Event:
    """One championship run: its id, its human clients' users, when it started and ended."""

    cid: str
    humans: list[tuple[str, str]]
    started: float = 0.0            # round 1's start (the clock's reading)
    ended: float = 0.0


async def make_championship(org: Organiser, auth: dict, name: str, args, receiver: Receiver | None) -> Event:
    # Round 1 once every team is registered (the people's teams one by one, the bots' in one import).
    start_after = args.start_after if args.start_after is not None else 15.0 + args.humans * 0.2
    starts_at = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=start_after)
    start = time.monotonic() + start_after
    body = await org.ok("POST", "/championships", auth, expect=201, json={
        "command_id": "create-" + name.replace(" ", "-"), "name": name, "bot_level": "easy", "game_target": args.target,
        "turn_seconds": args.turn_seconds, "bot_pace_seconds": args.bot_pace, "on_timeout": "auto_play",
        "schedule": [{"round": 1, "starts_at": starts_at.isoformat()}]})
    cid = body["championship_id"]
    if receiver is not None:
        hook = await org.ok("POST", "/webhooks", auth, expect=201, json={
            "url": f"http://127.0.0.1:{RECEIVER_PORT}/hook", "championship_id": cid})
        receiver.secret = hook["secret"]
    humans: list[tuple[str, str]] = []
    sem = asyncio.Semaphore(16)

    async def team(k: int) -> None:                  # a team of two people, who play through the clients
        async with sem:
            pair = [await org.user(f"{name} player {k}-{p}") for p in (1, 2)]
            humans.extend(pair)
            players = [u for u, _ in pair]
            await org.ok("POST", f"/championships/{cid}/teams", auth, expect=201,
                         json={"command_id": f"team-{k}", "team_id": f"T{k:05d}", "players": players})

    await asyncio.gather(*(team(k) for k in range(args.humans)))
    # The bot teams in one file, one append (``importTeams``): 10,240 registrations in seconds.
    rows = "\n".join(f"T{k:05d},T{k:05d},bot,bot" for k in range(args.humans, args.teams))
    await org.ok("POST", f"/championships/{cid}/teams/import", {**auth, "content-type": "text/csv"}, expect=201,
                 params={"command_id": "import-bots"}, content=f"team_id,team,player_1,player_2\n{rows}\n")
    if time.monotonic() > start:
        raise SystemExit(f"chaos: FAILED: registering {args.teams} teams took past round 1's start: give a "
                         f"--start-after above {start_after:g} s")
    say(f"{name}: championship {cid}, {args.teams} teams ({args.humans} of two scripted people), round 1 at "
        f"{starts_at:%H:%M:%S}, turn clock {args.turn_seconds:g} s, bot pace {args.bot_pace:g} s, game target "
        f"{args.target}")
    return Event(cid, humans, start)


# ---------------------------------------------------------------- the faults


KINDS = {  # kind: weight in the schedule
    "kill -9 API replica": 3, "kill -9 worker": 3, "SIGTERM API replica": 2, "SIGTERM worker": 2,
    "RabbitMQ restart": 2, "PostgreSQL restart": 2, "worker2-database latency then cut": 2,
    "webhook receiver down": 1,
}
ROUND_START = "kill -9 worker as a round starts"
PURGE = "RabbitMQ restart with its queues purged"
FAILOVER = "PostgreSQL failover"


@dataclass
class Fault:
    kind: str
    target: str
    at: float                       # seconds into the chaos run
    held: float = 0.0               # seconds the fault was in force
    recovered: float | None = None  # seconds until a new event was stored: from a kill or a drain's signal
                                    # (play goes on through the other instances), from a held fault's end


class Chaos:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.faults: list[Fault] = []
        self.primary = "postgres"
        self.proxies = [Proxy(listen, target) for listen, target in PROXIES.items()]
        self.receiver = Receiver(RECEIVER_PORT)
        self.seen = Seen()
        self.pool: asyncpg.Pool | None = None
        self.t0 = 0.0
        self.rounds_seen = 0
        self.round_started = asyncio.Event()
        self.over = asyncio.Event()               # the championship under way has its champion
        self.lost: int | str = "not checked"       # acknowledged commands missing from the log
        self.background: list[asyncio.Task] = []   # recoveries watched, the receiver's outage
        self.rejoin: asyncio.Task | None = None    # the old primary made the new one's standby, after a failover

    # ------------------------------------------------------------ watching the log

    async def head(self) -> int | None:
        try:
            return await asyncio.wait_for(self.pool.fetchval("SELECT coalesce(max(position), 0) FROM events"), 5)
        except Exception:          # the database away (a fault): no reading now
            return None

    async def moved_since(self, since: float, timeout: float = 300.0) -> float | None:
        """Seconds from ``since`` until an event is stored after this call began; None if the championship
        ended meanwhile (nothing more to move)."""
        mark = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.over.is_set():
            h = await self.head()
            if h is not None:
                if mark is None:
                    mark = h
                elif h > mark:
                    return time.monotonic() - since
            await asyncio.sleep(0.1)
        if self.over.is_set():
            return None
        raise SystemExit(f"chaos: FAILED: play did not move again within {timeout:.0f} s of the fault's end")

    # ------------------------------------------------------------ the faults themselves

    async def restart(self, service: str, how: str) -> asyncio.Task:
        """Kill (or drain) ``service`` and start it again, as an orchestrator would; the watch of the log begun
        at the kill (play must move on through the other instances, not wait for the restart)."""
        since = time.monotonic()
        if how == "kill":
            await podman("kill", "-s", "KILL", container(service))
            moved = asyncio.create_task(self.moved_since(since))
            await asyncio.sleep(1.0)           # the orchestrator sees the process gone and starts it again
        else:
            moved = asyncio.create_task(self.moved_since(since))
            await podman("stop", "-t", "30", container(service))       # a drain: SIGTERM, then wait
        await podman("start", container(service))
        return moved

    async def strike(self, kind: str) -> Fault:
        rng = self.rng
        fault = Fault(kind, "", time.monotonic() - self.t0)
        self.seen.fault = kind
        moved: asyncio.Task | None = None          # a kill's: the log watched from the kill
        t = time.monotonic()
        if kind in ("kill -9 API replica", "SIGTERM API replica"):
            fault.target = rng.choice(["api1", "api2"])
            moved = await self.restart(fault.target, "kill" if kind.startswith("kill") else "term")
        elif kind in ("kill -9 worker", "SIGTERM worker", ROUND_START):
            fault.target = rng.choice(["worker1", "worker2"])
            moved = await self.restart(fault.target, "kill" if kind.startswith("kill") else "term")
        elif kind in ("RabbitMQ restart", PURGE):
            fault.target = "rabbitmq"
            if kind == PURGE:
                queues = (await podman("exec", container("rabbitmq"), "rabbitmqctl", "-q", "list_queues",
                                       "--no-table-headers", "name", "messages")).stdout.split("\n")
                purged = 0
                for line in filter(None, (q.strip() for q in queues)):
                    name, messages = line.split()
                    await podman("exec", container("rabbitmq"), "rabbitmqctl", "-q", "purge_queue", name)
                    purged += int(messages or 0)
                fault.target = f"rabbitmq ({purged} messages purged)"
            await podman("stop", "-t", "10", container("rabbitmq"))
            await asyncio.sleep(rng.uniform(2, 5))
            await podman("start", container("rabbitmq"))
        elif kind == "PostgreSQL restart":
            fault.target = self.primary
            await podman("stop", "-t", "10", container(self.primary))
            await asyncio.sleep(rng.uniform(1, 3))
            await podman("start", container(self.primary))
        elif kind == "worker2-database latency then cut":
            fault.target = "worker2 <-> PostgreSQL"
            for p in self.proxies:
                p.latency = 0.2
            await asyncio.sleep(rng.uniform(2, 5) * self.args.scale)
            for p in self.proxies:
                p.cut()
            await asyncio.sleep(rng.uniform(2, 5) * self.args.scale)
            for p in self.proxies:
                p.restore()
        elif kind == "webhook receiver down":           # for a stretch, while the schedule goes on
            fault.target = "receiver"
            await self.receiver.down()
            outage = rng.uniform(30, 90) * self.args.scale
            fault.held = outage
            self.background.append(asyncio.create_task(self.receiver_back(outage)))
        elif kind == FAILOVER:
            await self.failover(fault)
        fault.held = fault.held or time.monotonic() - t
        self.seen.fault = "none"
        self.faults.append(fault)
        # How soon play moves again is watched beside the schedule: the next fault is not held back by it.
        self.background.append(asyncio.create_task(self.recovery(
            fault, len(self.faults), moved if moved is not None else self.moved_since(time.monotonic()))))
        return fault

    async def recovery(self, fault: Fault, n: int, moved) -> None:
        fault.recovered = await moved
        after = "the championship ended meanwhile" if fault.recovered is None else \
            f"play moved again {fault.recovered:.2f} s after"
        say(f"fault {n:>3} at {fault.at:7.1f} s: {fault.kind} ({fault.target}), in force {fault.held:.1f} s; {after}")

    async def receiver_back(self, outage: float) -> None:
        await asyncio.sleep(outage)
        await self.receiver.up()

    async def failover(self, fault: Fault) -> None:
        """The primary's machine lost; the standby promoted; the old node emptied and made the new standby."""
        old = self.primary
        new = "postgres2" if old == "postgres" else "postgres"
        fault.target = f"{old} lost, {new} promoted"
        await podman("kill", "-s", "KILL", container(old))
        await asyncio.sleep(2.0)               # the operator's detection (CloudNativePG: its failover delay)
        await self.psql(new, "SELECT pg_promote(true, 60)", "ALTER SYSTEM SET synchronous_standby_names = ''",
                        "SELECT pg_reload_conf()")
        self.primary = new
        # The old node rejoins as a standby in the background; commits wait for it again once it streams.
        self.rejoin = asyncio.create_task(self.rejoin_as_standby(old, new))

    @staticmethod
    async def psql(node: str, *statements: str, check: bool = True) -> str:
        """Each statement on its own (ALTER SYSTEM runs outside a transaction), on ``node``'s server."""
        args = [a for sql in statements for a in ("-c", sql)]
        out = await podman("exec", container(node), "psql", "-Atq", "-h", "127.0.0.1", "-p", str(NODES[node]),
                           "-U", "postgres", *args, check=check)
        return out.stdout.strip()

    async def rejoin_as_standby(self, old: str, new: str) -> None:
        await podman("rm", "-f", container(old))
        await podman("volume", "rm", "-f", f"{PROJECT}_pgdata" + ("" if old == "postgres" else "2"))
        await compose("up", "-d", "--no-deps", old)
        for _ in range(600):
            streaming = await self.psql(new, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'",
                                        check=False)
            if streaming not in ("", "0"):
                break
            await asyncio.sleep(0.5)
        else:
            raise SystemExit(f"chaos: FAILED: {old} did not stream from {new} as its standby")
        await self.psql(new, "ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()")
        say(f"{old} streams again as {new}'s synchronous standby")

    async def schedule(self, stop: asyncio.Event) -> None:
        """The seeded schedule: a fault every ``--every`` seconds until ``stop``; the failover as fault number
        ``--failover-at``, the purge as ``--purge-at``; a worker killed as soon as a new round is paired."""
        low, high = self.args.every
        kinds, weights = list(KINDS), list(KINDS.values())
        last = time.monotonic()
        while not stop.is_set():
            # The next strike ``--every`` seconds after the last one began (not after it ended: a fault that
            # takes long to strike, a restart of RabbitMQ, does not space the schedule out).
            wait = max(0.0, last + self.rng.uniform(low, high) - time.monotonic())
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._next_cue(stop), wait)
            last = time.monotonic()
            if stop.is_set():
                return
            n = len(self.faults) + 1
            if self.round_started.is_set():
                self.round_started.clear()
                kind = ROUND_START
            elif n == self.args.failover_at:
                kind = FAILOVER
            elif n == self.args.purge_at:
                kind = PURGE
            else:
                kind = self.rng.choices(kinds, weights)[0]
                # Not the new primary restarted while the old node copies it: the copy fails, no standby is left,
                # and every commit waits for one (seen at 2,048 teams: play stood still 70 s, then for good).
                while kind == "PostgreSQL restart" and self.rejoin is not None and not self.rejoin.done():
                    kind = self.rng.choices(kinds, weights)[0]
            await self.strike(kind)

    async def _next_cue(self, stop: asyncio.Event) -> None:
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self.round_started.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    # ------------------------------------------------------------ one championship run

    async def play(self, org: Organiser, auth: dict, name: str, faults: bool) -> Event:
        event = await make_championship(org, auth, name, self.args, self.receiver if faults else None)
        http = org.http
        stop = self.over = asyncio.Event()
        rng = random.Random(f"{self.args.seed}/{name}")
        lean = Pool("127.0.0.1", int(LB.rsplit(":", 1)[1]))
        clients = [Client(lean, u, tok, self.seen, random.Random(rng.random()), self.args.think, self.args.poll)
                   for u, tok in event.humans]
        players = [asyncio.create_task(c.play(stop)) for c in clients]
        await asyncio.sleep(event.started - time.monotonic())         # until round 1's start
        scheduler = asyncio.create_task(self.schedule(stop)) if faults else None
        self.t0 = event.started
        last_move, last_head = time.monotonic(), await self.head()
        try:
            while True:
                if scheduler is not None and scheduler.done():
                    scheduler.result()             # the schedule ended early: its error ends the run
                    raise SystemExit("chaos: FAILED: the fault schedule stopped before the champion")
                champ = await self.championship(http, auth, event.cid)
                if champ is not None:
                    if champ["rounds"] > self.rounds_seen:
                        if self.rounds_seen and faults:
                            self.round_started.set()
                        self.rounds_seen = champ["rounds"]
                    if champ["status"] == "finished":
                        break
                h = await self.head()
                if h is not None and h != last_head:
                    last_move, last_head = time.monotonic(), h
                elif self.seen.fault == "none" and time.monotonic() - last_move > STALL:
                    raise SystemExit(f"chaos: FAILED: {name}: no event stored for {STALL:.0f} s (stalled)")
                await asyncio.sleep(1.0)
            event.ended = time.monotonic()
        finally:
            stop.set()
            if scheduler is not None:
                await scheduler
            await asyncio.gather(*self.background)
            await asyncio.gather(*players)
            lean.close()
        self.rounds_seen = 0
        say(f"{name}: champion {champ['champion']} after {event.ended - event.started:.1f} s, {champ['rounds']} "
            f"rounds")
        return event

    async def championship(self, http: httpx.AsyncClient, auth: dict, cid: str) -> dict | None:
        try:
            r = await http.get(f"/championships/{cid}", params={"teams": "false"}, headers=auth, timeout=DEADLINE)
        except httpx.TransportError:
            return None
        return r.json() if r.status_code == 200 else None

    # ------------------------------------------------------------ the checks

    async def checks(self, events: list[Event]) -> list[tuple[str, bool, str]]:
        out: list[tuple[str, bool, str]] = []
        pool = self.pool
        # Every table done, every delivery delivered (the receiver is up, no fault is in force).
        for what, query in (("tables still in play", "SELECT count(*) FROM tables_index WHERE status <> 'finished'"),
                            ("webhook deliveries pending",
                             "SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered'")):
            deadline = time.monotonic() + 300
            while (n := await pool.fetchval(query)) and time.monotonic() < deadline:
                await asyncio.sleep(1)
            out.append((f"no {what}", n == 0, f"{n} {what}"))
        # The read models the workers keep caught up with the log (each projection's checkpoint at the log's
        # last event), then the workers stopped: nothing moves while the read models are rebuilt and compared.
        out.append(await self.check_caught_up())
        await podman("stop", "-t", "30", container("worker1"), container("worker2"))
        chaos = events[-1]
        async with Rehearsal(DATABASE_URL, self.args.teams, schema="public", championship_id=chaos.cid) as r:
            for c in await r.checks():
                out.append((f"{c.name} (rehearsal's check)", c.ok, c.detail))
            for e in events[:-1]:
                r.championship_id = e.cid
                c = await r.check_bracket()
                out.append(("bracket of the run without faults", c.ok, c.detail))
        out.append(await self.check_acked())
        out.append(await self.check_receipts())
        out.extend(await self.check_rebuilds())
        out.extend(self.check_webhooks(chaos.cid))
        s = self.seen
        out.append(("clients saw only problems they can act on", not s.bad and not s.hung,
                    f"{len(s.bad)} other answers {s.bad[:5]}, {len(s.hung)} requests past {DEADLINE:.0f} s "
                    f"{s.hung[:5]}; {sum(s.refused.values())} 503s with Retry-After waited out and retried, "
                    f"{sum(s.cut.values())} cut connections retried, 4xx problems acted on {dict(s.problems)}"))
        return out

    async def check_caught_up(self, wait: float = 120) -> tuple[str, bool, str]:
        """Every projection's checkpoint reaches the log's last event (play is over: nothing more is appended),
        none failed."""
        query = ("SELECT p.name, p.status, (p.tx_id, p.position) >= (e.tx_id, e.position) AS there FROM projections p, "
                 "(SELECT tx_id, position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1) e ORDER BY 1")
        deadline = time.monotonic() + wait
        while True:
            rows = await self.pool.fetch(query)
            behind = [r["name"] for r in rows if not r["there"] or r["status"] != "running"]
            if not behind or time.monotonic() >= deadline:
                break
            await asyncio.sleep(1)
        return ("read models caught up with the log", not behind and bool(rows),
                f"{len(rows)} projections; behind or failed after {wait:.0f} s: {behind}")

    async def check_acked(self) -> tuple[str, bool, str]:
        """Every command a client was answered 200 for is in the log, once, at its version or before."""
        rows = await self.pool.fetch(
            "SELECT a.table_id, a.command_id, count(e.*) AS stored, min(e.version) AS first "
            "FROM unnest($1::text[], $2::text[], $3::text[]) AS a(table_id, command_id, actor) "
            "LEFT JOIN events e ON e.stream_id = 'table-' || a.table_id AND e.metadata->>'command_id' = a.command_id "
            "AND e.metadata->>'actor' = a.actor GROUP BY 1, 2",
            [a[0] for a in self.seen.acked], [a[1] for a in self.seen.acked], [a[2] for a in self.seen.acked])
        versions = {(a[0], a[1]): a[3] for a in self.seen.acked}
        lost = [(r["table_id"], r["command_id"]) for r in rows if not r["stored"]]
        self.lost = len(lost)
        late = [(r["table_id"], r["command_id"]) for r in rows if r["stored"] and r["first"] > versions[(r[0], r[1])]]
        return ("acknowledged commands in the log", not lost and not late and bool(rows),
                f"{len(rows)} commands acknowledged to the clients ({self.seen.replayed} of them answered with "
                f"their stored outcome on a retry): {len(lost)} missing from the log, {len(late)} stored after "
                f"the version they were acknowledged at")

    async def check_receipts(self) -> tuple[str, bool, str]:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(self.seen.receipts, f)
        try:
            await podman("cp", f.name, f"{container('api2')}:/tmp/receipts.json")
            out = await podman("exec", container("api2"), "baloot", "verify", "--receipts", "/tmp/receipts.json",
                               check=False)
        finally:
            os.unlink(f.name)
        last = (out.stdout.strip().splitlines() or [out.stderr.strip()])[-1]
        return ("baloot verify (chains, the clients' receipts, checkpoints)",
                out.returncode == 0 and bool(self.seen.receipts),
                f"{len(self.seen.receipts)} receipts kept by the clients; {last}")

    async def check_rebuilds(self) -> list[tuple[str, bool, str]]:
        """The fair-play queue and the webhooks outbox equal their rebuild from zero (the standings, bracket
        and ratings are the rehearsal's check)."""
        out = []
        fair = ("SELECT table_id, game, championship_id, seats, bots, shared, deals FROM fairplay_tables ORDER BY 1",
                "SELECT table_id, deal_no, version, championship_id, seats, shared FROM fairplay_deals ORDER BY 1, 2")
        before = [[tuple(r) for r in await self.pool.fetch(q)] for q in fair]
        await rebuild_projection(self.pool, fairplay_read_model())
        after = [[tuple(r) for r in await self.pool.fetch(q)] for q in fair]
        out.append(("fair-play queue equals its rebuild", before == after and bool(before[1]),
                    f"{len(before[0])} tables, {len(before[1])} deals queued; equal after a rebuild from zero: "
                    f"{before == after}" + ("" if before == after else
                                            f" (the rebuild: {len(after[0])} tables, {len(after[1])} deals)")))
        hooks = ("SELECT endpoint_id, championship_id, event_id, payload FROM webhook_deliveries "
                 "ORDER BY endpoint_id, championship_id, delivery_id")
        before = [tuple(r) for r in await self.pool.fetch(hooks)]
        # A rebuild keeps the deliveries already queued (never twice): from zero means without them.
        await self.pool.execute("TRUNCATE webhook_attempts, webhook_deliveries")
        await rebuild_projection(self.pool, webhooks_read_model())
        after = [tuple(r) for r in await self.pool.fetch(hooks)]
        out.append(("webhooks outbox equals its rebuild", before == after and bool(before),
                    f"{len(before)} deliveries; the same, in the same order, after a rebuild from zero: "
                    f"{before == after}" + ("" if before == after else f" (the rebuild: {len(after)})")))
        self.deliveries = before
        return out

    def check_webhooks(self, cid: str) -> list[tuple[str, bool, str]]:
        r = self.receiver
        queued = [str(d[2]) for d in self.deliveries if d[1] == cid]
        got = r.handled.get(cid, [])
        ids = [i for i, _ in got]
        sequences = [s for _, s in got]
        # In order: the order the log committed the events (the outbox's), which is not always the order of
        # their positions (``sequence``: docs/webhooks.md); counted, not required.
        back = sum(1 for a, b in zip(sequences, sequences[1:]) if b < a)
        return [("webhooks delivered at least once, handled once, in order",
                 ids == queued and not r.bad_signatures and bool(queued),
                 f"{len(queued)} queued for the championship, {len(ids)} handled (in the log's commit order: "
                 f"{ids == queued}; {back} steps back in sequence, appends numbered in one order and committed in "
                 f"the other), {r.repeats} repeats dropped by id, {r.bad_signatures} bad signatures")]


# ---------------------------------------------------------------- figures


def figures(chaos: Chaos, events: list[Event]) -> str:
    by_kind: dict[str, list[Fault]] = collections.defaultdict(list)
    for f in chaos.faults:
        by_kind[f.kind].append(f)
    s = chaos.seen
    lines = ["| fault | count | in force (s, median) | play moved again after (s): p50 / max | 503s refused and "
             "retried | connections cut and retried |", "|---|---|---|---|---|---|"]
    for kind, fs in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        rec = [f.recovered for f in fs if f.recovered is not None] or [float("nan")]
        refused = sum(n for (fault, _), n in s.refused.items() if fault == kind)
        lines.append(f"| {kind} | {len(fs)} | {statistics.median(f.held for f in fs):.1f} | "
                     f"{pctl(rec, 0.5):.2f} / {max(rec):.2f} | {refused} | {s.cut.get(kind, 0)} |")
    walls = [e.ended - e.started for e in events]
    lines.append("")
    lines.append(f"Faults: {len(chaos.faults)}. Commands acknowledged to the clients: {len(s.acked)}, of which "
                 f"missing from the log (events lost): {chaos.lost}. Wall time: " + (f"{walls[0]:.1f} s without faults, {walls[-1]:.1f} s with "
                                                    f"(x{walls[-1] / walls[0]:.2f})" if len(walls) > 1 else
                                                    f"{walls[-1]:.1f} s with faults (no baseline run)"))
    return "\n".join(lines)


# ---------------------------------------------------------------- main


async def main(args) -> int:
    chaos = Chaos(args)
    for p in chaos.proxies:
        await p.start()
    await chaos.receiver.up()
    say(f"seed {args.seed}; starting the API replicas, the workers (worker2 through the proxies) and HAProxy")
    await compose("up", "-d", "--no-deps", *APPS)
    chaos.pool = await asyncpg.create_pool(DATABASE_URL, min_size=0, max_size=4)
    limits = httpx.Limits(max_connections=400, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=LB, timeout=DEADLINE + 5, limits=limits) as http:
        org = Organiser(http)
        for _ in range(120):
            with contextlib.suppress(httpx.TransportError):
                if (await http.get("/health")).status_code == 200:
                    break
            await asyncio.sleep(0.5)
        uid, token = await org.user("organiser")
        auth = {"Authorization": f"Bearer {token}"}
        events = []
        if args.baseline:
            events.append(await chaos.play(org, auth, "Chaos Cup baseline", faults=False))
        events.append(await chaos.play(org, auth, "Chaos Cup", faults=True))
        if chaos.rejoin is not None:
            await chaos.rejoin
        results = await chaos.checks(events)
    failed = [r for r in results if not r[1]]
    say("checks:")
    for name, ok, detail in results:
        say(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")
    table = figures(chaos, events)
    print(table, flush=True)
    say("the fault log: " + "; ".join(f"{f.at:.0f}s {f.kind} ({f.target})" for f in chaos.faults))
    if args.markdown:
        Path(args.markdown).write_text(f"seed {args.seed}, {args.teams} teams, a fault every "
                                       f"{args.every[0]:g}-{args.every[1]:g} s\n\n{table}\n")
    if len(chaos.faults) < args.min_faults or FAILOVER not in {f.kind for f in chaos.faults}:
        say(f"FAILED: {len(chaos.faults)} faults struck (at least {args.min_faults} and a failover asked)")
        return 1
    if failed:
        say(f"FAILED: {len(failed)} check(s)")
        return 1
    return 0


def parse(argv: list[str] | None = None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--teams", type=int, default=2048)
    p.add_argument("--humans", type=int, default=None,
                   help="teams of two scripted people (default: one team in 32, at most 32)")
    p.add_argument("--seed", default=None, help="the fault schedule's seed (default: a random one, printed)")
    p.add_argument("--every", default="10-12",
                   help="seconds from a fault's strike to the next, A-B (default 10-12)")
    p.add_argument("--scale", type=float, default=1.0, help="how long the held faults last, times the default")
    p.add_argument("--failover-at", type=int, default=8, help="the failover is this fault (default 8)")
    p.add_argument("--purge-at", type=int, default=5, help="the purge of RabbitMQ's queues is this fault")
    p.add_argument("--min-faults", type=int, default=40, help="fail unless at least this many struck")
    p.add_argument("--target", type=int, default=152, help="the games' target")
    p.add_argument("--turn-seconds", type=float, default=20.0, help="the tables' turn clock")
    p.add_argument("--bot-pace", type=float, default=0.0,
                   help="the tables' least time between two bot actions (default 0: full speed)")
    p.add_argument("--think", default="0.1-0.4", help="a scripted person's thinking time, A-B seconds")
    p.add_argument("--poll", type=float, default=0.2,
                   help="how often a scripted person's table view is read while it is not her turn (seconds)")
    p.add_argument("--start-after", type=float, default=None,
                   help="round 1 this many seconds after creation (default: 15 s and 0.2 s a people's team)")
    p.add_argument("--no-baseline", dest="baseline", action="store_false",
                   help="skip the run without faults (its wall time is the figure's baseline)")
    p.add_argument("--markdown", help="write the figures' table to this file")
    args = p.parse_args(argv)
    args.seed = args.seed or os.urandom(4).hex()
    args.every = tuple(float(x) for x in args.every.split("-"))
    args.think = tuple(float(x) for x in args.think.split("-"))
    args.humans = min(32, max(1, args.teams // 32)) if args.humans is None else args.humans
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse())))
