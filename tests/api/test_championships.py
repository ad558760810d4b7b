"""Championships over HTTP against real PostgreSQL: organisers, players and referees, and matches played
at tables until a champion is known."""

from __future__ import annotations

import hashlib
import random

import msgspec

from projections import standings as standings_projection
from services.championships import CODEC, stream_of
from services.eventstore import read_stream, rebuild_projection
from services.workers.projections import standings_read_model
from tests.api.conftest import new_user
from tests.stored_championship import knock_out


async def create(api, headers, command_id="create-1", **settings) -> str:
    r = await api.post("/championships", json={"command_id": command_id, "name": "Riyadh Cup", **settings},
                       headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["championship_id"]


async def teams_of(api, n: int) -> list[list[tuple[str, dict]]]:
    """``n`` teams of two new users each."""
    return [[await new_user(api, f"team {t} player {p}") for p in range(2)] for t in range(n)]


async def register(api, cid: str, team, team_id: str, headers=None, **extra):
    """A team registered by its first player (and accepted by its second), or by ``headers`` (the organiser)."""
    r = await api.post(f"/championships/{cid}/teams", headers=headers or team[0][1],
                       json={"command_id": f"register-{team_id}", "team_id": team_id,
                             "players": [uid for uid, _ in team], **extra})
    if r.status_code == 201 and r.json()["status"] == "invited":
        r = await api.post(f"/championships/{cid}/teams/{team_id}/accept", headers=team[1][1])
        assert r.status_code == 200, r.text
        r.status_code = 201
    return r


async def command(api, cid: str, path: str, headers, command_id: str, expect: int = 200, **body) -> dict:
    r = await api.post(f"/championships/{cid}/{path}", json={"command_id": command_id, **body}, headers=headers)
    assert r.status_code == expect, r.text
    return r.json()


async def drawn(api, organiser, teams, **settings) -> str:
    """A championship with ``teams`` registered, registration closed and the draw made."""
    cid = await create(api, organiser, **settings)
    for k, team in enumerate(teams):
        r = await register(api, cid, team, f"T{k + 1}")
        assert r.status_code == 201, r.text
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    return cid


def choose(actions: list[dict], rng: random.Random) -> dict:
    """A legal action: never a double (a Gahwa would end the game below the target), rarely a Sawa claim."""
    calm = [a for a in actions if a["type"] not in ("double", "sawa", "qayd")]
    if calm:
        return rng.choice(calm)
    passes = [a for a in actions if a["type"] == "double" and a["call"] == "pass"]
    return passes[0] if passes else rng.choice(actions)


async def play_out(api, table_id: str, headers_of: dict[str, dict], pick=None, deals: int | None = None) -> dict:
    """Play the table's game to its end over HTTP (or its first ``deals`` deals), each seat acting with its own
    token, each action by ``pick(legal, rng)`` (``choose`` by default)."""
    rng = random.Random(table_id)
    pick = pick or choose
    seats = None
    view = None
    for n in range(20_000):
        if view is None or seats is None:
            any_player = next(iter(headers_of.values()))
            view = (await api.get(f"/tables/{table_id}/view", headers=any_player)).json()
            seats = view["seats"]
        if view["phase"] == "ended" or deals is not None and view["deal_no"] > deals:
            return view
        seat = view["deal"]["turn"]
        r = await api.get(f"/tables/{table_id}/view", params={"seat": seat}, headers=headers_of[seats[seat]])
        assert r.status_code == 200, r.text
        legal = r.json()["deal"]["legal_actions"]
        assert legal, r.json()
        r = await api.post(f"/tables/{table_id}/commands", params={"seat": seat}, headers=headers_of[seats[seat]],
                           json={"command_id": f"c{n}", "action": pick(legal, rng)})
        assert r.status_code == 200, r.text
        view = r.json()["view"]
    raise AssertionError(f"table {table_id} did not finish")


async def test_organiser_flow_opens_a_table_per_match_with_the_teams_seated(api):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 6)
    cid = await create(api, organiser, format="single_elimination", match_games=3, game_target=101)
    for k, team in enumerate(teams[:5]):
        r = await register(api, cid, team, f"T{k + 1}")
        assert r.status_code == 201, r.text
    sub_id, _ = await new_user(api, "substitute")
    r = await register(api, cid, teams[5], "T6", headers=organiser, substitutes=[sub_id])   # by the organiser
    assert r.status_code == 201, r.text
    summary = r.json()["summary"]
    assert summary["status"] == "registration" and len(summary["teams"]) == 6
    assert summary["settings"]["match_games"] == 3 and summary["settings"]["game_target"] == 101

    closed = (await command(api, cid, "registration/close", organiser, "close"))["summary"]
    assert closed["status"] == "closed" and len(closed["draw_commitment"]) == 64 and closed["draw_seed"] is None
    made = (await command(api, cid, "draw", organiser, "draw"))["summary"]
    assert made["status"] == "drawn" and sorted(made["draw_order"]) == [f"T{k}" for k in range(1, 7)]

    started = await command(api, cid, "rounds/1/start", organiser, "round-1")
    assert started["summary"]["status"] == "running" and started["round"] == 1

    # Six teams in a bracket of eight: two matches to play, two byes, and a table only for each match.
    r = await api.get(f"/championships/{cid}/matches", headers=organiser)
    matches = r.json()
    to_play = [m for m in matches if m["note"] == ""]
    byes = [m for m in matches if m["note"] == "bye"]
    assert len(to_play) == 2 and len(byes) == 2
    assert all(m["tables"] == [] and m["status"] == "decided" for m in byes)
    assert sorted(t["table_id"] for t in started["tables"]) == sorted(
        f"{cid}-{m['match_id']}-g1" for m in to_play)
    players = {t["team_id"]: t["players"] for t in made["teams"]}
    for m in to_play:
        assert m["status"] == "playing" and len(m["tables"]) == 1
        a, b = players[m["team_a"]], players[m["team_b"]]
        (table,) = m["tables"]
        assert table["seats"] == [a[0], b[0], a[1], b[1]] and table["game_no"] == 1
        view = (await api.get(f"/tables/{table['table_id']}/view", headers=organiser)).json()
        assert view["seats"] == [a[0], b[0], a[1], b[1]] and view["target"] == 101

    # A player seated at a table sees it as theirs, and only their own match with ?mine=true.
    m = to_play[0]
    team = next(t for t in teams if t[0][0] == players[m["team_a"]][0])
    mine = (await api.get(f"/championships/{cid}/matches", params={"mine": "true"}, headers=team[0][1])).json()
    assert [x["match_id"] for x in mine] == [m["match_id"]]
    view = (await api.get(f"/tables/{m['tables'][0]['table_id']}/view", headers=team[0][1])).json()
    assert view["seat"] == 0 and len(view["deal"]["hand"]) == 5 and view["deal"]["hands"] is None
    listed = (await api.get("/tables", headers=organiser)).json()
    assert {t["table_id"] for t in listed if t["championship_id"] == cid} == {x["tables"][0]["table_id"]
                                                                              for x in to_play}


