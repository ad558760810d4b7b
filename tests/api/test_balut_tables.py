"""Balut tables through the same API as the card game, on real PostgreSQL (in-process app): a whole game of
three seats, one of them a bot played by the bot worker's own actor; what each caller sees (every sheet and
throw, never the dice of throws to come: a turn's seed stays secret until its row is written); the game's
record and audit; bad commands as problem documents that store nothing.

The dice are checked the way any player could: from each turn's revealed seed, by the published
``balut-dice/1`` algorithm written out here again (not the engine's code), against the dice the players saw.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from services.tables.pending import pending_work
from tests.api.conftest import new_user, open_table
from tests.api.test_tables import Ids, act, assert_problem, stream_version, view
from tests.workers.helpers import in_process, schema_url

ROWS = ("fours", "fives", "sixes", "straight", "house", "choice", "balut")


def commitment(seed: str) -> str:
    """``SHA-256("balut-seed/1:" + seed)`` in hex (docs/balut.md)."""
    return hashlib.sha256(b"balut-seed/1:" + seed.encode()).hexdigest()


def faces(seed: str) -> list[int]:
    """The 15 faces of a turn: bytes of SHA-256("balut-dice/1:" + seed + ":" + block), 252 and above
    skipped, each b % 6 + 1 (docs/balut.md)."""
    out: list[int] = []
    block = 0
    while len(out) < 15:
        digest = hashlib.sha256(f"balut-dice/1:{seed}:".encode() + block.to_bytes(8, "big")).digest()
        out += [b % 6 + 1 for b in digest if b < 252]
        block += 1
    return out[:15]


@pytest.fixture
async def bot_worker(database_url, db_schema):
    """The workers' actors on this test's schema (called directly, as the broker would)."""
    async with in_process(schema_url(database_url, db_schema)) as rig:
        yield rig


async def stored(pool) -> int:
    return await pool.fetchval("SELECT count(*) FROM events")


async def test_three_seats_one_a_bot_play_a_whole_balut_game_through_the_api(api, pool, bot_worker):
    humans = [await new_user(api, f"player {i}") for i in range(2)]
    spectator = (await new_user(api, "spectator"))[1]
    seats = [humans[0][0], "bot", humans[1][0]]
    # No pace: the test plays the bot's turns itself, as soon as they come.
    r = await api.post("/tables", json={"game": "balut", "seats": seats, "bot_level": "strong",
                                        "bot_pace_seconds": 0}, headers=humans[0][1])
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "invited" and r.json()["waiting"] == [humans[1][0]]
    tid = r.json()["table_id"]
    assert (await api.post(f"/tables/{tid}/accept", headers=humans[1][1])).status_code == 200

    rng = random.Random("balut-api")
    ids = Ids()
    bodies: list[tuple[str, str]] = []          # (the turn's commitment, a response body seen during it)
    throws: list[tuple[str, list[int], list[int]]] = []    # (commitment, keep, dice after the throw)
    svc = await bot_worker.tables()
    for _ in range(500):
        public = await view(api, tid, spectator)
        assert public["game"] == "balut" and public["seat"] is None and public["legal_actions"] == []
        if public["phase"] == "ended":
            break
        seat = public["turn"]
        assert public["seed"] is None and public["commitment"]       # the turn's seed is not out yet
        if seat == 1:
            table = await svc.load(tid)
            work = pending_work(table)
            assert work.kind == "bot" and work.seat == 1
            assert await bot_worker.workers.play_bot_turn(tid, work.version) == "done"
            after = await view(api, tid, spectator)
            if after["turn"] == 1 and after["throws"] > public["throws"]:
                throws.append((public["commitment"], None, after["dice"]))
            continue
        headers = humans[0 if seat == 0 else 1][1]
        mine = await view(api, tid, headers)
        assert mine["seat"] == seat and mine["turn"] == seat
        bodies.append((mine["commitment"], json.dumps(mine)))
        assert "faces" not in mine
        actions = mine["legal_actions"]
        rolls = [a for a in actions if a["type"] == "roll"]
        scores = [a for a in actions if a["type"] == "score"]
        action = rolls[0] if not scores else rng.choice(rolls) if rolls and rng.random() < 0.6 else rng.choice(scores)
        r = await act(api, tid, headers, action, ids())
        assert r.status_code == 200, r.text
        body = r.json()
        if action["type"] == "roll":
            bodies.append((mine["commitment"], r.text))
            throws.append((mine["commitment"], action.get("keep", []), body["view"]["dice"]))
            assert body["events"] == ["balut_dice_rolled"]
        else:
            # Writing the row ends the turn: its seed is revealed and the next turn commits to a new one.
            assert body["events"][0] == "balut_category_scored" and "balut_seed_revealed" in body["events"]
    final = await view(api, tid, spectator)
    assert final["phase"] == "ended" and final["status"] == "finished"

    # Every sheet is full; the result ranks the totals the rows add up to (summed here, from the rows).
    totals = [sum(sum(row) for row in sheet["rows"].values()) for sheet in final["sheets"]]
    assert all(len(sheet["rows"][row]) == 1 for sheet in final["sheets"] for row in ROWS)
    assert final["result"]["totals"] == totals
    best = max(final["result"]["points"])
    assert final["result"]["winners"] == [s for s, p in enumerate(final["result"]["points"]) if p == best]

    # The record: 21 turns, each seed matching its commitment; the dice every player saw follow from it.
    record = (await api.get(f"/tables/{tid}/record", headers=spectator)).json()
    assert record["format"] == "balut-game/1" and record["players"] == 3 and len(record["turns"]) == 21
    seeds = {t["commitment"]: t["seed"] for t in record["turns"]}
    assert all(commitment(seed) == c for c, seed in seeds.items())
    dice_before: dict[str, list[int]] = {}
    thrown: dict[str, int] = {}
    checked = 0
    for c, keep, dice in throws:
        table, n = faces(seeds[c]), thrown.get(c, 0)            # n: this turn's throws before this one
        if keep is not None:                                    # a human's throw (the bot's keep is unseen)
            prev = dice_before.get(c, [0] * 5)
            assert dice == [prev[p] if p in keep else table[5 * n + p] for p in range(5)]
            checked += 1
        dice_before[c], thrown[c] = dice, n + 1
    assert checked > 14 and any(keep for _, keep, _ in throws)
    # Nobody saw a turn's seed before its row was written.
    for c, text in bodies:
        assert seeds[c] not in text

    audit = (await api.get(f"/tables/{tid}/audit", headers=humans[0][1])).json()
    assert audit["chain_intact"] is True and audit["valid"] is True and audit["format"] == "balut-game/1"
    assert audit["report"]["violations"] == []
    # The game's end was signed; no checkpoint has been published in this test yet.
    assert audit["anchor"] == {"ok": True, "receipt": "matches", "checkpoint": "not_covered",
                               "receipt_detail": f"the signed receipt matches the stored head at version "
                                                 f"{await stream_version(pool, tid)}",
                               "checkpoint_detail": "no signed checkpoint covers it yet"}
    upload = await api.post("/audit", content=json.dumps(record), headers=spectator)
    assert upload.status_code == 200 and upload.json()["valid"] is True

    # The stream, replayed step by step and live (the game is over: /live sends every view, then `end`).
    # Versions 1-5: proposed, accepted, opened, the game started, the first turn committed to its seed.
    replayed = [(await api.get(f"/tables/{tid}/state", params={"at": at}, headers=spectator)).json()
                for at in (3, 5)]
    assert [(v["phase"], v["round"], v["throws"]) for v in replayed] == [("new", 0, 0), ("playing", 1, 0)]
    assert replayed[1]["seed"] is None and replayed[1]["commitment"] in seeds
    sse = await api.get(f"/tables/{tid}/live", headers=spectator)
    events = [line.removeprefix("event: ") for line in sse.text.splitlines() if line.startswith("event: ")]
    assert events[-1] == "end" and events.count("view") == final["version"]
    for line in sse.text.splitlines():
        if line.startswith("data: {"):
            v = json.loads(line.removeprefix("data: "))
            if v.get("commitment") and v.get("seed") is None:
                assert seeds[v["commitment"]] not in line


async def test_a_balut_table_refuses_bad_commands_with_problems_and_stores_nothing(api, pool):
    a, b = await new_user(api, "a"), await new_user(api, "b")
    tid = await open_table(api, [a, b], game="balut")
    first = (await view(api, tid, a[1]))["turn"]
    me, other = (a, b) if first == 0 else (b, a)
    ids = Ids("bad")
    before = await stored(pool)
    cases = [
        (other[1], {"type": "roll"}, 409, "not_your_turn"),
        (me[1], {"type": "roll", "keep": [0]}, 409, "first_throw_all_dice"),
        (me[1], {"type": "score", "category": "choice"}, 409, "throw_first"),
        (me[1], {"type": "play", "card": "AS"}, 409, "unknown_command"),
    ]
    for headers, action, status, rule in cases:
        assert_problem(await act(api, tid, headers, action, ids()), status, rule)
    assert_problem(await act(api, tid, me[1], {"type": "roll", "keep": [5]}, ids()), 400, "invalid_field")
    assert_problem(await act(api, tid, me[1], {"type": "score", "category": "yahtzee"}, ids()), 400,
                   "invalid_field")
    assert await stored(pool) == before
    assert (await act(api, tid, me[1], {"type": "roll"}, ids())).status_code == 200
    before = await stored(pool)
    assert_problem(await act(api, tid, me[1], {"type": "roll", "keep": [1, 1]}, ids()), 409, "bad_keep")
    assert_problem(await act(api, tid, me[1], {"type": "roll", "keep": [0, 1, 2, 3, 4]}, ids()), 409,
                   "nothing_to_throw")
    assert_problem(await api.get(f"/tables/{tid}/record", headers=me[1]), 409, "game_in_progress")
    assert_problem(await api.get(f"/tables/{tid}/audit", headers=me[1]), 409, "game_in_progress")
    assert_problem(await api.get(f"/tables/{tid}/view", params={"seat": 1 - first}, headers=me[1]), 403,
                   "not_your_seat")
    assert await stored(pool) == before


@pytest.mark.parametrize("options, field", [
    ({"seats": 1}, "seats"),
    ({"seats": 9}, "seats"),
    ({"seats": 3, "profile": "saudi"}, "profile"),
    ({"seats": 3, "mode": "recorded"}, "mode"),
    ({"seats": 3, "on_timeout": "forfeit", "turn_seconds": 30}, "on_timeout"),
    ({"seats": 3, "bot_level": "hard"}, "bot_level"),
    ({"seats": 3, "switches": {"fills": "many"}}, "switches"),
])
async def test_a_balut_table_is_opened_only_with_what_the_game_takes(api, pool, options, field):
    users = [(await new_user(api, f"u{i}"))[0] for i in range(options.pop("seats"))]
    headers = (await new_user(api, "host"))[1]
    before = await stored(pool)
    r = await api.post("/tables", json={"game": "balut", "seats": users, **options}, headers=headers)
    assert_problem(r, 400, "invalid_field", field=field)
    assert await stored(pool) == before


async def test_the_card_games_records_stay_per_deal(api, players):
    tid = await open_table(api, players)
    assert (await view(api, tid, players[0][1]))["game"] == "baloot"
    assert_problem(await api.get(f"/tables/{tid}/record", headers=players[0][1]), 409, "records_per_deal")
    assert_problem(await act(api, tid, players[0][1], {"type": "roll"}, "r1"), 409)
