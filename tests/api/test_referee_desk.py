"""The referee's desk over HTTP on real PostgreSQL: a player calls the referee, the referee finds the call in
his queue, claims it (a second referee cannot), steps through the deal with every hand, and rules with a
reason; each ruling is an event, signed, and shown to the players. An accusation ("qayd") holds the deal's
result for the ruling: upheld, the engine's verdict and its penalty; rejected, nothing changes. Nobody but the
table's referees sees the desk or rules, and a refused call stores nothing."""

from __future__ import annotations

import random

from services.anchor.receipts import Receipt, verify_receipt
from tests.api.conftest import new_user, open_table
from tests.api.test_championships import command, create
from tests.api.test_tables import (
    Ids, act, action_count, assert_problem, play_until, stream_version, to_revoke_chance,
)


async def call(api, tid, headers, reason, command_id, **more):
    return await api.post(f"/tables/{tid}/calls", json={"command_id": command_id, "reason": reason, **more},
                          headers=headers)


async def rule(api, tid, headers, ruling, command_id, **more):
    return await api.post(f"/tables/{tid}/rulings", json={"command_id": command_id, "ruling": ruling, **more},
                          headers=headers)


async def test_a_call_is_queued_claimed_once_and_ruled_annul_and_replay_signed_and_shown(api, players, referee, pool):
    tid = await open_table(api, players, referee)
    second_id, second = await new_user(api, "second referee")
    await pool.execute("INSERT INTO grants (scope, scope_id, user_id, role) VALUES ('table', $1, $2, 'referee')",
                       tid, second_id)
    r = await call(api, tid, players[2][1], "misclick", "c1", note="I meant the seven")
    assert r.status_code == 201, r.text
    assert r.json()["events"] == ["referee_called"]
    (shown,) = r.json()["view"]["calls"]
    assert (shown["seat"], shown["reason"], shown["status"], shown["deal_no"]) == (2, "misclick", "open", 1)
    assert "note" not in shown                                       # the note is the referee's to read
    assert_problem(await call(api, tid, players[2][1], "other", "c2"), 409, "call_open")     # one at a time

    (item,) = (await api.get("/referee/queue", headers=referee)).json()
    assert (item["table_id"], item["call"], item["caller_name"], item["note"]) == (tid, 1, "player 2",
                                                                                   "I meant the seven")
    assert item["players"] == ["player 0", "player 1", "player 2", "player 3"] and item["status"] == "open"

    r = await api.post(f"/tables/{tid}/calls/1/claim", json={"command_id": "take"}, headers=referee)
    assert r.status_code == 200, r.text
    before = await stream_version(pool, tid)
    assert_problem(await api.post(f"/tables/{tid}/calls/1/claim", json={"command_id": "mine"}, headers=second),
                   409, "call_taken")
    replay = {"type": "annul_deal", "reason": "a misclick the table agrees on", "replay": True}
    assert_problem(await rule(api, tid, second, replay, "r2", call=1), 409, "call_taken")
    assert await stream_version(pool, tid) == before                  # nothing stored for either refusal
    (item,) = (await api.get("/referee/queue", headers=second)).json()
    assert item["status"] == "claimed" and item["claimed_by_name"] == "referee"

    desk = (await api.get(f"/tables/{tid}/deals/1/desk", headers=referee)).json()
    assert [len(h) for h in desk["steps"][0]["deal"]["hands"]] == [5, 5, 5, 5]      # every hand, mid-deal
    assert desk["players"][2] == "player 2" and desk["calls"][0]["note"] == "I meant the seven"
    assert any(s["text"].startswith("player 2 calls the referee") for s in desk["steps"])

    r = await rule(api, tid, referee, replay, "r1", call=1)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["events"][:2] == ["deal_annulled", "ruling_made"] and "deal_started" in body["events"]
    (receipt,) = [x for x in body["receipts"] if x["kind"] == "ruling"]
    assert receipt["ref"] == "1/1"
    key = (await api.get("/log/key")).json()["public_key"]
    assert verify_receipt(key, Receipt(**receipt))                    # signed like a deal's end

    for _, headers in players:                                       # every player sees the ruling
        (seen,) = (await api.get(f"/tables/{tid}/view", headers=headers)).json()["calls"]
        assert (seen["status"], seen["ruling"], seen["ruling_reason"]) == (
            "ruled", "replay_deal", "a misclick the table agrees on")
    assert (await api.get("/referee/queue", headers=referee)).json() == []
    (ruled,) = (await api.get("/referee/queue", params={"ruled": "true"}, headers=referee)).json()
    assert ruled["ruling"] == "replay_deal"
    deals = (await api.get(f"/tables/{tid}/deals", headers=referee)).json()
    assert len(deals) == 2 and deals[0]["finished"]                   # annulled, and dealt again
    assert_problem(await rule(api, tid, referee, replay, "r3", call=1), 409, "call_ruled")


