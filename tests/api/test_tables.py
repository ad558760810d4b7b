"""Tables end to end over HTTP on real PostgreSQL: whole games, live spectators, access, races, retries,
every problem document, Qayd and rulings at a recorded table, audits (also of a tampered log), replays.

Games are driven the way a client would: whoever's turn it is (``deal.turn`` in any seated view) reads its
own view with its own token and sends one of ``deal.legal_actions``.  The spectator tests run the app under
uvicorn on 127.0.0.1 (an ephemeral port) and read ``/live`` with httpx streaming, because the ASGI test
client buffers a response until it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import socket

import asyncpg
import httpx
import pytest
import uvicorn
from litestar.testing import AsyncTestClient

from services.api.app import MAX_BODY, create_app
from tests.api.conftest import new_user, open_table, schema_url

PROBLEM = "application/problem+json"
CARD = re.compile(r'"([789TJQKA][SHDC])"')
LIVE = ("bidding", "doubling", "playing", "review")


# ---------------------------------------------------------------- helpers


def assert_problem(r: httpx.Response, status: int, rule: str | None = None, *, field: str | None = None) -> dict:
    """``r`` is an RFC 9457 problem document with this status (and rule / field); returns its body."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM), r.headers
    body = r.json()
    assert body["status"] == status
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["rule"], str) and body["rule"]
    if rule is not None:
        assert body["rule"] == rule, body
    if field is not None:
        assert body.get("field") == field, body
    return body


class Ids:
    """Unique command ids for one test."""

    def __init__(self, prefix: str = "c") -> None:
        self.prefix, self.n = prefix, 0

    def __call__(self) -> str:
        self.n += 1
        return f"{self.prefix}-{self.n}"


def choose(actions: list[dict], rng: random.Random) -> dict:
    """A scripted player: bids often (so deals are not all void), never doubles (so no Gahwa ends the game
    early), plays and declares at random."""
    kind = actions[0]["type"]
    if kind == "double":
        return next(a for a in actions if a["call"] == "pass")
    if kind == "bid":
        takes = [a for a in actions if a["bid"] not in ("pass", "wala", "kawesh")]
        passes = [a for a in actions if a["bid"] in ("pass", "wala")]
        return rng.choice(takes) if takes and (rng.random() < 0.6 or not passes) else passes[0]
    return rng.choice(actions)


async def view(client, tid: str, headers: dict, **params) -> dict:
    r = await client.get(f"/tables/{tid}/view", headers=headers, params=params)
    assert r.status_code == 200, r.text
    return r.json()


async def act(client, tid: str, headers: dict, action: dict, command_id: str, **extra) -> httpx.Response:
    return await client.post(f"/tables/{tid}/commands", headers=headers,
                             json={"command_id": command_id, "action": action, **extra})


async def step(client, tid: str, players, rng: random.Random, ids: Ids) -> dict | None:
    """One action by the seat whose turn it is, with its own token; the view after it (None: no turn)."""
    public = await view(client, tid, players[0][1])
    turn = public["deal"]["turn"] if public["deal"] else None
    if public["phase"] != "playing" or turn is None:
        return None
    mine = await view(client, tid, players[turn][1])
    assert mine["seat"] == turn and mine["deal"]["viewer"] == turn
    actions = mine["deal"]["legal_actions"]
    assert actions, mine
    r = await act(client, tid, players[turn][1], choose(actions, rng), ids())
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["replayed"] is False and body["version"] > mine["version"]
    return body["view"]


async def play_until(client, tid: str, players, rng: random.Random, ids: Ids, done, limit: int = 5000) -> dict:
    """Step until ``done(view of seat 0)``; returns that view."""
    for _ in range(limit):
        v = await view(client, tid, players[0][1])
        if done(v):
            return v
        assert await step(client, tid, players, rng, ids) is not None, v
    raise AssertionError("the condition was never reached")


def deal_of(v: dict) -> dict:
    return v["deal"]


def action_count(d: dict) -> int:
    """The index the next action of the deal will have (bids, doubles, declarations and plays so far)."""
    return (len(d["bids"]) + len(d["doubles"]) + len(d["declarations"])
            + sum(len(t["cards"]) for t in d["tricks"]) + len(d["trick"]))


def suit(card: str) -> str:
    return card[1]


def revoke_chance(d: dict) -> tuple[str, str] | None:
    """(a card of the led suit, a card of another suit) held by the seat to play, if it could revoke."""
    if d["phase"] != "playing" or not d["trick"]:
        return None
    led = suit(d["trick"][0]["card"])
    follow = [c for c in d["hand"] if suit(c) == led]
    other = [c for c in d["hand"] if suit(c) != led]
    return (follow[0], other[0]) if follow and other else None


