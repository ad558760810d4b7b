"""The duplicate championship format over HTTP against real PostgreSQL: teams of four (a pair at each table),
a match at two tables of the round's boards with the seats swapped, run to its winner by the workers."""

from __future__ import annotations

import pytest

from domain.baloot.events import DealScored, DealStarted, DealVoided, SeedRevealed
from domain.tournament import duplicate
from domain.tournament.events import MatchResultRecorded
from services.championships import CODEC, stream_of
from services.eventstore import read_stream
from services.tables.service import CODEC as TABLE_CODEC
from services.tables.service import stream_of as table_stream
from tests.api.conftest import new_user
from tests.api.test_championships import command, create
from tests.workers.conftest import Running, db_now, schema_url


@pytest.fixture
async def running(database_url, db_schema):
    run = Running(schema_url(database_url, db_schema))
    try:
        yield run
    finally:
        await run.stop()


async def teams_of_four(api, n: int) -> list[list[tuple[str, dict]]]:
    return [[await new_user(api, f"team {t} player {p}") for p in range(4)] for t in range(n)]


async def register(api, cid: str, organiser: dict, players: list[str], team_id: str):
    return await api.post(f"/championships/{cid}/teams", headers=organiser,
                          json={"command_id": f"register-{team_id}", "team_id": team_id, "players": players})


async def table_boards(pool, table_id: str) -> tuple[list[tuple], list[tuple[int, int]]]:
    """From a table's stream alone: each deal's (commitment, dealer, revealed seed), and each deal's game
    points (seats 0+2, seats 1+3; a void deal scores nothing)."""
    deals, points, seeds = [], [], []
    for r in await read_stream(pool, table_stream(table_id)):
        e = TABLE_CODEC.decode(r)
        if isinstance(e, DealStarted):
            deals.append((e.commitment, e.dealer))
        elif isinstance(e, DealScored):
            points.append(tuple(e.result.game_points))
        elif isinstance(e, DealVoided):
            points.append((0, 0))
        elif isinstance(e, SeedRevealed):
            seeds.append(e.seed)
    return [(c, d, s) for (c, d), s in zip(deals, seeds, strict=True)], points