async def test_an_accusation_holds_the_review_and_the_engine_upholds_it_from_the_desk(api, players, referee, pool):
    tid = await open_table(api, players, referee, mode="recorded")
    ids = Ids()
    mine, _, other_card = await to_revoke_chance(api, tid, players, random.Random(9), ids)
    seat, index = mine["seat"], action_count(mine["deal"])
    assert (await act(api, tid, players[seat][1], {"type": "play", "card": other_card}, "the-revoke")).status_code == 200
    accuser = (seat + 1) & 3
    r = await call(api, tid, players[accuser][1], "qayd", "accuse", index=index, note="he had the suit")
    assert r.status_code == 201, r.text

    desk = (await api.get(f"/tables/{tid}/deals/1/desk", headers=referee)).json()
    (c,) = desk["calls"]
    assert c["verdict"]["proven"] is True and c["verdict"]["rule"] == "revoke" and c["verdict"]["accused"] == seat
    assert c["rule_section"] == "§5 Play" and "follows the led suit" in c["rule_text"]

    # The deal is played on, and its result waits in the review for the ruling: no clock would record it.
    v = await play_until(api, tid, players, random.Random(3), ids, lambda v: v["deal"]["phase"] == "review")
    assert v["deal"]["phase"] == "review" and v["clock_seat"] is None
    before = await stream_version(pool, tid)
    assert_problem(await act(api, tid, players[accuser][1], {"type": "qayd", "index": 0}, "late"), 409)
    assert await stream_version(pool, tid) == before

    r = await rule(api, tid, referee, {"type": "uphold", "reason": "the log shows the revoke"}, "up", call=1)
    assert r.status_code == 200, r.text
    assert r.json()["events"][:3] == ["qayd_called", "deal_scored", "ruling_made"]
    first = (await api.get(f"/tables/{tid}/deals", headers=referee)).json()[0]
    assert first["game_points"][seat & 1] == 0 and first["game_points"][accuser & 1] > 0
    record = (await api.get(f"/tables/{tid}/deals/1/record", headers=players[0][1])).json()
    assert record["actions"][-1] == {"seat": accuser, "qayd": index}


async def test_an_accusation_the_engine_finds_unfounded_is_rejected_and_play_goes_on(api, players, referee, pool):
    tid = await open_table(api, players, referee, mode="recorded")
    v = await play_until(api, tid, players, random.Random(5), Ids(),
                         lambda v: v["deal"]["phase"] == "playing" and len(v["deal"]["trick"]) == 1)
    leader = v["deal"]["trick"][0]["seat"]
    index = action_count(v["deal"]) - 1
    accuser = (leader + 1) & 3
    assert (await call(api, tid, players[accuser][1], "qayd", "accuse", index=index)).status_code == 201
    desk = (await api.get(f"/tables/{tid}/deals/1/desk", headers=referee)).json()
    assert desk["calls"][0]["verdict"]["proven"] is False               # upheld, it would cost the accusers
    r = await rule(api, tid, referee, {"type": "reject", "reason": "a legal lead; no penalty for a question"}, "no",
                   call=1)
    assert r.status_code == 200, r.text
    assert r.json()["events"] == ["ruling_made"]
    view = (await api.get(f"/tables/{tid}/view", headers=players[accuser][1])).json()
    assert view["deal"]["phase"] == "playing" and view["calls"][0]["ruling"] == "reject"


