"""The smoke's driver (deploy/smoke starts the containers, then runs this on the host).

Through HAProxy only: a whole table whose requests land on both replicas, a 16-team championship of bots
to its champion, then fault drills while one game goes on (two human seats played from here, two bot seats
played by the workers): kill an API replica, kill a worker container, restart RabbitMQ, restart PostgreSQL.
Each drill prints how long the platform took to recover. At the end every stream's hash chain verifies,
`baloot verify` passes (receipts and checkpoints too), no command stored twice, and the standings read model
equals its rebuild from the log.
"""

from __future__ import annotations

import asyncio
import collections
import datetime as dt
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api import choose  # noqa: E402  (the benchmark's player: a legal action, mostly plausible)
from services.eventstore import rebuild_projection, verify_stream  # noqa: E402
from services.workers.projections import standings_read_model  # noqa: E402
from tests.workers.helpers import assert_exactly_once, stream_rows  # noqa: E402

RUN_TAG = os.urandom(3).hex()            # names this run's users apart from an earlier run's

LB = os.environ.get("SMOKE_LB", "http://127.0.0.1:21880")
REPLICAS = {"api1": "http://127.0.0.1:21801", "api2": "http://127.0.0.1:21802"}
DATABASE_URL = os.environ.get("SMOKE_DATABASE_URL", "postgresql://postgres@127.0.0.1:21432,127.0.0.1:21433/baloot"
                              "?target_session_attrs=read-write")
RABBITMQ_PORT = 21672
PROJECT = os.environ.get("SMOKE_PROJECT", "baloot")
TIMEOUT = 120.0          # seconds any one step may take before the smoke fails


def container(service: str) -> str:
    return f"{PROJECT}_{service}_1"


def podman(*args: str) -> None:
    subprocess.run(["podman", *args], check=True, stdout=subprocess.DEVNULL)


def say(text: str) -> None:
    print(f"smoke: {text}", flush=True)


async def until(what: str, check, timeout: float = TIMEOUT, every: float = 0.1):
    """Poll ``check()`` (async) until it returns something truthy; the smoke watches a live system."""
    deadline = time.monotonic() + timeout
    while True:
        result = await check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise SystemExit(f"smoke: FAILED: {what} (waited {timeout:.0f} s)")
        await asyncio.sleep(every)


class Api:
    """An HTTP client through the load balancer that counts which replica answered."""

    def __init__(self) -> None:
        self.client = httpx.AsyncClient(base_url=LB, timeout=30)
        self.served = collections.Counter()

    async def request(self, method: str, path: str, headers: dict | None = None, **kw) -> httpx.Response:
        r = await self.client.request(method, path, headers=headers, **kw)
        self.served[r.headers.get("x-served-by", "haproxy")] += 1
        return r

    async def ok(self, method: str, path: str, headers: dict | None = None, expect: int = 200, **kw) -> dict:
        r = await self.request(method, path, headers, **kw)
        if r.status_code != expect:
            raise SystemExit(f"smoke: FAILED: {method} {path} -> {r.status_code} {r.text[:300]}")
        return r.json()

    async def user(self, name: str) -> tuple[str, dict]:
        # A person's name is nobody else's: a run's tag keeps a second run on the same database apart.
        body = await self.ok("POST", "/users", json={"name": f"{name} {RUN_TAG}"}, expect=201)
        return body["user_id"], {"Authorization": f"Bearer {body['token']}"}


async def open_table(api: Api, seats: list[tuple[str, dict]], **options) -> str:
    body = await api.ok("POST", "/tables", seats[0][1], json={"seats": [u for u, _ in seats], **options},
                        expect=201)
    tid = body["table_id"]
    for uid, headers in seats:
        if uid in body["waiting"]:
            await api.ok("POST", f"/tables/{tid}/accept", headers)
    return tid


# ---------------------------------------------------------------- 1. a whole table, both replicas