async def to_revoke_chance(client, tid: str, players, rng: random.Random, ids: Ids) -> tuple[dict, str, str]:
    """Play on until the seat to play holds the led suit and another suit; its view and the two cards."""
    for _ in range(5000):
        public = await view(client, tid, players[0][1])
        turn = public["deal"]["turn"]
        if public["deal"]["phase"] == "playing" and turn is not None:
            mine = await view(client, tid, players[turn][1])
            chance = revoke_chance(mine["deal"])
            if chance:
                return mine, *chance
        assert await step(client, tid, players, rng, ids) is not None
    raise AssertionError("no chance to revoke came")


async def stream_version(pool: asyncpg.Pool, tid: str) -> int:
    return await pool.fetchval("SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1",
                               f"table-{tid}")


# ---------------------------------------------------------------- a real server for streaming


@contextlib.asynccontextmanager
async def served(app):
    """The app under uvicorn on 127.0.0.1 and an ephemeral port; yields its base URL.

    The socket listens before the server starts, so early connections wait in the backlog: no sleep needed.
    """
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so, and without it every
    # response split in two writes waits out the client's delayed ACK (~40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning", timeout_graceful_shutdown=5))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def follow(base: str, tid: str, headers: dict, out: list, *, after: int = 0,
                 first: asyncio.Event | None = None) -> str:
    """Read /live until it ends: each `view` message as (id, event, data) into ``out``; returns the last event."""
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=httpx.Timeout(60.0)) as client:
        async with client.stream("GET", f"/tables/{tid}/live", params={"after": after}) as r:
            assert r.status_code == 200, await r.aread()
            assert r.headers["content-type"].startswith("text/event-stream")
            fields: dict[str, str] = {}
            async for line in r.aiter_lines():
                if line:
                    name, _, value = line.partition(":")
                    fields[name] = value[1:] if value.startswith(" ") else value
                    continue
                if not fields:
                    continue
                event = fields.get("event", "message")
                if event == "end":
                    return "end"
                out.append((int(fields["id"]), event, json.loads(fields["data"])))
                if first is not None:
                    first.set()
                fields = {}
    return "closed"


def cards_in(message: dict) -> set[str]:
    return set(CARD.findall(json.dumps(message)))


def public_cards(d: dict) -> set[str]:
    """Cards anyone at the table may know while a deal is live: the face-up card, played cards, and the
    cards of declared projects once they are shown."""
    shown = {d["faceup"]} if d["faceup"] else set()
    shown |= {p["card"] for t in d["tricks"] for p in t["cards"]} | {p["card"] for p in d["trick"]}
    shown |= {c for decl in d["declarations"] for g in (decl.get("cards") or []) for c in g}
    return shown


# ---------------------------------------------------------------- a whole game, watched live


