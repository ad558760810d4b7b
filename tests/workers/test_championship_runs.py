"""Championships run by the workers alone (real PostgreSQL, in-process broker): ticks move them on, bots
play, no-shows forfeit when check-in closes, a tick delivered twice has one effect, and the standings
read model written by the projection runner equals a rebuild from the log."""

from __future__ import annotations

import asyncio
from collections import Counter

import msgspec
from litestar.testing import AsyncTestClient

from domain.tournament import CreateChampionship, RoundSlot, Settings, StartRound
from projections import standings as standings_projection
from services.api.app import create_app
from services.tokens import create_user
from services.championships import (
    CHECK_IN_CODEC,
    CODEC,
    RunSettings,
    championship_id_for,
    check_in_stream,
    stream_of,
)
from services.eventstore import read_stream, rebuild_projection
from services.workers.projections import standings_read_model
from tests.api.conftest import schema_url
from tests.workers.conftest import db_now, new_championship, register_teams


async def event_types(pool, stream: str) -> Counter:
    return Counter(r.event_type for r in await read_stream(pool, stream))


async def standings_rows(pool) -> dict[str, tuple[int, list]]:
    return {r["championship_id"]: (r["version"], msgspec.json.decode(r["standings"]))
            for r in await pool.fetch("SELECT championship_id, version, standings::text FROM standings_rm")}


async def test_sixteen_bot_teams_play_from_registration_to_champion_with_only_the_workers(
        running, plain_services, pool):
    svc = plain_services
    cid = await new_championship(svc, pool, "Bots Cup", round_1_at=await db_now(pool),
                                 run=RunSettings(check_in_seconds=1.0))
    teams = await register_teams(svc, pool, cid, 16, "bot")
    assert (await svc.load(cid)).state.status == "registration"

    assert await running.workers.reconcile() >= 1          # the only nudge: the reconciler's tick
    await running.drain()

    champ = await svc.load(cid)
    state = champ.state
    assert state.status == "finished" and state.champion in teams
    assert [len(r.matches) for r in state.rounds] == [8, 4, 2, 1]
    outcomes = [r.outcomes[m.index] for r in state.rounds for m in r.matches]
    assert all(o.kind == "played" for o in outcomes)        # bots checked in by themselves: no forfeit
    assert sorted(e.team_id for e in state.ranking) == sorted(teams)
    # Every match was played at one table by bots only, to its end; nothing is left live.
    tables = await pool.fetch("SELECT table_id, status FROM tables_index WHERE championship_id = $1", cid)
    assert len(tables) == 15 and {t["status"] for t in tables} == {"finished"}
    for t in tables:
        table = await svc.tables.load(t["table_id"])
        assert table.opened.bots == ("normal",) * 4 and table.game.phase == "ended"
    # Each step happened once.
    kinds = await event_types(pool, stream_of(cid))
    assert kinds["registration_closed"] == kinds["draw_made"] == kinds["championship_finished"] == 1
    assert kinds["round_paired"] == 4 and kinds["match_result_recorded"] == 15
    check_ins = await event_types(pool, check_in_stream(cid))
    assert check_ins["player_checked_in"] == 4 * 15          # a window closes only on a round still playing
    assert check_ins["check_in_closed"] <= 4

    # The standings read model, written by the projection runner, equals the fold of the log ...
    await running.projection_caught_up(pool)
    live = await standings_rows(pool)
    fold = standings_projection.initial()
    for r in await read_stream(pool, stream_of(cid)):
        fold = standings_projection.evolve(fold, CODEC.decode(r))
    expected = msgspec.json.decode(msgspec.json.encode(standings_projection.table(fold)))
    assert live[cid] == (champ.version, expected)
    assert expected[0]["team_id"] == state.champion and expected[0]["wins"] == 4
    # ... and a rebuild from the log (once the worker, which holds the projection, has stopped).
    await running.stop()
    await rebuild_projection(pool, standings_read_model())
    assert await standings_rows(pool) == live