async def play_whole_table(api: Api) -> None:
    started = time.monotonic()
    before = collections.Counter(api.served)
    seats = [await api.user(f"player {i}") for i in range(4)]
    tid = await open_table(api, seats)
    rng = random.Random(1)
    view = await api.ok("GET", f"/tables/{tid}/view", seats[0][1])
    actions = 0
    while view["phase"] != "ended":
        turn = view["deal"]["turn"]
        mine = await api.ok("GET", f"/tables/{tid}/view", seats[turn][1])
        action = choose(mine["deal"]["legal_actions"], rng)
        actions += 1
        view = (await api.ok("POST", f"/tables/{tid}/commands", seats[turn][1],
                             json={"command_id": f"c{actions}", "action": action}))["view"]
    served = api.served - before
    if not (served["api1"] and served["api2"]):
        raise SystemExit(f"smoke: FAILED: the table's requests did not land on both replicas: {dict(served)}")
    say(f"table {tid} played to its end through HAProxy: {actions} actions in "
        f"{time.monotonic() - started:.1f} s, requests served by api1={served['api1']} api2={served['api2']}")


# ---------------------------------------------------------------- 2. a championship of bots


async def championship_of_bots(api: Api, teams: int = 16) -> None:
    started = time.monotonic()
    organiser = (await api.user("organiser"))[1]
    # Round 1 starts shortly after the teams are registered; from then on only the workers move it.
    starts_at = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=6)
    body = await api.ok("POST", "/championships", organiser, expect=201, json={
        "command_id": "create", "name": "Smoke Cup", "bot_level": "easy",
        "schedule": [{"round": 1, "starts_at": starts_at.isoformat()}]})
    cid = body["championship_id"]
    for k in range(1, teams + 1):
        await api.ok("POST", f"/championships/{cid}/teams", organiser, expect=201,     # two bots, made by the server
                     json={"command_id": f"team-{k}", "team_id": f"T{k}", "players": ["bot", "bot"]})

    async def finished():
        champ = await api.ok("GET", f"/championships/{cid}", organiser)
        summary = champ.get("summary", champ)
        return summary if summary.get("status") == "finished" else None

    summary = await until("the championship finished", finished, timeout=600, every=1.0)
    say(f"championship {cid}: {teams} bot teams played to their champion {summary.get('champion')} "
        f"in {time.monotonic() - started:.1f} s (round 1 started {starts_at:%H:%M:%S})")


# ---------------------------------------------------------------- 3. the game that goes on