@pytest.mark.parametrize("policy", ["after_deal", "never"])      # "always" shows hands only late: test_fair_play
async def test_four_clients_play_a_game_to_152_while_spectators_follow_live(database_url, db_schema, pool, policy):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as anon:
            users = []
            for i in range(4):
                r = await anon.post("/users", json={"name": f"player {i}"})
                assert r.status_code == 201, r.text
                users.append(r.json())
            r = await anon.post("/users", json={"name": "spectator"})
            spectator = {"Authorization": f"Bearer {r.json()['token']}"}
        clients = [httpx.AsyncClient(base_url=base, timeout=30, headers={"Authorization": f"Bearer {u['token']}"})
                   for u in users]
        try:
            r = await clients[0].post("/tables", json={"seats": [u["user_id"] for u in users],
                                                       "hands_policy": policy})
            assert r.status_code == 201, r.text
            tid = r.json()["table_id"]
            for c in clients[1:]:
                accepted = await c.post(f"/tables/{tid}/accept")
                assert accepted.status_code == 200, accepted.text
            opened_at = accepted.json()["version"]

            # Every seat's hand at each version the players have seen (what a spectator must not learn).
            held: dict[int, tuple[int, list[set[str]]]] = {}

            async def note_hands() -> dict:
                views = [await view(c, tid, {}) for c in clients]
                assert len({v["version"] for v in views}) == 1
                for seat, v in enumerate(views):
                    assert v["seat"] == seat and v["deal"]["hand"] is not None
                    if v["deal"]["phase"] in LIVE:
                        assert v["deal"]["hands"] is None
                held[views[0]["version"]] = (views[0]["deal_no"], [set(v["deal"]["hand"]) for v in views])
                return views[0]

            watched: list = []
            late: list = []
            connected = asyncio.Event()
            live = asyncio.create_task(follow(base, tid, spectator, watched, first=connected))
            await connected.wait()                      # the stream is open before anyone acts
            await note_hands()

            rng = random.Random(f"game-{policy}")
            ids = Ids()
            late_task = None
            for n in range(5000):
                public = await note_hands()
                if public["phase"] == "ended":
                    break
                turn = public["deal"]["turn"]
                mine = await view(clients[turn], tid, {})
                assert mine["seat"] == turn
                # A player's view never shows another seat's cards.
                assert mine["deal"]["hands"] is None and len(mine["deal"]["hand"]) == mine["deal"]["hand_sizes"][turn]
                r = await act(clients[turn], tid, {}, choose(mine["deal"]["legal_actions"], rng), ids())
                assert r.status_code == 200, r.text
                if n == 40:                             # a second spectator joins mid-game, from a version on
                    late_task = asyncio.create_task(follow(base, tid, spectator, late, after=r.json()["version"] - 5))
            final = await view(clients[0], tid, {})
            assert final["phase"] == "ended"
            assert max(final["scores"]) >= 152 and final["scores"][final["winner"]] == max(final["scores"])
            assert final["deal_no"] > 1

            assert await live == "end"
            assert late_task is not None and await late_task == "end"
            stored = await stream_version(pool, tid)
            assert stored == final["version"]

            # In version order, every version exactly once, each message the spectator view at its id.
            assert [i for i, _, _ in watched] == list(range(1, stored + 1))
            assert [i for i, _, _ in late] == list(range(late[0][0], stored + 1))
            assert late[0][0] > opened_at
            for i, event, data in watched:
                assert event == "view" and data["version"] == i and data["seat"] is None
                if data["deal"] is not None:
                    assert data["deal"]["legal_actions"] == [] and data["deal"]["hand"] is None
            assert watched[-1][2]["scores"] == final["scores"] and watched[-1][2]["winner"] == final["winner"]
            assert {i: d for i, _, d in late} == {i: d for i, _, d in watched if i >= late[0][0]}

            # Hidden cards: compare each live message with the hands held at (or just before) its version.
            checked = 0
            known = sorted(held)
            for i, _, data in watched:
                d = data["deal"]
                if d is None or d["phase"] not in LIVE:
                    continue
                before = [v for v in known if v <= i]
                assert before, i
                deal_no, hands = held[before[-1]]
                if deal_no != data["deal_no"]:
                    continue
                assert d["seed"] is None, "the seed (hence the deck) is revealed only when the deal ends"
                in_hands = set().union(*hands)
                assert d["hands"] is None, (policy, i, d["hands"])
                leaked = (cards_in(data) - public_cards(d))
                assert not leaked, f"version {i} shows cards nobody has played or shown: {sorted(leaked)}"
                # Still held at version i: the hands seen at or before it, less what was played since.
                played = {p["card"] for t in d["tricks"] for p in t["cards"]} | {p["card"] for p in d["trick"]}
                assert cards_in(data) & (in_hands - played) <= public_cards(d) - played
                checked += 1
            assert checked > 100

            # Replays of the same game: the state after event N is the live message N (for a spectator);
            # a player replays from his own seat and sees no other hand.
            for n in (opened_at, opened_at + 1, stored // 2, stored):
                r = await clients[1].get(f"/tables/{tid}/state", params={"at": n}, headers=spectator)
                assert r.status_code == 200, r.text
                assert r.json() == watched[n - 1][2]
                mine = (await clients[1].get(f"/tables/{tid}/state", params={"at": n})).json()
                assert mine["seat"] == 1 and (mine["deal"] is None or mine["deal"]["hands"] is None
                                              or mine["deal"]["phase"] not in LIVE)
        finally:
            for c in clients:
                await c.aclose()


async def test_a_spectator_hears_of_each_action_promptly(database_url, db_schema):
    """The live stream wakes on the event store's notification, not on its 5-second polling fallback."""
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            players = [await new_user(client, f"p{i}") for i in range(4)]
            _, spectator = await new_user(client, "spectator")
            tid = await open_table(client, players)
            messages: list = []
            got = asyncio.Event()
            task = asyncio.create_task(follow(base, tid, spectator, messages, first=got))
            try:
                await got.wait()
                start = await view(client, tid, players[0][1])
                rng, ids = random.Random(7), Ids()
                for _ in range(3):
                    got.clear()
                    after = await step(client, tid, players, rng, ids)
                    # Well under the stream's 5 s polling fallback: the wake-up must come from the NOTIFY.
                    await asyncio.wait_for(got.wait(), timeout=2.0)
                    while messages[-1][0] < after["version"]:
                        got.clear()
                        await asyncio.wait_for(got.wait(), timeout=2.0)
                assert messages[-1][0] > start["version"]
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


# ---------------------------------------------------------------- seats and access


async def test_a_player_sees_only_its_own_cards_and_acts_only_for_its_own_seat(api, players, pool):
    tid = await open_table(api, players)
    v = await view(api, tid, players[0][1])
    turn = v["deal"]["turn"]
    other = (turn + 1) & 3
    mine = await view(api, tid, players[turn][1])
    assert mine["seat"] == turn and len(mine["deal"]["hand"]) == 5 and mine["deal"]["hands"] is None

    for seat in range(4):
        if seat != other:
            r = await api.get(f"/tables/{tid}/view", params={"seat": seat}, headers=players[other][1])
            body = assert_problem(r, 403, "not_your_seat")
            assert f"seat {seat}" in body["detail"]
    r = await api.get(f"/tables/{tid}/view", params={"seat": other}, headers=players[other][1])
    assert r.status_code == 200 and r.json()["seat"] == other

    before = await stream_version(pool, tid)
    action = mine["deal"]["legal_actions"][0]
    # Acting for the seat to play with another seat's token: refused, whether the seat is named or not.
    assert_problem(await act(api, tid, players[other][1], action, "x1"), 409, "not_your_turn")
    assert_problem(await api.post(f"/tables/{tid}/commands", params={"seat": turn}, headers=players[other][1],
                                  json={"command_id": "x2", "action": action}), 403, "not_your_seat")
    _, outsider = await new_user(api, "outsider")
    assert_problem(await act(api, tid, outsider, action, "x3"), 403, "not_seated")
    # An outsider gets the spectator view: no hand, no legal actions.
    seen = await view(api, tid, outsider)
    assert seen["seat"] is None and seen["deal"]["hand"] is None and seen["deal"]["hands"] is None
    assert seen["deal"]["legal_actions"] == []
    assert_problem(await api.get(f"/tables/{tid}/view", params={"seat": turn}, headers=outsider), 403, "not_your_seat")
    assert await stream_version(pool, tid) == before


# ---------------------------------------------------------------- races and retries


async def test_two_plays_sent_at_once_one_is_accepted_the_other_refused_cleanly(api, players, pool):
    tid = await open_table(api, players)
    rng, ids = random.Random(11), Ids()
    races = 0
    for _ in range(2000):
        public = await view(api, tid, players[0][1])
        turn = public["deal"]["turn"]
        mine = await view(api, tid, players[turn][1])
        plays = [a for a in mine["deal"]["legal_actions"] if a["type"] == "play" and not a.get("baloot")]
        if mine["deal"]["phase"] == "playing" and len(plays) >= 2:
            before = await stream_version(pool, tid)
            assert before == mine["version"]
            # A play that ends a trick may give the same seat the lead, and then the other card is legal
            # on the new state: such a race is only clean when both plays carry the version they were
            # decided on. Otherwise half the races carry it and half rely on the turn passing on.
            ends_trick = len(mine["deal"]["trick"]) == 3
            pinned = races % 2 == 1 or ends_trick
            extra = {"expected_version": before} if pinned else {}
            a, b = await asyncio.gather(act(api, tid, players[turn][1], plays[0], f"race-{races}-a", **extra),
                                        act(api, tid, players[turn][1], plays[1], f"race-{races}-b", **extra))
            assert sorted([a.status_code, b.status_code]) == [200, 409], (a.text, b.text)
            won, lost = (a, b) if a.status_code == 200 else (b, a)
            card = plays[0]["card"] if won is a else plays[1]["card"]
            problem = assert_problem(lost, 409)
            assert problem["rule"] in (("stale_version",) if pinned else ("not_your_turn", "stale_version"))
            # Exactly the winner's events are stored: one play (plus a deal's end if it was the last card).
            after = await stream_version(pool, tid)
            assert after == won.json()["version"]
            rows = await pool.fetch("SELECT event_type, data, metadata FROM events WHERE stream_id = $1 "
                                    "AND version > $2 ORDER BY version", f"table-{tid}", before)
            assert rows[0]["event_type"] == "card_played"
            assert json.loads(rows[0]["data"])["card"] == int_card(card)
            winner_id = f"race-{races}-a" if won is a else f"race-{races}-b"
            assert {json.loads(r["metadata"])["command_id"] for r in rows} == {winner_id}
            races += 1
            if races == 6:
                break
        assert await step(api, tid, players, rng, ids) is not None
    assert races == 6


def int_card(name: str) -> int:
    from domain.baloot.cards import parse_card
    return parse_card(name)


async def test_a_retried_command_id_returns_the_original_outcome_and_stores_nothing(api, players, pool):
    tid = await open_table(api, players)
    v = await view(api, tid, players[0][1])
    turn = v["deal"]["turn"]
    mine = await view(api, tid, players[turn][1])
    action = mine["deal"]["legal_actions"][-1]
    first = await act(api, tid, players[turn][1], action, "once")
    assert first.status_code == 200, first.text
    assert first.json()["replayed"] is False and first.json()["events"]
    stored = await stream_version(pool, tid)
    assert stored == first.json()["version"]

    again = await act(api, tid, players[turn][1], action, "once")
    assert again.status_code == 200, again.text
    assert again.json()["replayed"] is True and again.json()["version"] == first.json()["version"]
    assert await stream_version(pool, tid) == stored

    # After others have acted, the same id still names the first outcome; with another body it is refused.
    rng, ids = random.Random(3), Ids()
    for _ in range(3):
        await step(api, tid, players, rng, ids)
    moved = await stream_version(pool, tid)
    assert moved > stored
    late = await act(api, tid, players[turn][1], action, "once")
    assert late.status_code == 200, late.text
    assert late.json()["replayed"] is True and late.json()["version"] == first.json()["version"]
    passing = {"type": "bid", "bid": "pass"}
    other = passing if action != passing else {"type": "bid", "bid": "sun"}
    assert_problem(await act(api, tid, players[turn][1], other, "once"), 409, "command_id_reused")
    assert await stream_version(pool, tid) == moved
    count = await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1 AND metadata->>'command_id' = 'once'",
                                f"table-{tid}")
    assert count == len(first.json()["events"])