async def test_a_team_that_has_not_checked_in_when_the_window_closes_forfeits(
        running, plain_services, pool, database_url, db_schema):
    svc = plain_services
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000))
    async with AsyncTestClient(app=app, timeout=30) as api:
        # Created over HTTP: round 1 scheduled now, a check-in window of two seconds from the round's start.
        _, token = await create_user(pool, "organiser")
        r = await api.post("/championships", headers={"Authorization": f"Bearer {token}"}, json={
            "command_id": "create", "name": "Check-in Cup", "check_in_seconds": 2.0,
            "schedule": [{"round": 1, "starts_at": (await db_now(pool)).isoformat()}]})
        assert r.status_code == 201, r.text
        assert r.json()["summary"]["run"]["check_in_seconds"] == 2.0
        cid = r.json()["championship_id"]
        teams = await register_teams(svc, pool, cid, 4, "human")

        # A tick delivered now (the actor's own code, in the test's loop) starts round 1 and its check-in.
        assert await running.workers.schedules.tick(cid) == "round 1 checking in"
        state = (await svc.load(cid)).state
        (m1, m2) = state.rounds[0].matches
        a, b, c, d = m1.team_a, m1.team_b, m2.team_a, m2.team_b
        (a1, a1_token), (a2, _) = teams[a]
        (b1, _), _ = teams[b]

        # Team A checks in fully (one player over HTTP, twice), team B only half; nobody from C or D.
        url = f"/championships/{cid}/matches/{m1.match_id}/check-in"
        auth = {"Authorization": f"Bearer {a1_token}"}
        r = await api.post(url, json={"command_id": "in-1"}, headers=auth)
        assert r.status_code == 200, r.text
        assert r.json()["checked_in"] == [a1.user_id] and r.json()["replayed"] is False
        r = await api.post(url, json={"command_id": "in-2"}, headers=auth)
        assert r.json()["replayed"] is True
        r = await api.post(f"/championships/{cid}/matches/{m2.match_id}/check-in", json={"command_id": "in-3"},
                           headers=auth)
        assert r.status_code == 403 and r.json()["rule"] == "not_in_match"
    await svc.check_ins.check_in(cid, m1.match_id, a2.user_id, by=a2.user_id)
    await svc.check_ins.check_in(cid, m1.match_id, b1.user_id, by=b1.user_id)
    assert await svc.matches.tables_of(cid) == []             # a table opens only once both teams are in

    await running.drain()                                 # the window closes: the delayed tick runs

    checks = await svc.check_ins.of(cid)
    assert sorted(checks.closed[1]) == sorted([b, c, d])
    champ = await svc.load(cid)
    round_1 = champ.state.rounds[0]
    o1, o2 = round_1.outcomes[0], round_1.outcomes[1]
    assert (o1.kind, o1.winner, o1.losers) == ("forfeit", a, (b,))
    assert (o2.kind, o2.winner) == ("double_forfeit", None)
    events = [CODEC.decode(r) for r in await read_stream(pool, stream_of(cid))]
    assert [e.reason for e in events if type(e).__name__ == "MatchForfeited"] == ["did not check in"]
    # The final is a walkover: A is champion without a table ever opening.
    assert champ.state.status == "finished" and champ.state.champion == a
    assert await svc.matches.tables_of(cid) == []
    # More ticks change nothing.
    version = champ.version
    assert await asyncio.gather(*(running.workers.schedules.tick(cid) for _ in range(3))) == ["finished"] * 3
    assert (await svc.load(cid)).version == version
    closed = [CHECK_IN_CODEC.decode(r) for r in await read_stream(pool, check_in_stream(cid))]
    assert sum(type(e).__name__ == "CheckInClosed" for e in closed) == 1