class Game:
    """Two human seats played from here through HAProxy, two bot seats played by the workers; a new table
    when one ends. Records every answer, so the drills can see the game move on or get 503s."""

    def __init__(self, api: Api):
        self.api = api
        self.actions = 0                   # human actions stored
        self.last_ok = time.monotonic()
        self.unavailable: list[dict] = []  # 503 problem documents received
        self.other_errors: list[str] = []
        self.cut: list[str] = []           # requests cut in flight (connection closed, no answer), then retried
        self.drill = "before the drills"
        self.tables: list[str] = []
        self.bot_moves = 0                 # bot actions seen (the version moved while no human acted)
        self._stop = False
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self.humans = [await self.api.user("human north"), await self.api.user("human south")]
        self.bots = [("bot", {}), ("bot", {})]         # seats the server plays with its bots
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        self._stop = True
        await self._task

    async def _call(self, method: str, path: str, headers: dict, **kw) -> dict | None:
        """One request; a 503 problem (database away) or a transport error is noted, and None returned."""
        try:
            r = await self.api.request(method, path, headers, **kw)
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            # A request in flight when a process goes away may lose its connection: the client retries it, as
            # any client does with an idempotent request (a command is, by its command id). Reported below.
            self.cut.append(f"{self.drill}: {method} {path}: {type(exc).__name__}")
            return None
        except httpx.TransportError as exc:
            self.other_errors.append(f"{method} {path}: {type(exc).__name__}")
            return None
        if r.status_code == 503:
            if r.headers.get("content-type", "").startswith("application/problem+json"):
                self.unavailable.append(r.json())
            else:
                self.other_errors.append(f"{method} {path}: 503 that is no problem document: {r.text[:100]}")
            return None
        if r.status_code >= 400:
            self.other_errors.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
            return None
        return r.json()

    async def _run(self) -> None:
        rng = random.Random(7)
        north, south = self.humans
        seats = [north, self.bots[0], south, self.bots[1]]
        while not self._stop:
            # No bot pace: the drills time how soon the bots move on after a failure, not their pace.
            opened = await self._call("POST", "/tables", north[1], json={
                "seats": [u for u, _ in seats], "bot_level": "easy", "bot_pace_seconds": 0})
            if opened is None:
                await asyncio.sleep(0.5)
                continue
            tid = opened["table_id"]
            self.tables.append(tid)
            if south[0] in opened["waiting"]:
                while await self._call("POST", f"/tables/{tid}/accept", south[1]) is None and not self._stop:
                    await asyncio.sleep(0.5)
            version = 0
            n = 0
            while not self._stop:
                view = await self._call("GET", f"/tables/{tid}/view", north[1])
                if view is None:
                    await asyncio.sleep(0.3)
                    continue
                if version and view["version"] > version:
                    self.bot_moves += 1                           # the table moved without us: the workers
                version = view["version"]
                if view["phase"] == "ended":
                    break
                turn = view["deal"]["turn"] if view.get("deal") else None
                if turn not in (0, 2):
                    await asyncio.sleep(0.05)                     # the workers' turn: watch the table
                    continue
                player = seats[turn]
                mine = view if turn == 0 else await self._call("GET", f"/tables/{tid}/view", player[1])
                if mine is None or not (mine.get("deal") or {}).get("legal_actions"):
                    await asyncio.sleep(0.05)
                    continue
                n += 1
                command = {"command_id": f"{tid}-{n}", "action": choose(mine["deal"]["legal_actions"], rng)}
                # A 503 is retried with the same command id: the stored outcome, never a second action.
                while not self._stop:
                    done = await self._call("POST", f"/tables/{tid}/commands", player[1], json=command)
                    if done is not None:
                        self.actions += 1
                        self.last_ok = time.monotonic()
                        version = done["view"]["version"]
                        break
                    await asyncio.sleep(0.3)
                await asyncio.sleep(0.05)                             # a player's (short) thinking time

    async def moved_on(self, since: float, actions: int = 3) -> float:
        """Seconds from ``since`` until the game stored ``actions`` more human actions and a bot moved."""
        start_actions, start_bots = self.actions, self.bot_moves

        async def check():
            return self.actions >= start_actions + actions and self.bot_moves > start_bots

        await until("the game moved on", check, timeout=TIMEOUT)
        return time.monotonic() - since


# ---------------------------------------------------------------- 4. the drills


async def replica_health(name: str) -> int | None:
    try:
        async with httpx.AsyncClient(timeout=3) as c:
            return (await c.get(f"{REPLICAS[name]}/health")).status_code
    except httpx.TransportError:
        return None


async def drill_kill_api_replica(api: Api, game: Game, results: dict) -> None:
    before = collections.Counter(api.served)
    t0 = time.monotonic()
    podman("kill", container("api1"))
    took = await game.moved_on(t0, actions=5)
    served = api.served - before
    results["kill an API replica: the game goes on"] = took
    say(f"drill kill api1: the game went on through api2 after {took:.2f} s (served since: {dict(served)})")
    t1 = time.monotonic()
    podman("start", container("api1"))
    await until("api1 healthy again", lambda: _is(replica_health("api1"), 200))
    mark = api.served["api1"]
    await until("HAProxy sends to api1 again", lambda: _true(api.served["api1"] > mark), every=0.2)
    results["kill an API replica: the replica back in service"] = time.monotonic() - t1
    say(f"drill kill api1: restarted, serving again after {time.monotonic() - t1:.2f} s")