# ---------------------------------------------------------------- problem documents


async def test_an_illegal_card_is_refused_naming_the_rule_and_why(api, players, pool):
    tid = await open_table(api, players)
    mine, follow_card, other_card = await to_revoke_chance(api, tid, players, random.Random(5), Ids())
    seat = mine["seat"]
    before = await stream_version(pool, tid)
    r = await act(api, tid, players[seat][1], {"type": "play", "card": other_card}, "revoke-1")
    body = assert_problem(r, 409, "revoke")
    assert f"seat {seat}" in body["detail"] and "did not follow" in body["detail"]
    assert body["title"] == "the rules refuse this action"
    not_held = next(c for c in (f"{r}{s}" for r in "789TJQKA" for s in "SHDC") if c not in mine["deal"]["hand"])
    body = assert_problem(await act(api, tid, players[seat][1], {"type": "play", "card": not_held}, "nh"),
                          409, "card_not_held")
    assert f"seat {seat} does not hold" in body["detail"]
    assert await stream_version(pool, tid) == before
    ok = await act(api, tid, players[seat][1], {"type": "play", "card": follow_card}, "follow")
    assert ok.status_code == 200, ok.text


async def test_not_your_turn_and_stale_version_are_refused(api, players, pool):
    tid = await open_table(api, players)
    v = await view(api, tid, players[0][1])
    turn = v["deal"]["turn"]
    waiting = (turn + 2) & 3
    before = await stream_version(pool, tid)
    body = assert_problem(await act(api, tid, players[waiting][1], {"type": "bid", "bid": "pass"}, "early"),
                          409, "not_your_turn")
    assert f"seat {turn}'s turn" in body["detail"]
    body = assert_problem(await act(api, tid, players[turn][1], {"type": "bid", "bid": "pass"}, "stale",
                                    expected_version=before - 1), 409, "stale_version")
    assert body["version"] == before and str(before) in body["detail"]
    assert await stream_version(pool, tid) == before
    # The stale command id was not used up: sent again at the right version it is accepted.
    r = await act(api, tid, players[turn][1], {"type": "bid", "bid": "pass"}, "stale", expected_version=before)
    assert r.status_code == 200 and r.json()["replayed"] is False and r.json()["version"] == before + 1