async def test_eight_bot_teams_of_four_play_a_duplicate_championship_to_its_winner(api, running, pool):
    organiser = (await new_user(api, "organiser"))[1]
    cid = await create(api, organiser, format="duplicate", duplicate_boards=2, swiss_rounds=3,
                       schedule=[{"round": 1, "starts_at": (await db_now(pool)).isoformat()}])
    # A team of two is refused for a duplicate event, naming the field, and nothing is stored.
    version = (await api.get(f"/championships/{cid}", headers=organiser)).json()["version"]
    users = await pool.fetchval("SELECT count(*) FROM users")
    r = await register(api, cid, organiser, ["bot", "bot"], "T0")
    assert r.status_code == 422, r.text
    assert r.json()["rule"] == "team_players" and r.json()["field"] == "players"
    after = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    assert after["version"] == version and after["teams"] == [] and await pool.fetchval(
        "SELECT count(*) FROM users") == users

    for k in range(8):                                   # eight teams of four bots, made by the server
        r = await register(api, cid, organiser, ["bot"] * 4, f"T{k + 1}")
        assert r.status_code == 201, r.text
    assert await running.workers.reconcile() >= 1
    await running.drain()

    champ = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    assert champ["status"] == "finished" and champ["settings"]["duplicate_boards"] == 2
    assert champ["champion"] in {f"T{k}" for k in range(1, 9)}
    players = {t["team_id"]: t["players"] for t in champ["teams"]}

    events = [CODEC.decode(r) for r in await read_stream(pool, stream_of(cid))]
    results = {e.match_id: e.result for e in events if isinstance(e, MatchResultRecorded)}
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    assert len(matches) == 12 and len(results) == 12              # 3 rounds of 4 matches, each played
    round_boards: dict[int, list] = {}
    for m in matches:
        a, b = players[m["team_a"]], players[m["team_b"]]
        t1, t2 = sorted(m["tables"], key=lambda t: t["game_no"])
        # Seats swapped: A's pair 1 holds seats 0+2 at table 1, A's pair 2 seats 1+3 at table 2.
        assert t1["seats"] == [a[0], b[2], a[1], b[3]] and t2["seats"] == [b[0], a[2], b[1], a[3]]
        assert t1["status"] == t2["status"] == "finished"
        boards_1, points_1 = await table_boards(pool, t1["table_id"])
        boards_2, points_2 = await table_boards(pool, t2["table_id"])
        # The same boards at both tables (commitment, dealer, seed: the same cards in the same seats) ...
        assert boards_1 == boards_2 and len(boards_1) == len(points_1) == len(points_2) == 2
        assert [d for _, d, _ in boards_1] == [0, 1]
        # ... and at every match of the round.
        assert round_boards.setdefault(m["round"], boards_1) == boards_1
        # The recorded result is the duplicate result of each board's GP over both tables.
        boards = [(p1[0] + p2[1], p1[1] + p2[0]) for p1, p2 in zip(points_1, points_2)]
        assert results[m["match_id"]] == duplicate.duplicate_result(boards)
    assert len({tuple(b) for b in round_boards.values()}) == 3    # each round has its own boards
    # No table stored a board's seed before every match of its round was decided: a seed is every other
    # table's cards (the tables held them back, and revealed them all once the round was decided).
    rows = await read_stream(pool, stream_of(cid))
    decided_at = {}
    for r in rows:
        e = CODEC.decode(r)
        if isinstance(e, MatchResultRecorded):
            n = int(e.match_id.split("-")[0])
            decided_at[n] = max(decided_at.get(n, 0), r.position)
    for m in matches:
        for t in m["tables"]:
            first_seed = await pool.fetchval("SELECT min(position) FROM events WHERE stream_id = $1 "
                                             "AND event_type = 'seed_revealed'", table_stream(t["table_id"]))
            assert first_seed > decided_at[m["round"]], (m["match_id"], t["table_id"])


async def test_a_player_cannot_see_the_other_table_of_his_match_while_it_is_on(api, pool):
    organiser = (await new_user(api, "organiser"))[1]
    cid = await create(api, organiser, format="duplicate", duplicate_boards=2)
    teams = await teams_of_four(api, 2)
    for k, team in enumerate(teams):
        r = await register(api, cid, organiser, [uid for uid, _ in team], f"T{k + 1}")
        assert r.status_code == 201, r.text
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    (m,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    t1, t2 = sorted(m["tables"], key=lambda t: t["game_no"])
    seated_1 = {uid: h for team in teams for uid, h in team if uid in t1["seats"]}
    assert len(seated_1) == 4

    for uid, headers in seated_1.items():
        for path in ("view", "deals", "deals/1/record"):
            r = await api.get(f"/tables/{t2['table_id']}/{path}", headers=headers)
            assert r.status_code == 403 and r.json()["rule"] == "board_hidden", (path, r.text)
        r = await api.get(f"/tables/{t1['table_id']}/view", headers=headers)
        assert r.status_code == 200, r.text
        assert r.json()["deal"]["hand"], "a player sees his own hand at his own table"
    # Nor may anyone else, registered or not (another account of a player would be anyone else), by any route;
    # the event's officials may (they rule on disputes at either table).
    _, outsider = await new_user(api, "spectator")
    for path in ("view", "state?at=3", "deals", "deals/1/record", "receipts", "live"):
        r = await api.get(f"/tables/{t2['table_id']}/{path}", headers=outsider)
        assert r.status_code == 403 and r.json()["rule"] == "board_hidden", (path, r.text)
    r = await api.get(f"/tables/{t2['table_id']}/view", headers=organiser)
    assert r.status_code == 200 and r.json()["seat"] is None and not r.json()["deal"]["hand"], r.text


async def test_the_openapi_document_lists_the_duplicate_format(api):
    doc = (await api.get("/schema/openapi.json")).json()
    assert "duplicate" in str(doc["components"]["schemas"]["NewChampionship"])