async def drill_kill_worker(api: Api, game: Game, results: dict, tables: list[str]) -> None:
    # Bot tables (at full speed: no pace) for the workers to be busy with when one of them dies.
    referee = await api.user("drill referee")
    opened = [(await api.ok("POST", "/tables", referee[1], json={"seats": ["bot"] * 4, "bot_level": "easy",
                                                                 "bot_pace_seconds": 0}, expect=201))["table_id"]
              for _ in range(4)]
    tables.extend(opened)
    t0 = time.monotonic()
    podman("kill", container("worker1"))
    took = await game.moved_on(t0)

    async def all_ended():
        views = [await api.ok("GET", f"/tables/{t}/view", referee[1]) for t in opened]
        return all(v["phase"] == "ended" for v in views)

    await until("the bot tables ended with one worker", all_ended, timeout=300, every=0.5)
    results["kill a worker: bot turns go on"] = took
    results["kill a worker: its tables played to their end by the other"] = time.monotonic() - t0
    say(f"drill kill worker1: bot turns went on after {took:.2f} s; the 4 bot tables it shared ended "
        f"{time.monotonic() - t0:.2f} s after the kill")
    podman("start", container("worker1"))


async def drill_restart_rabbitmq(api: Api, game: Game, results: dict) -> None:
    t0 = time.monotonic()
    podman("stop", "-t", "10", container("rabbitmq"))
    humans_before = game.actions
    await asyncio.sleep(5)          # RabbitMQ stays away a while; the human seats keep acting when it is theirs
    stored_away = game.actions - humans_before
    podman("start", container("rabbitmq"))
    back = await until("RabbitMQ accepts connections again", _rabbitmq_answers, timeout=120, every=0.2)
    took = await game.moved_on(t0)
    results["restart RabbitMQ: work delayed, then done"] = took
    say(f"drill restart RabbitMQ: {stored_away} command(s) stored while it was away; it answered again "
        f"{back - t0:.2f} s after the stop, and bot turns went on {took:.2f} s after the stop")


