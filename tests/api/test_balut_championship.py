"""A Balut championship through the same championship machinery (real PostgreSQL, over HTTP): pairs of
players registered as teams, a knock-out whose matches are Balut tables (the pairs at seats 0+2 and 1+3,
each player for himself), each match won by the pair with more points (the game's ``MatchGame`` through
the seam), up to a champion, with the bracket and the standings read model."""

from __future__ import annotations

import random

from services.eventstore import rebuild_projection
from services.workers.projections import standings_read_model
from tests.api.conftest import new_user
from tests.api.test_championships import command, create, drawn, teams_of
from tests.api.test_tables import assert_problem

ROWS = ("fours", "fives", "sixes", "straight", "house", "choice", "balut")


async def play_balut(api, table_id: str, headers_of: dict[str, dict]) -> dict:
    """Play a Balut table to its end over HTTP, each seat with its own token: throw, keep at random, write a
    row at random."""
    rng = random.Random(table_id)
    any_player = next(iter(headers_of.values()))
    for n in range(2000):
        public = (await api.get(f"/tables/{table_id}/view", headers=any_player)).json()
        if public["phase"] == "ended":
            return public
        seat, who = public["turn"], headers_of[public["seats"][public["turn"]]]
        legal = (await api.get(f"/tables/{table_id}/view", headers=who)).json()["legal_actions"]
        scores = [a for a in legal if a["type"] == "score"]
        rolls = [a for a in legal if a["type"] == "roll"]
        action = rng.choice(scores) if scores and (not rolls or rng.random() < 0.4) else rng.choice(rolls)
        r = await api.post(f"/tables/{table_id}/commands", params={"seat": seat}, headers=who,
                           json={"command_id": f"c{n}", "action": action})
        assert r.status_code == 200, r.text
    raise AssertionError(f"table {table_id} did not finish")


async def test_a_balut_knockout_of_four_pairs_reaches_a_champion(api, pool):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 4)
    headers_of = {uid: h for team in teams for uid, h in team}
    cid = await drawn(api, organiser, teams, game="balut", format="single_elimination")
    summary = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    assert summary["settings"]["game"] == "balut" and summary["settings"]["profile"] == "stc"
    for round_no in (1, 2):
        started = await command(api, cid, f"rounds/{round_no}/start", organiser, f"round-{round_no}")
        assert len(started["tables"]) == 2 // round_no
        for table in started["tables"]:
            final = await play_balut(api, table["table_id"], headers_of)
            assert final["game"] == "balut" and len(final["seats"]) == 4
            # The pairs' points, added up here from the rows written.
            pair = [sum(sum(sum(final["sheets"][s]["rows"][row]) for row in ROWS) for s in side)
                    for side in ((0, 2), (1, 3))]
            (match,) = [m for m in (await api.get(f"/championships/{cid}/matches", params={"round": round_no},
                                                  headers=organiser)).json()
                        if m["tables"][0]["table_id"] == table["table_id"]]
            assert match["status"] == "decided" and match["outcome"] == "played"
            if pair[0] != pair[1]:
                a, b = match["team_a"], match["team_b"]
                assert match["winner"] == (a if pair[0] > pair[1] else b)
    done = (await command(api, cid, "finish", organiser, "finish"))["summary"]
    (final_match,) = (await api.get(f"/championships/{cid}/matches", params={"round": 2},
                                    headers=organiser)).json()
    assert done["status"] == "finished" and done["champion"] == final_match["winner"]

    await rebuild_projection(pool, standings_read_model())
    standings = (await api.get(f"/championships/{cid}/standings", headers=organiser)).json()
    assert standings[0]["team_id"] == final_match["winner"] and standings[0]["wins"] == 2
    bracket = (await api.get(f"/championships/{cid}/bracket", headers=organiser)).json()
    assert len(bracket["nodes"]) == 3 and all(n["decided"] == "played" for n in bracket["nodes"])


async def test_a_balut_championship_takes_only_what_the_game_takes(api, pool):
    _, organiser = await new_user(api, "organiser")
    before = await pool.fetchval("SELECT count(*) FROM events")
    for body, field in (({"profile": "saudi"}, "profile"), ({"table_mode": "recorded"}, "table_mode"),
                        ({"bot_level": "hard"}, "bot_level"), ({"on_timeout": "forfeit"}, "on_timeout")):
        r = await api.post("/championships", json={"command_id": f"c-{field}", "name": "Dice Cup", "game": "balut",
                                                   **body}, headers=organiser)
        assert_problem(r, 400, "invalid_field", field=field)
    assert await pool.fetchval("SELECT count(*) FROM events") == before
    cid = await create(api, organiser, game="balut", profile="ibf")
    assert (await api.get(f"/championships/{cid}", headers=organiser)).json()["settings"]["profile"] == "ibf"