async def test_unknown_table_and_deal_are_404(api, players):
    h = players[0][1]
    for r in (await api.get("/tables/nosuchtable/view", headers=h),
              await act(api, "nosuchtable", h, {"type": "bid", "bid": "pass"}, "u1"),
              await api.get("/tables/nosuchtable/deals", headers=h),
              await api.get("/tables/nosuchtable/state", params={"at": 1}, headers=h),
              await api.get("/tables/nosuchtable/live", headers=h)):
        body = assert_problem(r, 404, "unknown_table")
        assert "nosuchtable" in body["detail"]
    tid = await open_table(api, players)
    body = assert_problem(await api.get(f"/tables/{tid}/deals/7/record", headers=h), 404, "unknown_deal")
    assert "deal 7" in body["detail"]
    assert_problem(await api.get("/no/such/route", headers=h), 404, "not_found")


async def test_a_missing_or_bad_token_is_401(api, players):
    tid = await open_table(api, players)
    for headers in ({}, {"Authorization": "Bearer"}, {"Authorization": "Basic dXNlcjpwYXNz"},
                    {"Authorization": "Bearer not-a-token"}):
        for r in (await api.get(f"/tables/{tid}/view", headers=headers),
                  await act(api, tid, headers, {"type": "bid", "bid": "pass"}, "t1"),
                  await api.get("/me", headers=headers)):
            assert_problem(r, 401, "bad_token")


async def test_malformed_json_is_a_400_naming_the_malformed_body(api, players, pool):
    tid = await open_table(api, players)
    h = {**players[0][1], "content-type": "application/json"}
    before = await stream_version(pool, tid)
    for raw in (b'{"command_id": "m", "action": ', b"not json at all", b'{"command_id": "m",}'):
        body = assert_problem(await api.post(f"/tables/{tid}/commands", content=raw, headers=h), 400)
        # problems.py means JSON that does not decode to be `malformed_body`, not a generic `http_error`.
        assert body["rule"] == "malformed_body", body
    assert await stream_version(pool, tid) == before