async def _rabbitmq_answers() -> float | None:
    """When RabbitMQ's AMQP port took a connection (the clock's reading), None while it does not."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", RABBITMQ_PORT), 2)
    except (OSError, asyncio.TimeoutError):
        return None
    writer.close()
    return time.monotonic()


async def drill_restart_postgres(api: Api, game: Game, results: dict) -> None:
    seen = len(game.unavailable)
    podman("stop", "-t", "10", container("postgres"))
    t_down = time.monotonic()
    # While it is down: the replicas answer 503 problem documents (database_unavailable).
    direct = await _replica_problem("api2")
    await until("a 503 problem document through HAProxy", lambda: _true(len(game.unavailable) > seen),
                timeout=60)
    await asyncio.sleep(3)          # PostgreSQL stays away a while: every request meanwhile is a 503 problem
    down_for = time.monotonic() - t_down
    podman("start", container("postgres"))
    t_up = time.monotonic()
    took = await game.moved_on(t_up)
    rules = collections.Counter(p.get("rule") for p in game.unavailable[seen:])
    results["restart PostgreSQL: requests succeed again after it is back"] = took
    say(f"drill restart PostgreSQL: stopped for {down_for:.1f} s, 503 problem documents {dict(rules)} "
        f"(api2 directly: {direct['rule']}, Retry-After {direct['retry_after']}); the game went on "
        f"{took:.2f} s after it was started again")


async def _replica_problem(name: str) -> dict:
    async def check():
        try:
            async with httpx.AsyncClient(timeout=5) as c:
                r = await c.get(f"{REPLICAS[name]}/health")
        except httpx.TransportError:
            return None
        if r.status_code == 503 and r.headers["content-type"].startswith("application/problem+json"):
            return {"rule": r.json()["rule"], "retry_after": r.headers.get("retry-after")}
        return None

    found = await until(f"{name} answers a 503 problem document", check, timeout=60)
    if found["rule"] != "database_unavailable":
        raise SystemExit(f"smoke: FAILED: {name} answered {found} while the database was down")
    return found


async def _is(awaitable, value) -> bool:
    return (await awaitable) == value


async def _true(value: bool) -> bool:
    return value


# ---------------------------------------------------------------- 5. the log holds


async def check_the_log(tables: list[str]) -> None:
    conn = await asyncpg.connect(DATABASE_URL)
    try:
        streams = [r[0] for r in await conn.fetch("SELECT DISTINCT stream_id FROM events ORDER BY 1")]
        broken = {s: v for s in streams if (v := await verify_stream(conn, s)) is not None}
        if broken:
            raise SystemExit(f"smoke: FAILED: broken hash chains (stream: first bad version): {broken}")
        events = await conn.fetchval("SELECT count(*) FROM events")
        for table_id in tables:                  # no command stored twice, versions contiguous
            assert_exactly_once(await stream_rows(conn, table_id))
        say(f"log: {len(streams)} streams, {events} events, every hash chain verifies; "
            f"{len(tables)} tables with every command stored exactly once")
    finally:
        await conn.close()
    out = subprocess.run(["podman", "exec", container("api2"), "baloot", "verify"], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise SystemExit(f"smoke: FAILED: baloot verify:\n{out.stdout}{out.stderr}")
    say(f"baloot verify (chains, receipts, checkpoints): {out.stdout.strip().splitlines()[-1]}")


async def standings_equal_their_rebuild() -> None:
    """With the workers (which hold the projection) stopped once caught up, rebuild and compare."""
    pool = await asyncpg.create_pool(DATABASE_URL, min_size=1, max_size=2)
    try:
        async def caught_up():
            head = await pool.fetchrow("SELECT tx_id::text::numeric AS tx, position FROM events "
                                       "ORDER BY tx_id DESC, position DESC LIMIT 1")
            cp = await pool.fetchrow("SELECT tx_id::text::numeric AS tx, position, status FROM projections "
                                     "WHERE name = $1", standings_read_model().name)
            if cp is not None and cp["status"] == "failed":
                raise SystemExit("smoke: FAILED: the standings projection failed")
            return cp is not None and (cp["tx"], cp["position"]) >= (head["tx"], head["position"])

        await until("the standings projection caught up", caught_up, timeout=60, every=0.5)
        query = "SELECT championship_id, version, standings::text FROM standings_rm ORDER BY 1"
        live = [tuple(r) for r in await pool.fetch(query)]
        podman("stop", "-t", "10", container("worker1"), container("worker2"))
        await rebuild_projection(pool, standings_read_model())
        rebuilt = [tuple(r) for r in await pool.fetch(query)]
    finally:
        await pool.close()
    if live != rebuilt or not live:
        raise SystemExit(f"smoke: FAILED: the standings read model differs from its rebuild\n{live}\n{rebuilt}")
    say(f"read model: standings of {len(live)} championship(s) equal their rebuild from the log")


# ---------------------------------------------------------------- main


async def main() -> None:
    async def ready():
        return all([await replica_health("api1") == 200, await replica_health("api2") == 200])

    await until("both replicas healthy", ready)
    api = Api()
    await until("HAProxy sees both replicas", lambda: _lb_ok(api), every=0.5)
    await play_whole_table(api)
    await championship_of_bots(api)

    game = Game(api)
    await game.start()
    await game.moved_on(time.monotonic())
    results: dict[str, float] = {}
    drill_tables: list[str] = []
    game.drill = "kill api1"
    await drill_kill_api_replica(api, game, results)
    game.drill = "kill worker1"
    await drill_kill_worker(api, game, results, drill_tables)
    game.drill = "restart RabbitMQ"
    await drill_restart_rabbitmq(api, game, results)
    game.drill = "restart PostgreSQL"
    await drill_restart_postgres(api, game, results)
    game.drill = "after the drills"
    await game.moved_on(time.monotonic(), actions=5)
    await game.stop()
    if game.cut:
        say(f"requests cut in flight and retried by the client (same request, same command id): {game.cut[:10]}")
    if game.other_errors:
        say(f"answers other than success or a 503 problem during the drills: {game.other_errors[:10]}")
        raise SystemExit("smoke: FAILED: unexpected errors during the drills")

    await check_the_log(game.tables + drill_tables)
    await standings_equal_their_rebuild()
    await api.client.aclose()
    say("recovery times:")
    for what, seconds in results.items():
        say(f"  {what:<62} {seconds:6.2f} s")
    say(f"requests per replica over the whole run: {dict(api.served)}")


async def _lb_ok(api: Api) -> bool:
    try:
        r = await api.request("GET", "/health")
    except httpx.TransportError:
        return False
    return r.status_code == 200


if __name__ == "__main__":
    asyncio.run(main())
    print(msgspec.json.encode({"smoke": "passed"}).decode())
