"""Players' ratings: a 16-team championship's ratings through the API equal a direct openskill computation over
its results (in the order the log holds them) and a rebuild of the read model from zero; the leaderboard pages
by keyset; a player's page shows his ratings, results and championships; a championship seeded by rating with
no ratings given takes the platform's; a dice table rates each player by his place."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from domain.tournament import commands as c
from domain.tournament import events as e
from domain.tournament.events import Settings
from services.eventstore import ProjectionRunner, read_stream, rebuild_projection
from services.platform import Platform
from services.ratings import table_ratings_read_model, ratings_read_model
from services.roles import grant
from tests.api.conftest import new_user
from tests.api.test_balut_championship import play_balut
from tests.api.test_championships import command, drawn, teams_of
from tests.stored_championship import knock_out, player_name


def direct_openskill(sim) -> dict[str, tuple[float, float, int]]:
    """Each player's (mu, sigma, games) computed with openskill itself over the championship's match results."""
    model = PlackettLuce()
    ratings: dict[str, tuple[float, float, int]] = {}
    for event in sim.events:
        if not isinstance(event, e.MatchResultRecorded):
            continue
        sides = [sim.state.teams[t].players for t in (event.winner, event.loser)]
        start = [[model.rating(*ratings.get(p, (model.mu, model.sigma, 0))[:2]) for p in side] for side in sides]
        for side, rated in zip(sides, model.rate(start, ranks=[1, 2])):
            for p, r in zip(side, rated):
                ratings[p] = (r.mu, r.sigma, ratings.get(p, (0, 0, 0))[2] + 1)
    return ratings


async def test_a_championships_ratings_equal_openskill_over_its_results_and_a_rebuild(api, pool):
    cid, sim = await knock_out(pool, 16)
    runner = ProjectionRunner(pool, ratings_read_model())
    await runner.catch_up()                                  # as the workers keep it
    kept = [tuple(r) for r in await pool.fetch("SELECT * FROM ratings ORDER BY game, user_id")]
    _, spectator = await new_user(api, "spectator")

    # The leaderboard, two pages of 20 and 12 by keyset, equals openskill's own numbers.
    expected = direct_openskill(sim)
    assert len(expected) == 32
    first = (await api.get("/ratings/baloot", params={"limit": 20}, headers=spectator)).json()
    rest = (await api.get("/ratings/baloot", params={"limit": 20, "after_ordinal": first["next_after_ordinal"],
                                                     "after_user": first["next_after_user"]}, headers=spectator)).json()
    rows = first["rows"] + rest["rows"]
    assert len(rows) == 32 and rest["next_after_ordinal"] is None
    assert [r["rank"] for r in rows] == list(range(1, 33))
    for r in rows:
        mu, sigma, games = expected[r["user_id"]]
        assert (r["mu"], r["sigma"], r["games"]) == (pytest.approx(mu), pytest.approx(sigma), games)
        assert r["name"] == player_name(r["user_id"])
    ordinals = [r["ordinal"] for r in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    champions = set(sim.state.teams[sim.state.champion].players)
    assert {r["user_id"] for r in rows[:2]} == champions          # four wins, no loss: the best two

    # A rebuild from zero gives the same rows as the incremental fold.
    await rebuild_projection(pool, ratings_read_model())
    assert [tuple(r) for r in await pool.fetch("SELECT * FROM ratings ORDER BY game, user_id")] == kept

    # A player's page: his rating, each rated match (newest first), his championship by name.
    champion = sorted(champions)[0]
    page = (await api.get(f"/players/{champion}", headers=spectator)).json()
    assert page["name"] == player_name(champion) and [g["game"] for g in page["ratings"]] == ["baloot"]
    assert page["ratings"][0]["games"] == 4 and all(m["won"] for m in page["recent"])
    assert [m["match_id"] for m in page["recent"]] == [
        ev.match_id for ev in reversed(sim.events) if isinstance(ev, e.MatchResultRecorded)
        and sim.state.champion in (ev.winner, ev.loser)]
    assert page["championships"] == [{"championship_id": cid, "name": "Riyadh Cup 16"}]
    assert page["recent"][0]["mu"] == pytest.approx(expected[champion][0])

    # Wrong questions: a precise problem each.
    r = await api.get("/ratings/chess", headers=spectator)
    assert (r.status_code, r.json()["rule"]) == (404, "unrated_game")
    r = await api.get("/players/nobody", headers=spectator)
    assert (r.status_code, r.json()["rule"]) == (404, "unknown_user")
    r = await api.get("/ratings/baloot", params={"limit": 0}, headers=spectator)
    assert (r.status_code, r.json()["rule"]) == (400, "invalid_field")


async def test_a_championship_seeded_by_rating_takes_the_platforms_ratings(api, pool):
    cid, sim = await knock_out(pool, 16)
    await ProjectionRunner(pool, ratings_read_model()).catch_up()
    expected = direct_openskill(sim)
    organiser_id, organiser = await new_user(api, "organiser")
    # Four of the teams enter a new championship seeded by rating, registered in the reverse of what they earn.
    teams = {t: sim.state.teams[t].players for t in list(sim.state.team_order)[:4]}
    strength = {t: sum(expected[p][0] - 3 * expected[p][1] for p in players) / 2 for t, players in teams.items()}
    svc = (await Platform.on(pool)).championships
    seeded = "seeded-cup"
    commands = [c.CreateChampionship(seeded, Settings(name="Seeded Cup", seeding="rating")),
                *(c.RegisterTeam(t, teams[t]) for t in sorted(teams, key=strength.get)), c.CloseRegistration()]
    await svc.execute(seeded, "setup", lambda _: commands, actor=organiser_id, new=True)
    await grant(pool, "championship", seeded, organiser_id, "organiser")
    r = await api.post(f"/championships/{seeded}/draw", json={"command_id": "draw"}, headers=organiser)
    assert r.status_code == 200, r.text
    assert r.json()["summary"]["draw_order"] == sorted(teams, key=strength.get, reverse=True)


async def test_a_dice_table_rates_each_player_by_his_place(api, pool):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 2)
    headers_of = {uid: h for team in teams for uid, h in team}
    cid = await drawn(api, organiser, teams, game="balut", format="single_elimination")
    (table,) = (await command(api, cid, "rounds/1/start", organiser, "round-1"))["tables"]
    final = await play_balut(api, table["table_id"], headers_of)
    for make in (ratings_read_model, table_ratings_read_model):
        await ProjectionRunner(pool, make()).catch_up()
    (ended,) = [r for r in await read_stream(pool, f"table-{table['table_id']}") if r.event_type == "balut_ended"]
    places = ended.data["result"]["places"]
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in final["seats"]], ranks=places)
    _, reader = await new_user(api, "reader")
    for seat, user in enumerate(final["seats"]):
        page = (await api.get(f"/players/{user}", headers=reader)).json()
        (rating,) = [g for g in page["ratings"] if g["game"] == "balut"]
        assert (rating["mu"], rating["sigma"], rating["games"]) == (
            pytest.approx(expected[seat][0].mu), pytest.approx(expected[seat][0].sigma), 1)
        assert page["recent"][0]["table_id"] == table["table_id"] and page["recent"][0]["won"] == (places[seat] == 1)
    # The card game's match of these teams is not rated a second time: the dice table was.
    assert await pool.fetchval("SELECT count(*) FROM ratings WHERE game = 'baloot'") == 0
    board = (await api.get("/ratings/balut", headers=reader)).json()["rows"]
    assert sorted(r["user_id"] for r in board) == sorted(final["seats"])
