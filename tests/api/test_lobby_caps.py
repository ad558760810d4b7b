"""The caps on proposals waiting for answers (issue 45, item 17): per proposer, per proposer and invitee, per
invitee, for tables and for teams; a refused proposal stores nothing, and a person's lobby shows every
invitation waiting for him, his real one among a stranger's flood included."""

from __future__ import annotations

import asyncio

from domain.baloot.profiles import SAUDI
from domain.table import TableOpened
from services.errors import Conflict
from services.platform import Platform
from services.proposals import PER_INVITEE, PER_PAIR, PER_PROPOSER
from tests.api.conftest import new_user
from tests.api.test_championships import create
from tests.api.test_lobby import lobby
from tests.api.test_tables import assert_problem


async def _propose(api, headers, seats) -> str:
    r = await api.post("/tables", headers=headers, json={"seats": seats})
    assert r.status_code == 201, r.text
    return r.json()["table_id"]


async def _stored(pool) -> tuple[int, int]:
    return (await pool.fetchval("SELECT count(*) FROM tables_index"),
            await pool.fetchval("SELECT count(*) FROM events WHERE stream_id LIKE 'table-%'"))


async def test_one_proposer_sends_one_person_at_most_three_tables_waiting(api, pool):
    victim, victim_headers = await new_user(api, "victim")
    stranger, headers = await new_user(api, "stranger")
    sent = [await _propose(api, headers, [stranger, victim, "bot", "bot"]) for _ in range(PER_PAIR)]
    before = await _stored(pool)
    assert_problem(await api.post("/tables", headers=headers, json={"seats": [stranger, victim, "bot", "bot"]}),
                   409, "too_many_proposals_to_invitee")
    assert await _stored(pool) == before                   # refused: nothing stored
    # Another person is still his to invite; and once the victim answers one, he may propose again.
    other = (await new_user(api, "other"))[0]
    await _propose(api, headers, [stranger, other, "bot", "bot"])
    assert (await api.post(f"/tables/{sent[0]}/decline", headers=victim_headers)).status_code == 200
    await _propose(api, headers, [stranger, victim, "bot", "bot"])