async def test_organiser_and_referee_actions_only_for_their_own_championship(api):
    _, organiser = await new_user(api, "organiser")
    _, other = await new_user(api, "another organiser")
    referee_id, referee = await new_user(api, "referee")
    teams = await teams_of(api, 2)
    cid = await drawn(api, organiser, teams)
    await create(api, other, command_id="their-own")

    r = await api.post(f"/championships/{cid}/rounds/1/start", json={"command_id": "x"}, headers=other)
    assert r.status_code == 403 and r.json()["rule"] == "not_organiser"
    assert r.headers["content-type"].startswith("application/problem+json")
    r = await api.post(f"/championships/{cid}/referees", json={"user_id": referee_id}, headers=teams[0][0][1])
    assert r.status_code == 403 and r.json()["rule"] == "not_organiser"

    await command(api, cid, "rounds/1/start", organiser, "round-1")
    (match,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    forfeit = {"command_id": "forfeit", "absent": match["team_b"]}
    r = await api.post(f"/championships/{cid}/matches/{match['match_id']}/forfeit", json=forfeit, headers=referee)
    assert r.status_code == 403 and r.json()["rule"] == "not_referee"

    r = await api.post(f"/championships/{cid}/referees", json={"user_id": referee_id}, headers=organiser)
    assert r.status_code == 200, r.text
    r = await api.post(f"/championships/{cid}/matches/{match['match_id']}/forfeit", json=forfeit, headers=referee)
    assert r.status_code == 200, r.text
    (match,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    assert match["status"] == "decided" and match["outcome"] == "forfeit" and match["winner"] == match["team_a"]

    finished = await command(api, cid, "finish", organiser, "finish")
    assert finished["summary"]["status"] == "finished" and finished["summary"]["champion"] == match["team_a"]

    r = await api.get("/championships/nope", headers=organiser)
    assert r.status_code == 404 and r.json()["rule"] == "unknown_championship"
    r = await api.post("/championships/nope/draw", json={"command_id": "d"}, headers=organiser)
    assert r.status_code == 404 and r.json()["rule"] == "unknown_championship"


async def test_registration_after_close_is_refused_with_a_problem_document(api):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 3)
    cid = await create(api, organiser)
    for k, team in enumerate(teams[:2]):
        assert (await register(api, cid, team, f"T{k + 1}")).status_code == 201
    await command(api, cid, "registration/close", organiser, "close")
    before = (await api.get(f"/championships/{cid}", headers=organiser)).json()["version"]

    r = await register(api, cid, teams[2], "T3")
    assert r.status_code == 409
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["rule"] == "registration_closed" and problem["status"] == 409
    assert problem["detail"] == "registration is closed: late entries are accepted only in Swiss"
    assert (await api.get(f"/championships/{cid}", headers=organiser)).json()["version"] == before

    # Someone who is not in the team registers it: refused before anything is decided.
    r = await api.post(f"/championships/{cid}/teams", headers=teams[0][0][1],
                       json={"command_id": "c", "players": [uid for uid, _ in teams[2]]})
    assert r.status_code == 403 and r.json()["rule"] == "not_in_team"


async def test_the_revealed_draw_seed_matches_the_commitment_published_at_close(api):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 4)
    cid = await create(api, organiser)
    for k, team in enumerate(teams):
        assert (await register(api, cid, team, f"T{k + 1}")).status_code == 201
    published = (await command(api, cid, "registration/close", organiser, "close"))["summary"]["draw_commitment"]
    revealed = (await command(api, cid, "draw", organiser, "draw"))["summary"]
    assert hashlib.sha256(revealed["draw_seed"].encode()).hexdigest() == published
    assert revealed["draw_commitment"] == published
    # Anyone can repeat the shuffle from the revealed seed.
    order = [f"T{k}" for k in range(1, 5)]
    random.Random(revealed["draw_seed"]).shuffle(order)
    assert revealed["draw_order"] == order