async def test_invalid_fields_and_oversized_bodies(api, players, pool):
    tid = await open_table(api, players)
    h = {**players[0][1], "content-type": "application/json"}
    before = await stream_version(pool, tid)
    url = f"/tables/{tid}/commands"
    for payload, field in (({"command_id": "a b", "action": {"type": "bid", "bid": "pass"}}, "command_id"),
                           ({"command_id": "m", "action": {"type": "play", "card": "ZZ"}}, "action.card"),
                           ({"command_id": "m", "action": {"type": "fly"}}, "action.type"),
                           ({"command_id": "m", "action": {"type": "bid", "bid": "pass"}, "expected_version": -1},
                            "expected_version")):
        got = assert_problem(await api.post(url, json=payload, headers=players[0][1]), 400, "invalid_field",
                             field=field)
        assert got["errors"]
    assert_problem(await api.post("/users", json={"name": ""}), 400, "invalid_field", field="name")
    assert_problem(await api.post("/tables", json={"seats": ["a"]}, headers=players[0][1]), 400, "invalid_field",
                   field="seats")
    big = json.dumps({"command_id": "big", "action": {"type": "declare", "projects": [["7S"] * 3]},
                      "pad": "x" * MAX_BODY}).encode()
    assert_problem(await api.post(url, content=big, headers=h), 413, "body_too_large")
    assert await stream_version(pool, tid) == before


async def test_an_invalid_query_parameter_is_named_as_the_field(api, players):
    tid = await open_table(api, players)
    for path in (f"/tables/{tid}/view", f"/tables/{tid}/state"):
        for params in ({"seat": 9}, {"at": -1}):
            if "at" in params and path.endswith("view") or "seat" in params and path.endswith("state"):
                continue
            name = next(iter(params))
            body = assert_problem(await api.get(path, params=params, headers=players[0][1]), 400, "invalid_field")
            # A client reads `field` to point at its input: "query.seat", not Python's enum repr.
            assert body["field"] in (name, f"query.{name}"), body


async def test_the_rate_limit_is_per_token_and_answers_429(database_url, db_schema):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("minute", 3))
    async with AsyncTestClient(app=app, timeout=30) as client:
        _, first = await new_user(client, "first")          # tokenless requests share the address's bucket
        _, second = await new_user(client, "second")
        for _ in range(3):
            assert (await client.get("/me", headers=first)).status_code == 200
        body = assert_problem(await client.get("/me", headers=first), 429, "rate_limited")
        assert body["instance"] == "/me"
        assert (await client.get("/me", headers=second)).status_code == 200       # another token, another bucket
        assert (await client.get("/health")).status_code == 200                   # not limited


# ---------------------------------------------------------------- recorded tables, Qayd, rulings


async def test_a_referee_rules_qayd_on_a_stored_revoke_at_a_recorded_table(api, players, referee, pool):
    tid = await open_table(api, players, referee, mode="recorded")    # its creator, not seated: its referee
    mine, _, other_card = await to_revoke_chance(api, tid, players, random.Random(9), Ids())
    seat, d = mine["seat"], mine["deal"]
    index = action_count(d)
    r = await act(api, tid, players[seat][1], {"type": "play", "card": other_card}, "the-revoke")
    assert r.status_code == 200, r.text                      # stored as made, with its offence
    row = await pool.fetchrow("SELECT data FROM events WHERE stream_id = $1 AND version = $2", f"table-{tid}",
                              r.json()["version"])
    assert json.loads(row["data"])["offence"] == "revoke"

    # Only the referee rules; an opponent of the offender is named as the caller.
    ruling = {"command_id": "qayd-1", "ruling": {"type": "qayd", "seat": (seat + 1) & 3, "index": index}}
    assert_problem(await api.post(f"/tables/{tid}/rulings", json=ruling, headers=players[1][1]), 403, "not_referee")
    own = {"command_id": "qayd-own", "ruling": {"type": "qayd", "seat": (seat + 2) & 3, "index": index}}
    assert_problem(await api.post(f"/tables/{tid}/rulings", json=own, headers=referee), 409, "qayd_own_team")
    r = await api.post(f"/tables/{tid}/rulings", json=ruling, headers=referee)
    assert r.status_code == 200, r.text
    assert r.json()["events"][:2] == ["qayd_called", "deal_scored"]
    deals = (await api.get(f"/tables/{tid}/deals", headers=referee)).json()
    first = deals[0]
    assert first["finished"] and first["deal_no"] == 1
    offender, other = seat & 1, 1 - (seat & 1)
    assert first["game_points"][offender] == 0 and first["game_points"][other] > 0
    assert len(deals) == 2 and not deals[1]["finished"]    # the next deal is dealt

    audit = (await api.get(f"/tables/{tid}/deals/1/audit", headers=referee)).json()
    assert audit["chain_intact"] is True
    violations = audit["report"]["violations"]
    assert [(x["index"], x["seat"], x["rule"]) for x in violations] == [(index, seat, "revoke")]
    assert audit["report"]["qayd"][0]["proven"] is True and audit["report"]["qayd"][0]["index"] == index