async def test_one_proposer_has_at_most_twenty_tables_waiting(api, pool):
    proposer, headers = await new_user(api, "proposer")
    people = [await new_user(api, f"p{i}") for i in range(PER_PROPOSER // PER_PAIR + 1)]
    sent = [await _propose(api, headers, [proposer, people[k // PER_PAIR][0], "bot", "bot"])
            for k in range(PER_PROPOSER)]
    before = await _stored(pool)
    r = await api.post("/tables", headers=headers, json={"seats": [proposer, people[-1][0], "bot", "bot"]})
    assert_problem(r, 409, "too_many_proposals")
    assert await _stored(pool) == before
    # A table that opens (its invitee accepts) waits no more.
    assert (await api.post(f"/tables/{sent[0]}/accept", headers=people[0][1])).status_code == 200
    await _propose(api, headers, [proposer, people[-1][0], "bot", "bot"])


async def test_a_person_has_at_most_fifty_tables_waiting_and_his_lobby_shows_them_all(api, pool):
    victim, victim_headers = await new_user(api, "victim")
    friend, friend_headers = await new_user(api, "friend")
    real = await _propose(api, friend_headers, [friend, victim, "bot", "bot"])       # the oldest of them
    strangers = [await new_user(api, f"stranger {i}") for i in range(PER_INVITEE // PER_PAIR + 1)]
    flood = [await _propose(api, strangers[k // PER_PAIR][1], [strangers[k // PER_PAIR][0], victim, "bot", "bot"])
             for k in range(PER_INVITEE - 1)]
    last = strangers[-1]
    before = await _stored(pool)
    assert_problem(await api.post("/tables", headers=last[1], json={"seats": [last[0], victim, "bot", "bot"]}),
                   409, "invitee_busy")
    assert await _stored(pool) == before
    seen = [t["table_id"] for t in (await lobby(api, victim_headers))["invitations"]]
    assert len(seen) == PER_INVITEE and set(seen) == {real, *flood}
    # His own proposals are no invitations of his, and count against nobody's answer but others'.
    mine = await _propose(api, victim_headers, [victim, friend, "bot", "bot"])
    assert mine not in [t["table_id"] for t in (await lobby(api, victim_headers))["invitations"]]
    assert (await api.post(f"/tables/{flood[0]}/decline", headers=victim_headers)).status_code == 200
    await _propose(api, last[1], [last[0], victim, "bot", "bot"])


async def test_team_proposals_are_capped_per_proposer_and_invitee(api, pool):
    organiser = (await new_user(api, "organiser"))[1]
    cups = [await create(api, organiser, command_id=f"cup-{k}") for k in range(PER_PAIR + 1)]
    victim, victim_headers = await new_user(api, "victim")
    stranger, headers = await new_user(api, "stranger")
    for k, cid in enumerate(cups[:PER_PAIR]):
        r = await api.post(f"/championships/{cid}/teams", headers=headers, json={
            "command_id": f"t{k}", "team_id": "SPAM", "players": [stranger, victim]})
        assert r.status_code == 201 and r.json()["status"] == "invited", r.text
    stored = await pool.fetchval("SELECT count(*) FROM events WHERE stream_id LIKE 'team-invites-%'")
    r = await api.post(f"/championships/{cups[-1]}/teams", headers=headers, json={
        "command_id": "t-last", "team_id": "SPAM", "players": [stranger, victim]})
    assert_problem(r, 409, "too_many_proposals_to_invitee")
    assert await pool.fetchval("SELECT count(*) FROM events WHERE stream_id LIKE 'team-invites-%'") == stored
    invites = (await lobby(api, victim_headers))["team_invitations"]
    assert sorted(i["championship_id"] for i in invites) == sorted(cups[:PER_PAIR])
    # He declines one: that proposal waits no more, and another may be sent.
    assert (await api.post(f"/championships/{cups[0]}/teams/SPAM/decline", headers=victim_headers)
            ).status_code == 200
    r = await api.post(f"/championships/{cups[-1]}/teams", headers=headers, json={
        "command_id": "t-last", "team_id": "SPAM", "players": [stranger, victim]})
    assert r.status_code == 201, r.text
    assert await pool.fetchval("SELECT count(*) FROM team_invites_pending WHERE user_id = $1", victim) == PER_PAIR


async def test_proposals_stored_at_once_by_different_people_pass_a_cap_no_more_often_than_one_by_one(pool):
    """The per-invitee cap counts proposals from anyone; proposed at once (the service itself, as the API's
    processes would, each on a connection of its own), no more pass than the places left: the counts and the
    proposal are one transaction under the people's proposal locks."""
    platform = await Platform.on(pool)
    victim, places = "victim", 3
    for k in range(PER_INVITEE - places):
        await platform.tables.propose_table(_opened(f"early-{k}", f"stranger-{k // PER_PAIR}", victim), set())
    outcomes = await asyncio.gather(*[platform.tables.propose_table(_opened(f"racer-{k}", f"racer-{k}", victim),
                                                                    set()) for k in range(8)],
                                    return_exceptions=True)
    refused = [o for o in outcomes if isinstance(o, Conflict)]
    assert len(refused) == 8 - places and {o.rule for o in refused} == {"invitee_busy"}, outcomes
    assert await pool.fetchval("SELECT count(*) FROM tables_index WHERE status = 'invited' AND $1 = ANY(seats)",
                               victim) == PER_INVITEE


def _opened(table_id: str, proposer: str, invitee: str) -> TableOpened:
    return TableOpened(table_id=table_id, seats=(proposer, invitee, "bot-normal", "bot-normal"), profile=SAUDI,
                       bots=(None, None, "normal", "normal"), opened_by=proposer)
