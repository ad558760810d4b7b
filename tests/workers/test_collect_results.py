"""A full championship tick collects the results of games whose game-end step was lost (a crash between a
game's last append and its result): it finds them by the log's index of game ends, reading no table whose
game goes on, so a round of 4,096 matches is not read table by table every pass."""

from __future__ import annotations

from pathlib import Path

from domain.games import GAMES
from services.championships.matches import GAME_ENDS, LAST_TABLES
from services.eventstore import NewEvent, append, reads

ROWS = [  # table, match, game: m1 played its game 1 and goes on at game 2; m2 ended; m3 goes on; m4 (balut) ended
    ("c-m1-g1", "m1", 1, "game_ended"), ("c-m1-g2", "m1", 2, None), ("c-m2-g1", "m2", 1, "game_ended"),
    ("c-m3-g1", "m3", 1, None), ("c-m4-g1", "m4", 1, "balut_ended"), ("other-m5-g1", "m5", 1, "game_ended"),
]


async def test_the_last_tables_whose_games_ended_come_from_the_index_of_game_ends(pool):
    for table_id, match_id, game_no, end in ROWS:
        await pool.execute("INSERT INTO tables_index (table_id, championship_id, match_id, game_no, profile, mode, "
                           "seats) VALUES ($1, $2, $3, $4, 'saudi', 'teams', '{a,b,c,d}')", table_id,
                           "other" if table_id.startswith("other") else "c", match_id, game_no)
        played = [NewEvent(event_type="card_played", data={}) for _ in range(3)]
        await append(pool, f"table-{table_id}", 0, played + ([NewEvent(event_type=end, data={})] if end else []))
    last = {f"table-{r['table_id']}": r["match_id"] for r in await pool.fetch(LAST_TABLES, "c")}
    assert sorted(last.values()) == ["m1", "m2", "m3", "m4"]
    ended = await reads.streams_holding(pool, list(last), GAME_ENDS)
    assert sorted((s, last[s]) for s in ended) == [("table-c-m2-g1", "m2"), ("table-c-m4-g1", "m4")]
    # Usable, not only chosen on a big log: with scans off the planner takes it over the streams' own index,
    # which it could not if the query's kinds did not match the index's (a parameter would not).
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + reads.holding_statement(GAME_ENDS), list(last)))
    assert "events_game_ends_idx" in plan, plan


def test_every_games_end_event_is_in_the_index():
    assert GAME_ENDS == sorted(g.info.end_event.__struct_config__.tag for g in GAMES.values())
    sql = (Path(__file__).resolve().parents[2] / "migrations" / "0018_hot_paths.sql").read_text()
    index = sql[sql.index("CREATE INDEX events_game_ends_idx"):].split(";")[0]
    assert all(f"'{tag}'" in index for tag in GAME_ENDS), index