async def test_an_unfounded_qayd_loses_the_deal_for_the_accusing_team(api, players, referee):
    tid = await open_table(api, players, referee, mode="recorded")
    rng, ids = random.Random(21), Ids()
    v = await play_until(api, tid, players, rng, ids,
                         lambda v: v["deal"]["phase"] == "playing" and len(v["deal"]["trick"]) == 1)
    leader = v["deal"]["trick"][0]["seat"]
    index = action_count(v["deal"]) - 1
    ruling = {"command_id": "q", "ruling": {"type": "qayd", "seat": (leader + 1) & 3, "index": index}}
    r = await api.post(f"/tables/{tid}/rulings", json=ruling, headers=referee)
    assert r.status_code == 200, r.text
    first = (await api.get(f"/tables/{tid}/deals", headers=referee)).json()[0]
    accusers = (leader + 1) & 1
    assert first["game_points"][accusers] == 0 and first["game_points"][1 - accusers] > 0


async def test_a_recorded_deal_waits_in_review_until_the_referee_records_the_result(api, players, referee, pool):
    tid = await open_table(api, players, referee, mode="recorded")
    rng, ids = random.Random(4), Ids()

    # The scripted players pick from the legal actions only, so the deal reaches review with no offence.
    v = await play_until(api, tid, players, rng, ids, lambda v: v["deal"]["phase"] == "review")
    assert v["deal"]["turn"] is None and sum(v["deal"]["tricks_won"]) == 8
    before = await stream_version(pool, tid)
    for seat in range(4):
        assert_problem(await act(api, tid, players[seat][1], {"type": "play", "card": "7S"}, f"r{seat}"), 409)
    assert await stream_version(pool, tid) == before
    r = await api.post(f"/tables/{tid}/rulings", json={"command_id": "rec", "ruling": {"type": "record_result"}},
                       headers=referee)
    assert r.status_code == 200, r.text
    assert r.json()["events"][0] == "deal_scored" and "deal_started" in r.json()["events"]
    deals = (await api.get(f"/tables/{tid}/deals", headers=referee)).json()
    assert deals[0]["finished"] and sum(deals[0]["game_points"]) > 0
    again = await api.post(f"/tables/{tid}/rulings",
                           json={"command_id": "rec2", "ruling": {"type": "record_result"}}, headers=referee)
    assert_problem(again, 409, "not_in_review")


async def test_qayd_is_refused_at_a_strict_table(api, players, referee):
    tid = await open_table(api, players, referee)
    await play_until(api, tid, players, random.Random(2), Ids(), lambda v: v["deal"]["phase"] == "playing")
    r = await api.post(f"/tables/{tid}/rulings", json={"command_id": "q", "ruling": {"type": "qayd", "seat": 0,
                                                                                    "index": 0}},
                       headers=referee)
    assert_problem(r, 409, "qayd_strict_table")


# ---------------------------------------------------------------- replays and audits


async def finished_deals(api, players, n: int = 1, **options) -> str:
    tid = await open_table(api, players, **options)
    await play_until(api, tid, players, random.Random(13), Ids(), lambda v: v["deal_no"] > n)
    return tid


async def test_replay_endpoints_list_deals_give_records_of_finished_ones_and_states(api, players):
    tid = await finished_deals(api, players)
    h = players[2][1]
    deals = (await api.get(f"/tables/{tid}/deals", headers=h)).json()
    assert [d["deal_no"] for d in deals] == [1, 2]
    assert deals[0]["finished"] and not deals[1]["finished"]
    assert deals[1]["first_version"] > deals[0]["first_version"]

    r = await api.get(f"/tables/{tid}/deals/1/record", headers=h)
    assert r.status_code == 200, r.text
    record = r.json()
    assert record["format"] == "baloot-hand/1" and len(record["deck"]) == 32 and record["seed"]
    assert record["dealer"] == deals[0]["dealer"]
    body = assert_problem(await api.get(f"/tables/{tid}/deals/2/record", headers=h), 409, "deal_in_progress")
    assert "deal 2" in body["detail"]
    assert_problem(await api.get(f"/tables/{tid}/deals/2/audit", headers=h), 409, "deal_in_progress")

    now = await view(api, tid, h)
    r = await api.get(f"/tables/{tid}/state", params={"at": deals[1]["first_version"]}, headers=h)
    assert r.status_code == 200
    state = r.json()
    assert state["version"] == deals[1]["first_version"] and state["deal_no"] == 2
    # A player replays from his own seat: his cards, never the others'.
    assert state["deal"]["phase"] == "bidding" and state["deal"]["hands"] is None and state["seat"] == 2
    last = (await api.get(f"/tables/{tid}/state", params={"at": now["version"]}, headers=h)).json()
    assert last["version"] == now["version"] and last["deal"]["bids"] == now["deal"]["bids"]
    zero = (await api.get(f"/tables/{tid}/state", params={"at": 0}, headers=h)).json()
    assert zero["version"] == 0 and zero["deal"] is None
    assert_problem(await api.get(f"/tables/{tid}/state", params={"at": now["version"] + 1}, headers=h), 404,
                   "not_yet_visible", field="at")