async def test_only_the_tables_referees_see_the_desk_and_rule(api, players, referee, pool):
    tid = await open_table(api, players, referee, mode="recorded")
    other_table = await open_table(api, [await new_user(api, f"p{i}") for i in range(4)],
                                   (await new_user(api, "elsewhere"))[1])
    assert other_table != tid
    _, spectator = await new_user(api, "spectator")
    elsewhere_id, elsewhere = await new_user(api, "other referee")
    await pool.execute("INSERT INTO grants (scope, scope_id, user_id, role) VALUES ('table', $1, $2, 'referee')",
                       other_table, elsewhere_id)
    assert (await call(api, tid, players[1][1], "connection_loss", "c")).status_code == 201
    before = await stream_version(pool, tid)
    for who in (players[0][1], spectator, elsewhere):
        assert_problem(await api.get(f"/tables/{tid}/deals/1/desk", headers=who), 403, "not_referee")
        assert_problem(await api.post(f"/tables/{tid}/calls/1/claim", json={"command_id": "x"}, headers=who), 403,
                       "not_referee")
        for ruling in ({"type": "reject", "reason": "no"}, {"type": "award_deal", "team": 0, "reason": "x"},
                       {"type": "end_game", "reason": "x", "winner": 0}):
            assert_problem(await rule(api, tid, who, ruling, "x", call=1), 403, "not_referee")
    assert (await api.get("/referee/queue", headers=elsewhere)).json() == []        # not his table's call
    assert_problem(await api.get("/referee/queue", headers=spectator), 403, "not_referee")
    assert_problem(await call(api, tid, spectator, "other", "s"), 403)                 # not seated: no call
    assert await stream_version(pool, tid) == before


async def test_a_bad_call_or_ruling_is_refused_by_name_and_stores_nothing(api, players, referee, pool):
    strict = await open_table(api, players, referee)
    before = await stream_version(pool, strict)
    assert_problem(await call(api, strict, players[0][1], "qayd", "q", index=0), 409, "qayd_strict_table")
    assert_problem(await call(api, strict, players[0][1], "misclick", "m", index=0), 409, "bad_index")
    assert_problem(await call(api, strict, players[0][1], "bored", "b"), 400, field="reason")
    assert_problem(await call(api, strict, players[0][1], "other", "long", note="x" * 501), 400, field="note")
    assert_problem(await rule(api, strict, referee, {"type": "reject", "reason": "x"}, "nc"), 409, "no_call")
    assert_problem(await rule(api, strict, referee, {"type": "reject", "reason": ""}, "e", call=1), 400)
    assert_problem(await rule(api, strict, referee, {"type": "reject", "reason": "x"}, "u", call=7), 409,
                   "unknown_call")
    assert await stream_version(pool, strict) == before
    assert (await call(api, strict, players[0][1], "claim_dispute", "cd")).status_code == 201
    assert_problem(await rule(api, strict, referee, {"type": "uphold", "reason": "x"}, "up", call=1), 409,
                   "nothing_to_uphold")


async def test_a_referee_awards_the_deal_being_played(api, players, referee):
    tid = await open_table(api, players, referee)
    early = await rule(api, tid, referee, {"type": "award_deal", "team": 1, "reason": "too early"}, "a0")
    assert_problem(early, 409, "award_closed")                         # bidding: no deal value yet
    await play_until(api, tid, players, random.Random(2), Ids(), lambda v: v["deal"]["phase"] == "playing")
    r = await rule(api, tid, referee, {"type": "award_deal", "team": 1, "reason": "seat 0 showed his cards"}, "a1")
    assert r.status_code == 200, r.text
    assert r.json()["events"][:2] == ["deal_scored", "ruling_made"]
    first = (await api.get(f"/tables/{tid}/deals", headers=referee)).json()[0]
    assert first["game_points"][0] == 0 and first["game_points"][1] > 0
    record = (await api.get(f"/tables/{tid}/deals/1/record", headers=players[0][1])).json()
    assert record["rulings"][0]["ruling"] == "award_deal" and record["rulings"][0]["team"] == 1
    audit = (await api.get(f"/tables/{tid}/deals/1/audit", headers=players[0][1])).json()
    assert audit["report"]["game_points"] == first["game_points"] and audit["report"]["complete"]


async def grant_platform_referee(pool, user_id: str) -> None:
    """What `baloot account grant LOGIN referee` stores."""
    await pool.execute("INSERT INTO grants (scope, scope_id, user_id, role) VALUES ('platform', '', $1, 'referee')",
                       user_id)


