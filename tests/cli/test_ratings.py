"""`baloot ratings rebuild`, run as a user would (subprocess): the ratings recomputed from the log equal what
the workers kept, and the best players are printed by name."""

from __future__ import annotations

from domain.tournament.events import MatchResultRecorded
from services.db import schema_url
from services.eventstore import ProjectionRunner
from services.ratings import ratings_read_model
from tests.cli.test_errors import baloot
from tests.stored_championship import knock_out, team_name


async def test_ratings_rebuild_recomputes_what_the_workers_kept(database_url, db_schema, pool):
    _, sim = await knock_out(pool, 8)
    await ProjectionRunner(pool, ratings_read_model()).catch_up()
    kept = [tuple(r) for r in await pool.fetch("SELECT * FROM ratings ORDER BY game, user_id")]
    await pool.execute("UPDATE ratings SET mu = 0")                    # a read model gone wrong
    done = baloot("ratings", "rebuild", "--top", "2", env={"DATABASE_URL": schema_url(database_url, db_schema)})
    assert done.returncode == 0, done.stderr
    assert [tuple(r) for r in await pool.fetch("SELECT * FROM ratings ORDER BY game, user_id")] == kept
    lines = done.stdout.splitlines()
    results = sum(isinstance(e, MatchResultRecorded) for e in sim.events)
    assert lines[0].startswith("baloot ratings: rebuilt to position ")
    assert lines[0].endswith(f": {len(kept)} ratings, {4 * results} updates")      # four players a match
    best = [line.split(". ", 1)[1].split("  ")[0].strip() for line in lines[1:3]]
    assert sorted(best) == sorted(team_name(sim, sim.state.champion).split(" & "))