async def test_a_tick_delivered_twice_has_one_effect(running, plain_services, pool):
    svc = plain_services
    cid = await new_championship(svc, pool, "Twice Cup", round_1_at=await db_now(pool))
    await register_teams(svc, pool, cid, 4, "human")
    tick = running.workers.schedules.championship_tick

    message = tick.message(cid)
    running.broker.enqueue(message)
    running.broker.enqueue(message)                       # the same message, redelivered
    tick.send(cid)
    await asyncio.gather(*(running.workers.schedules.tick(cid) for _ in range(2)))   # and two at once here
    await running.drain()

    champ = await svc.load(cid)
    kinds = await event_types(pool, stream_of(cid))
    assert kinds == {"championship_created": 1, "team_registered": 4, "registration_closed": 1,
                     "draw_committed": 1, "draw_made": 1, "round_paired": 1}
    tables = await svc.matches.tables_of(cid)
    assert sorted(t["match_id"] for t in tables) == ["1-1", "1-2"]
    for t in tables:
        assert (await event_types(pool, f"table-{t['table_id']}"))["table_opened"] == 1

    for _ in range(2):
        running.broker.enqueue(message)
    await running.workers.reconcile()
    await running.drain()
    assert (await svc.load(cid)).version == champ.version
    assert len(await svc.matches.tables_of(cid)) == 2


async def test_a_command_stored_by_another_process_while_this_one_decided_it_is_a_replay(pool, monkeypatch):
    """Two processes step the same match result (the game-end hook and a full tick): the one whose fold was
    read before the other's append decides from an older state, so the same command id gives other events
    (here one team more). The log refuses that append as not an exact retry; the command is then known as
    already done (no error logged as a failed step, nothing stored twice)."""
    from domain.tournament import RegisterTeam
    from services.platform import Platform

    first, second = (await Platform.on(pool)).championships, (await Platform.on(pool)).championships
    cid = await new_championship(first, pool, "Race Cup")
    before = await second.load(cid)                            # the second process's fold, read first
    await first.execute(cid, "register-both", lambda _: [RegisterTeam("T1", ("u1", "u2"))], actor="organiser")
    stored = (await first.load(cid)).version

    reads = iter([before])
    load = second.load

    async def older_first(*args, **kw):                       # its first read is the one from before
        return next(reads, None) or await load(*args, **kw)
    monkeypatch.setattr(second, "load", older_first)
    outcome, champ = await second.execute(
        cid, "register-both", lambda _: [RegisterTeam("T1", ("u1", "u2")), RegisterTeam("T2", ("u3", "u4"))],
        actor="organiser")
    assert outcome.replayed and outcome.version == stored
    assert champ.version == stored and champ.state.teams.get("T1") and champ.state.teams.get("T2") is None
    assert (await event_types(pool, stream_of(cid)))["team_registered"] == 1


async def test_a_schedule_from_round_2_leaves_round_1_to_its_organiser_and_runs_the_rest(
        running, plain_services, pool):
    """The console's "the next rounds start as soon as the last one is decided" with no time for round 1: a
    schedule whose first slot is round 2. The workers' ticks leave registration, the draw and round 1 to the
    organiser; once round 1 is decided they start round 2 (nobody asks) and finish the championship."""
    svc = plain_services
    organiser, _ = await create_user(pool, "organiser of Quick Cup")
    cid = championship_id_for(organiser.user_id, "create")
    settings = Settings(name="Quick Cup", schedule=(RoundSlot(2, (await db_now(pool)).isoformat()),))
    await svc.execute(cid, "create", lambda _: [CreateChampionship(cid, settings)], actor=organiser.user_id,
                      new=True, metadata={"run": msgspec.to_builtins(RunSettings())})
    await register_teams(svc, pool, cid, 4, "bot")

    assert await running.workers.reconcile() >= 1
    await running.drain()
    assert (await svc.load(cid)).state.status == "registration"          # round 1 is hers
    await svc.execute(cid, "close", lambda c: svc.close_registration(cid, c), actor=organiser.user_id)
    await svc.execute(cid, "draw", lambda c: [svc.make_draw(cid, c, {})], actor=organiser.user_id)
    await svc.execute(cid, "round-1", lambda _: [StartRound(1)], actor=organiser.user_id)
    assert await running.workers.reconcile() >= 1                        # a full tick opens round 1's tables
    await running.drain()

    state = (await svc.load(cid)).state
    assert state.status == "finished" and [len(r.matches) for r in state.rounds] == [2, 1]
    paired = [(r.metadata["actor"], r.metadata["command_id"]) for r in await read_stream(pool, stream_of(cid))
              if r.event_type == "round_paired"]
    assert paired == [(organiser.user_id, "round-1"), ("schedule", "tick/round-2/start")]