async def test_the_platform_referee_rules_every_table_but_where_he_plays(api, players, referee, pool):
    """docs/access.md: the platform's referee is an official of every table he neither sits at nor plays the
    round of, and the queue names each call's match: its championship, round and teams."""
    plat_id, plat = await new_user(api, "platform referee")
    neutral_id, neutral = await new_user(api, "neutral")
    for uid in (plat_id, neutral_id):
        await grant_platform_referee(pool, uid)
    # A private table he has nothing to do with: its call is his to see, claim and rule.
    tid = await open_table(api, players, referee)
    assert (await call(api, tid, players[1][1], "misclick", "c1")).status_code == 201
    (item,) = (await api.get("/referee/queue", headers=plat)).json()
    assert (item["table_id"], item["championship_name"], item["round"]) == (tid, None, None)
    assert item["sides"] == ["player 0 & player 2", "player 1 & player 3"]
    assert (await api.post(f"/tables/{tid}/calls/1/claim", json={"command_id": "take"}, headers=plat)).status_code == 200
    desk = (await api.get(f"/tables/{tid}/deals/1/desk", headers=plat)).json()
    assert desk["sides"] == ["player 0 & player 2", "player 1 & player 3"] and desk["round"] is None
    r = await rule(api, tid, plat, {"type": "reject", "reason": "nothing to change"}, "r1", call=1)
    assert r.status_code == 200, r.text
    assert (await api.get("/referee/queue", headers=plat)).json() == []

    # A table where he sits: its call is not his.
    others = [await new_user(api, f"friend {i}") for i in range(3)]
    mine = await open_table(api, [(plat_id, plat), *others])
    assert (await call(api, mine, plat, "other", "own")).status_code == 201
    assert (await api.get("/referee/queue", headers=plat)).json() == []
    assert_problem(await api.get(f"/tables/{mine}/deals/1/desk", headers=plat), 403, "not_referee")
    assert [c["table_id"] for c in (await api.get("/referee/queue", headers=neutral)).json()] == [mine]

    # A championship where his team plays round 1: the other match's table is not his to rule until the round
    # is decided, nor his own match's forfeit; the neutral platform referee sees and rules both.
    _, organiser = await new_user(api, "organiser")
    names = [("Fahad", "Saad"), ("Majed", "Turki"), ("Khalid", "Sultan")]
    teams = [[(plat_id, plat), await new_user(api, "partner")]] + [[await new_user(api, n) for n in team]
                                                                   for team in names]
    cid = await create(api, organiser)
    for k, team in enumerate(teams):
        r = await api.post(f"/championships/{cid}/teams", headers=organiser, json={
            "command_id": f"reg-{k}", "team_id": f"T{k + 1}", "players": [uid for uid, _ in team]})
        assert r.status_code == 201, r.text
    for path in ("registration/close", "draw", "rounds/1/start"):
        await command(api, cid, path, organiser, path.replace("/", "-"))
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    own_match = next(m for m in matches if "T1" in (m["team_a"], m["team_b"]))
    other = next(m for m in matches if m is not own_match)
    table = other["tables"][0]
    by_id = {uid: people for people, team in zip(["platform referee & partner", *(" & ".join(n) for n in names)],
                                                 teams) for uid, _ in team}
    caller = next(h for uid, h in (p for team in teams for p in team) if uid == table["seats"][0])
    assert (await call(api, table["table_id"], caller, "connection_loss", "c")).status_code == 201
    assert (await api.get("/referee/queue", headers=plat)).json() == []
    assert_problem(await api.get(f"/tables/{table['table_id']}/deals/1/desk", headers=plat), 403, "official_plays")
    absent = own_match["team_b"] if own_match["team_a"] == "T1" else own_match["team_a"]
    assert_problem(await api.post(f"/championships/{cid}/matches/{own_match['match_id']}/forfeit", headers=plat,
                                  json={"command_id": "f", "absent": absent}), 403, "own_match")
    item = next(c for c in (await api.get("/referee/queue", headers=neutral)).json()
                if c["table_id"] == table["table_id"])
    assert (item["championship_name"], item["round"]) == ("Riyadh Cup", 1)
    assert item["sides"] == [by_id[table["seats"][0]], by_id[table["seats"][1]]]
    assert by_id[table["seats"][0]] != by_id[table["seats"][1]]
    desk = (await api.get(f"/tables/{table['table_id']}/deals/1/desk", headers=neutral)).json()
    assert (desk["championship_name"], desk["round"], desk["sides"]) == ("Riyadh Cup", 1, item["sides"])