async def test_the_audit_of_a_stored_deal_checks_chain_seed_and_rules(api, players):
    tid = await finished_deals(api, players)
    r = await api.get(f"/tables/{tid}/deals/1/audit", headers=players[1][1])
    assert r.status_code == 200, r.text
    audit = r.json()
    assert audit["chain_intact"] is True and audit["first_broken_version"] is None
    assert audit["seed_check"] == "seed matches the commitment and the dealt hands"
    deals = (await api.get(f"/tables/{tid}/deals", headers=players[1][1])).json()
    assert audit["report"]["valid"] is True and audit["report"]["violations"] == []
    assert audit["report"]["complete"] is True
    assert list(audit["report"]["game_points"] or [0, 0]) == list(deals[0]["game_points"])


async def test_the_audit_detects_a_tampered_event(api, players, database_url, db_schema):
    tid = await finished_deals(api, players)
    deals = (await api.get(f"/tables/{tid}/deals", headers=players[0][1])).json()
    target = deals[0]["first_version"] + 1                  # the first action of deal 1
    conn = await asyncpg.connect(database_url, server_settings={"search_path": db_schema})
    try:
        before = await conn.fetchrow("SELECT event_type, data FROM events WHERE stream_id = $1 AND version = $2",
                                     f"table-{tid}", target)
        assert before["event_type"] == "bid_made"
        # The log refuses changes; a superuser switches the guard off to forge one, then restores it.
        with pytest.raises(asyncpg.PostgresError, match="append-only"):
            await conn.execute("UPDATE events SET metadata = '{}' WHERE stream_id = $1 AND version = $2",
                               f"table-{tid}", target)
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        try:
            data = json.loads(before["data"])
            data["bid"] = "pass" if data["bid"] != "pass" else "sun"
            await conn.execute("UPDATE events SET data = $3::jsonb WHERE stream_id = $1 AND version = $2",
                               f"table-{tid}", target, json.dumps(data))
        finally:
            await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
        triggers = await conn.fetchval("SELECT tgenabled FROM pg_trigger WHERE tgname = 'events_append_only' "
                                       "AND tgrelid = 'events'::regclass")
        assert triggers == b"O"
    finally:
        await conn.close()
    r = await api.get(f"/tables/{tid}/deals/1/audit", headers=players[0][1])
    assert r.status_code == 200, r.text
    audit = r.json()
    assert audit["chain_intact"] is False and audit["first_broken_version"] == target


async def test_post_audit_of_uploaded_hand_records(api, players):
    tid = await finished_deals(api, players)
    h = players[3][1]
    record = (await api.get(f"/tables/{tid}/deals/1/record", headers=h)).json()
    stored = (await api.get(f"/tables/{tid}/deals/1/audit", headers=h)).json()["report"]

    r = await api.post("/audit", json=record, headers=h)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["valid"] is True and report["violations"] == []
    assert report["game_points"] == stored["game_points"] and report["actions"] == stored["actions"]

    # The same deal where a play is changed to a card the seat does not hold: reported, not refused.
    forged = json.loads(json.dumps(record))
    plays = [i for i, a in enumerate(forged["actions"]) if "play" in a]
    k = plays[5]
    seat = forged["actions"][k]["seat"]
    held_later = {a["play"] for a in forged["actions"] if a.get("seat") == seat and "play" in a}
    forged["actions"][k]["play"] = next(c for c in forged["deck"] if c not in held_later)
    r = await api.post("/audit", json=forged, headers=h)
    assert r.status_code == 200, r.text
    bad = r.json()
    assert bad["valid"] is False and bad["violations"]
    assert bad["violations"][0]["index"] <= k and bad["violations"][0]["rule"]

    wrong_card = {**record, "deck": record["deck"][:3] + ["ZZ"] + record["deck"][4:]}
    body = assert_problem(await api.post("/audit", json=wrong_card, headers=h), 400, "malformed_record",
                          field="deck[3]")
    assert "deck" in body["detail"]
    assert_problem(await api.post("/audit", json={**record, "extra": 1}, headers=h), 400, "malformed_record")
    assert_problem(await api.post("/audit", content=b"{not json", headers=h), 400, "malformed_record")


async def test_post_audit_names_a_missing_field(api, players):
    tid = await finished_deals(api, players)
    h = players[3][1]
    record = (await api.get(f"/tables/{tid}/deals/1/record", headers=h)).json()
    for name in ("actions", "deck", "dealer"):
        missing = {k: v for k, v in record.items() if k != name}
        body = assert_problem(await api.post("/audit", json=missing, headers=h), 400, "malformed_record")
        assert name in body["detail"]
        assert body["field"] == name, body