async def test_a_retried_command_id_stores_nothing_new(api, pool):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 2)
    cid = await create(api, organiser)
    assert await create(api, organiser) == cid                     # a retried creation: the same championship
    first = await register(api, cid, teams[0], "T1")
    again = await register(api, cid, teams[0], "T1")
    assert first.status_code == again.status_code == 201
    assert again.json()["replayed"] is True and again.json()["version"] == first.json()["version"] == 2
    assert len(await read_stream(pool, stream_of(cid))) == 2

    assert (await register(api, cid, teams[1], "T2")).status_code == 201
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    started = await command(api, cid, "rounds/1/start", organiser, "round-1")
    stored = len(await read_stream(pool, stream_of(cid)))
    retried = await command(api, cid, "rounds/1/start", organiser, "round-1")
    assert retried["replayed"] is True and retried["version"] == started["version"]
    assert retried["tables"] == started["tables"] and len(retried["tables"]) == 1
    assert len(await read_stream(pool, stream_of(cid))) == stored
    (table,) = retried["tables"]
    assert len(await read_stream(pool, f"table-{table['table_id']}")) == 3   # opened once: opened, started, dealt
    assert await pool.fetchval("SELECT count(*) FROM tables_index WHERE championship_id = $1", cid) == 1


async def test_a_best_of_three_match_opens_its_next_game_until_decided(api):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 2)
    cid = await drawn(api, organiser, teams, match_games=3, game_target=1)
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    headers_of = {uid: h for team in teams for uid, h in team}
    for game_no in range(1, 4):
        (match,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
        if match["status"] == "decided":
            break
        assert [t["game_no"] for t in match["tables"]] == list(range(1, game_no + 1))
        await play_out(api, match["tables"][-1]["table_id"], headers_of)
    (match,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    assert match["status"] == "decided" and match["outcome"] == "played"
    assert max(match["games"]) == 2 and len(match["tables"]) == sum(match["games"])
    assert all(t["status"] == "finished" for t in match["tables"])


async def test_a_result_the_flow_missed_is_collected_before_the_championship_finishes(api):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 2)
    cid = await drawn(api, organiser, teams, game_target=1)
    (table,) = (await command(api, cid, "rounds/1/start", organiser, "round-1"))["tables"]
    tables = api.app.state.platform.tables
    flow, tables.flow = tables.flow, None    # as if the server had stopped between the game's end and what follows
    try:
        await play_out(api, table["table_id"], {uid: h for team in teams for uid, h in team})
    finally:
        tables.flow = flow
    (match,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    assert match["status"] == "playing"
    done = (await command(api, cid, "finish", organiser, "finish"))["summary"]
    (match,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    assert match["status"] == "decided" and done["champion"] == match["winner"] is not None


async def test_a_four_team_knockout_played_at_the_tables_reaches_a_champion(api, pool):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 4)
    headers_of = {uid: h for team in teams for uid, h in team}
    cid = await drawn(api, organiser, teams, format="single_elimination", game_target=152)
    for round_no in (1, 2):
        started = await command(api, cid, f"rounds/{round_no}/start", organiser, f"round-{round_no}")
        assert len(started["tables"]) == 2 // round_no
        for table in started["tables"]:
            final = await play_out(api, table["table_id"], headers_of)
            assert final["winner"] in (0, 1) and max(final["scores"]) >= 152
        matches = (await api.get(f"/championships/{cid}/matches", params={"round": round_no},
                                 headers=organiser)).json()
        assert all(m["status"] == "decided" and m["outcome"] == "played" for m in matches)

    done = (await command(api, cid, "finish", organiser, "finish"))["summary"]
    (final,) = (await api.get(f"/championships/{cid}/matches", params={"round": 2}, headers=organiser)).json()
    assert done["status"] == "finished" and done["champion"] == final["winner"]
    assert done["ranking"][0]["team_id"] == final["winner"] and done["ranking"][0]["rank"] == 1

    # The standings are the read model the workers' projection runner keeps; no worker runs here, so the
    # test runs the projection over the log, as a worker would have.
    assert (await api.get(f"/championships/{cid}/standings", headers=organiser)).json() == []
    await rebuild_projection(pool, standings_read_model())
    standings = (await api.get(f"/championships/{cid}/standings", headers=organiser)).json()
    rebuilt = standings_projection.initial()
    for row in await read_stream(pool, stream_of(cid)):
        rebuilt = standings_projection.evolve(rebuilt, CODEC.decode(row))
    named = {f"T{k + 1}": f"team {k} player 0 & team {k} player 1" for k in range(4)}     # as teams_of named them
    assert [r.pop("name") for r in standings] == [named[r["team_id"]] for r in standings]
    assert standings == [{k: v for k, v in r.items() if k != "name"}
                         for r in msgspec.to_builtins(standings_projection.table(rebuilt))]
    assert standings[0]["team_id"] == final["winner"] and standings[0]["wins"] == 2

    r = await api.get(f"/championships/{cid}/bracket", headers=organiser)
    assert r.status_code == 200, r.text
    bracket = r.json()
    assert len(bracket["nodes"]) == 3 and all(n["decided"] == "played" for n in bracket["nodes"])
    assert {e["target"] for e in bracket["edges"]} == {final["match_id"]}
    # A round alone: its matches, the edges into them, its teams' paths; a team alone: its path.
    semis = [n for n in bracket["nodes"] if n["round"] == 1]
    first = (await api.get(f"/championships/{cid}/bracket", params={"round": 1}, headers=organiser)).json()
    assert first["nodes"] == semis and first["edges"] == []
    assert set(first["paths"]) == {t for n in semis for t in (n["team_a"], n["team_b"])}
    last = (await api.get(f"/championships/{cid}/bracket", params={"round": 2}, headers=organiser)).json()
    assert [n["match_id"] for n in last["nodes"]] == [final["match_id"]] and last["edges"] == bracket["edges"]
    loser = next(t for n in semis for t in (n["team_a"], n["team_b"]) if t != n["winner"])
    own = (await api.get(f"/championships/{cid}/bracket", params={"team": loser}, headers=organiser)).json()
    assert [n["match_id"] for n in own["nodes"]] == bracket["paths"][loser] and list(own["paths"]) == [loser]
    bad = await api.get(f"/championships/{cid}/bracket", params={"round": 0}, headers=organiser)
    assert bad.status_code == 400 and bad.json()["rule"] == "invalid_field"


async def test_a_large_bracket_is_read_by_sections_and_its_teams_found_by_name(api, pool):
    cid, sim = await knock_out(pool, 100)                # a bracket of 128: 64 first-round matches, 7 rounds
    spectator = (await new_user(api, "spectator"))[1]
    rounds = [r.matches for r in sim.state.rounds]

    def read(**params):
        return api.get(f"/championships/{cid}/bracket/section", params=params, headers=spectator)
    part = (await read(section=2, size=8, depth=3)).json()
    assert [[s["node"]["match_id"] for s in col["slots"]] for col in part["section"]["columns"]] == [
        [m.match_id for m in rounds[c][8 >> c:(8 >> c) + (8 >> c)]] for c in range(3)]
    assert part["section"]["sections"] == 8 and [s["stage"] for s in part["section"]["stages"]] == ["main"]
    shown = {t for col in rounds[:1] for m in col[8:16] for t in (m.team_a, m.team_b) if t}
    assert shown <= set(part["names"])
    # The section holding a match; a team found by part of its id, with where it is.
    deep = rounds[3][5]
    held = (await read(match=deep.match_id)).json()["section"]
    assert (held["round"], held["section"]) == (4, 1)
    assert deep.match_id in [s["node"]["match_id"] for s in held["columns"][0]["slots"]]
    found = (await api.get(f"/championships/{cid}/teams", params={"q": sim.state.champion.lower()},
                           headers=spectator)).json()
    assert [f["team_id"] for f in found] == [sim.state.champion]
    assert found[0]["last_match"] == rounds[-1][0].match_id
    assert len((await api.get(f"/championships/{cid}/teams", params={"q": "T0", "limit": 5},
                              headers=spectator)).json()) == 5
    # The page's facts without the field's lists; the champion named.
    brief = (await api.get(f"/championships/{cid}", params={"teams": "false"}, headers=spectator)).json()
    assert (brief["teams"], brief["team_count"], len(brief["ranking"])) == ([], 100, 8)
    assert brief["names"][sim.state.champion]
    # Standings a page at a time.
    await rebuild_projection(pool, standings_read_model())
    every = (await api.get(f"/championships/{cid}/standings", headers=spectator)).json()
    page = (await api.get(f"/championships/{cid}/standings", params={"offset": 10, "limit": 10},
                          headers=spectator)).json()
    assert len(every) == 100 and page == every[10:20]
    # Wrong questions: a precise problem each.
    for params, status, rule in (({"stage": "losers"}, 404, "no_such_stage"), ({"round": 9}, 404, "no_such_round"),
                                 ({"match": "99-1"}, 404, "no_such_match"), ({"size": 0}, 400, "invalid_field")):
        r = await read(**params)
        assert (r.status_code, r.json()["rule"]) == (status, rule), params


async def test_championships_are_listed_newest_first_with_their_progress(api):
    organiser = (await new_user(api, "organiser"))[1]
    spectator = (await new_user(api, "spectator"))[1]
    assert (await api.get("/championships", headers=spectator)).json() == []
    first = await drawn(api, organiser, await teams_of(api, 2), command_id="create-first")
    second = await create(api, organiser, command_id="create-second", format="swiss")
    r = await api.get("/championships", headers=spectator)
    assert r.status_code == 200, r.text
    listed = r.json()
    assert [c["championship_id"] for c in listed] == [second, first]
    assert {k: listed[1][k] for k in ("name", "format", "status", "teams", "rounds", "champion")} == {
        "name": "Riyadh Cup", "format": "single_elimination", "status": "drawn", "teams": 2, "rounds": 0,
        "champion": None}
    assert (listed[0]["format"], listed[0]["status"], listed[0]["teams"]) == ("swiss", "registration", 0)
    limited = (await api.get("/championships", params={"limit": 1}, headers=spectator)).json()
    assert [c["championship_id"] for c in limited] == [second]
    refused = await api.get("/championships", params={"limit": 0}, headers=spectator)
    assert refused.status_code == 400 and refused.json()["rule"] == "invalid_field"
    assert (await api.get("/championships")).status_code == 401


async def test_the_next_rounds_pairings_are_public_once_drawn_and_the_round_starts_with_them(api):
    _, organiser = await new_user(api, "organiser")
    _, stranger = await new_user(api, "stranger")
    teams = await teams_of(api, 4)
    cid = await create(api, organiser)
    for k, team in enumerate(teams):
        assert (await register(api, cid, team, f"T{k + 1}")).status_code == 201
    await command(api, cid, "registration/close", organiser, "close")
    nothing = {"round": None, "matches": [], "names": {}}
    assert (await api.get(f"/championships/{cid}/pairings", headers=stranger)).json() == nothing
    await command(api, cid, "draw", organiser, "draw")
    drawn = (await api.get(f"/championships/{cid}/pairings", headers=stranger)).json()
    assert drawn["round"] == 1 and len(drawn["matches"]) == 2
    assert drawn["names"] == {f"T{k + 1}": f"team {k} player 0 & team {k} player 1" for k in range(4)}
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    started = (await api.get(f"/championships/{cid}/matches", params={"round": 1}, headers=stranger)).json()
    assert [(m["match_id"], m["team_a"], m["team_b"]) for m in started] == [
        (m["match_id"], m["team_a"], m["team_b"]) for m in drawn["matches"]]
    assert (await api.get(f"/championships/{cid}/pairings", headers=stranger)).json() == nothing   # being played


async def test_the_organiser_names_a_referee_by_name_lists_and_removes_him(api):
    _, organiser = await new_user(api, "organiser")
    hakam_id, hakam = await new_user(api, "Hakam Saad")
    cid = await create(api, organiser)
    path = f"/championships/{cid}/referees"
    r = await api.post(path, json={"person": "hakam saad"}, headers=organiser)      # his name, in any case
    assert r.status_code == 200 and r.json()["user_id"] == hakam_id, r.text
    r = await api.post(path, json={"person": "nobody at all"}, headers=organiser)
    assert r.status_code == 422 and (r.json()["rule"], r.json()["field"]) == ("unknown_user", "person")
    r = await api.post(path, json={"person": "Hakam Saad", "user_id": hakam_id}, headers=organiser)
    assert r.status_code == 400 and r.json()["rule"] == "invalid_field"
    # Listed by his public name, never his login (an organiser names anybody: the list must not tell logins).
    assert (await api.get(path, headers=organiser)).json() == [{"user_id": hakam_id, "name": "Hakam Saad"}]
    assert (await api.get(f"/championships/{cid}/monitor", headers=hakam)).status_code == 200
    assert (await api.get(path, headers=hakam)).json()["rule"] == "not_organiser"
    assert (await api.delete(f"{path}/{hakam_id}", headers=organiser)).status_code == 204
    r = await api.delete(f"{path}/{hakam_id}", headers=organiser)
    assert r.status_code == 404 and r.json()["rule"] == "not_a_referee"
    assert (await api.get(path, headers=organiser)).json() == []
    assert (await api.get(f"/championships/{cid}/monitor", headers=hakam)).json()["rule"] == "not_referee"
