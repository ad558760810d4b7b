"""Players' ratings as read models: kept by the workers' projection runners from every championship's stream
(``ratings_rm``, the card game) and every dice table's (``table_ratings_rm``, Balut), each in the log's order, so that ``baloot ratings rebuild`` (a
rebuild from zero) gives the same rows; and the reads the API serves (a game's leaderboard, keyset-paged; a
player's ratings and results).

How a game is rated is the game's to say (``GameInfo.rated_by``): the card game's championship matches rate
both teams' players (the winners first; a forfeit is no game played and is not rated); every finished Balut
table rates each player for himself by his place (``Game.places``). Each update is a row of
``ratings_updates`` with the absolute values it left.
"""

from __future__ import annotations

import asyncpg
import msgspec

from domain import games
from domain.tournament import events as e
from projections.ratings import Rating, rate, rate_match
from services.accounts import user_names
from services.championships import CODEC, team_names
from services.eventstore import RecordedEvent, projection
from services.tables import CODEC as TABLE_CODEC

NAME = "ratings_rm"
TABLE_NAME = "table_ratings_rm"
PREFIX = "championship-"
TABLE_PREFIX = "table-"
RATED_GAMES = games.names()
BY_MATCH = tuple(name for name in games.names() if games.get(name).info.rated_by == "match")
BY_TABLE = tuple(name for name in games.names() if games.get(name).info.rated_by == "table")
# What the tables' projection reads: their openings and the ends of the games rated by table.
TABLE_EVENTS = ("table_opened", *(games.get(name).info.end_event.__struct_config__.tag for name in BY_TABLE))
GAME_ROW = ""                      # the roster row that says a championship's game


async def apply_ratings(conn: asyncpg.Connection, event: RecordedEvent) -> None:
    if not event.stream_id.startswith(PREFIX):
        return
    championship_id = event.stream_id[len(PREFIX):]
    match CODEC.decode(event):
        case e.ChampionshipCreated(settings=settings):
            await conn.execute("INSERT INTO ratings_rosters VALUES ($1, $2, $3, '{}') ON CONFLICT DO NOTHING",
                               championship_id, GAME_ROW, settings.game)
        case e.TeamRegistered(team_id=team_id, players=players):
            await conn.execute(
                "INSERT INTO ratings_rosters SELECT $1, $2, game, $3 FROM ratings_rosters "
                "WHERE championship_id = $1 AND team_id = '' ON CONFLICT (championship_id, team_id) "
                "DO UPDATE SET players = $3", championship_id, team_id, list(players))
        case e.PlayerSubstituted(team_id=team_id, player_out=out, player_in=new):
            await conn.execute("UPDATE ratings_rosters SET players = array_replace(players, $3, $4) "
                               "WHERE championship_id = $1 AND team_id = $2", championship_id, team_id, out, new)
        case e.MatchResultRecorded(match_id=match_id, winner=winner, loser=loser):
            await _rate_match(conn, event.position, championship_id, match_id, winner, loser)


async def _rate_match(conn, position: int, championship_id: str, match_id: str, winner: str, loser: str) -> None:
    rows = await conn.fetch("SELECT team_id, game, players FROM ratings_rosters WHERE championship_id = $1 "
                            "AND team_id = ANY($2)", championship_id, [winner, loser])
    teams = {r["team_id"]: tuple(r["players"]) for r in rows}
    game = rows[0]["game"] if rows else None
    if game not in BY_MATCH or set(teams) != {winner, loser}:      # a game rated by its tables, not here
        return
    current = await _current(conn, game, [*teams[winner], *teams[loser]])
    new = rate_match(current, teams[winner], teams[loser])
    await _store(conn, game, new, [(position, game, p, championship_id, match_id, None, p in teams[winner], r.mu,
                                    r.sigma) for p, r in new.items()])


async def apply_table_ratings(conn: asyncpg.Connection, event: RecordedEvent) -> None:
    """A table of a game rated by table: its seats when it opens, its players rated by their places when its
    game ends (the card game's tables are rated as their championship's matches)."""
    if event.event_type == "table_opened":
        opened = TABLE_CODEC.decode(event)
        if opened.game in BY_TABLE:
            await conn.execute("INSERT INTO ratings_tables VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                               event.stream_id, opened.game, list(opened.seats))
        return
    row = await conn.fetchrow("DELETE FROM ratings_tables WHERE table_id = $1 RETURNING game, seats", event.stream_id)
    if row is None or len(set(row["seats"])) != len(row["seats"]):  # one person in two seats: no contest to rate
        return
    game, seats = row["game"], list(row["seats"])
    places = list(games.get(game).places(TABLE_CODEC.decode(event)))
    table_id = event.stream_id[len(TABLE_PREFIX):]
    championship_id = await conn.fetchval("SELECT championship_id FROM tables_index WHERE table_id = $1", table_id)
    new = rate(await _current(conn, game, seats), [(p,) for p in seats], places)
    await _store(conn, game, new, [(event.position, game, p, championship_id, None, table_id, place == 1,
                                    new[p].mu, new[p].sigma) for p, place in zip(seats, places)])


async def _current(conn, game: str, players) -> dict[str, Rating]:
    return {r["user_id"]: Rating(r["mu"], r["sigma"], r["games"]) for r in await conn.fetch(
        "SELECT user_id, mu, sigma, games FROM ratings WHERE game = $1 AND user_id = ANY($2)", game, list(players))}


async def _store(conn, game: str, new: dict[str, Rating], updates: list[tuple]) -> None:
    await conn.executemany(
        "INSERT INTO ratings (game, user_id, mu, sigma, ordinal, games) VALUES ($1, $2, $3, $4, $5, $6) "
        "ON CONFLICT (game, user_id) DO UPDATE SET mu = $3, sigma = $4, ordinal = $5, games = $6",
        [(game, p, r.mu, r.sigma, r.ordinal, r.games) for p, r in new.items()])
    await conn.executemany(
        "INSERT INTO ratings_updates (position, game, user_id, championship_id, match_id, table_id, won, mu, sigma) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING", updates)


async def _reset(conn: asyncpg.Connection, games: tuple[str, ...], table: str) -> None:
    await conn.execute("DELETE FROM ratings WHERE game = ANY($1)", list(games))
    await conn.execute("DELETE FROM ratings_updates WHERE game = ANY($1)", list(games))
    await conn.execute(f"TRUNCATE {table}")


async def reset_ratings(conn: asyncpg.Connection) -> None:
    await _reset(conn, BY_MATCH, "ratings_rosters")


async def reset_table_ratings(conn: asyncpg.Connection) -> None:
    await _reset(conn, BY_TABLE, "ratings_tables")


def ratings_read_model():
    """The ratings of the games rated by match, from the championships' streams (for ``ProjectionRunner``,
    ``run_projection`` and ``rebuild_projection``)."""
    return projection(NAME, apply_ratings, reset_ratings, stream_prefix=PREFIX)


def table_ratings_read_model():
    """The ratings of the games rated by table, from the tables' streams: only their openings and their games'
    ends are read (filtered in SQL). A projection of its own, as the two kinds of game share no rating."""
    return projection(TABLE_NAME, apply_table_ratings, reset_table_ratings, stream_prefix=TABLE_PREFIX,
                      event_types=TABLE_EVENTS)


READ_MODELS = (ratings_read_model, table_ratings_read_model)


# ---- reads ----

class RatedPlayer(msgspec.Struct):
    rank: int
    user_id: str
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class RecentResult(msgspec.Struct):
    game: str
    championship_id: str | None
    match_id: str | None           # a match rated, or
    table_id: str | None           # a dice table rated
    won: bool                      # the match, or first place at the table
    mu: float                      # the rating the match left
    sigma: float


async def leaderboard(db, game: str, after: tuple[float, str] | None, limit: int) -> list[RatedPlayer]:
    """The game's rated people (not bots), best first by ordinal, then by id; ``after`` (ordinal, user id) of
    the last row of the previous page: a keyset page, stable while ratings change elsewhere."""
    rows = await db.fetch(
        "SELECT * FROM (SELECT r.user_id, u.name, r.mu, r.sigma, r.ordinal, r.games, "
        "  row_number() OVER (ORDER BY r.ordinal DESC, r.user_id) AS rank "     # numbered once, in one pass
        "  FROM ratings r JOIN users u ON u.user_id = r.user_id AND u.kind <> 'bot' WHERE r.game = $1) ranked "
        "WHERE $2::float8 IS NULL OR ordinal < $2 OR (ordinal = $2 AND user_id > $3) "
        "ORDER BY rank LIMIT $4",
        game, after[0] if after else None, after[1] if after else "", limit)
    return [RatedPlayer(r["rank"], r["user_id"], r["name"], r["mu"], r["sigma"], r["ordinal"], r["games"])
            for r in rows]


async def ratings_of(db, user_id: str) -> dict[str, Rating]:
    return {r["game"]: Rating(r["mu"], r["sigma"], r["games"]) for r in await db.fetch(
        "SELECT game, mu, sigma, games FROM ratings WHERE user_id = $1 ORDER BY game", user_id)}


async def recent_results(db, user_id: str, limit: int = 20) -> list[RecentResult]:
    return [RecentResult(r["game"], r["championship_id"], r["match_id"], r["table_id"], r["won"], r["mu"], r["sigma"])
            for r in await db.fetch("SELECT game, championship_id, match_id, table_id, won, mu, sigma "
                                    "FROM ratings_updates WHERE user_id = $1 ORDER BY position DESC LIMIT $2",
                                    user_id, limit)]


async def team_ratings(db, game: str, teams: dict[str, tuple[str, ...]]) -> dict[str, float]:
    """Each team's rating for seeding: its players' mean ordinal in ``game`` (a player never rated counts as a
    newcomer, openskill's start)."""
    rated = {r["user_id"]: r["ordinal"] for r in await db.fetch(
        "SELECT user_id, ordinal FROM ratings WHERE game = $1 AND user_id = ANY($2)", game,
        [p for players in teams.values() for p in players])}
    return {team: sum(rated.get(p, Rating().ordinal) for p in players) / len(players)
            for team, players in teams.items() if players}


async def championships_of(db, user_id: str) -> list[str]:
    return [r["championship_id"] for r in await db.fetch(
        "SELECT DISTINCT championship_id FROM ratings_rosters WHERE $1 = ANY(players) ORDER BY championship_id",
        user_id)]


async def opponents(db, championships, user_id: str, recent: list[RecentResult]) -> list[list[str]]:
    """Whom each of ``recent`` was against, by name: the match's other team (as the championship's pages call
    it), or the other players of a dice table (finished and rated: nothing hidden). ``championships`` is the
    championship service the match is read from."""
    out = []
    for r in recent:
        against: list[str] = []
        if r.championship_id and r.match_id:
            state = (await championships.load(r.championship_id)).state
            match = next((m for rnd in state.rounds for m in rnd.matches if m.match_id == r.match_id), None)
            mine = state.players.get(user_id)
            other = None if match is None else match.team_b if match.team_a == mine else match.team_a
            if other:
                against = [(await team_names(db, state, [other]))[other]]
        elif r.table_id:
            seats = await db.fetchval("SELECT seats FROM tables_index WHERE table_id = $1", r.table_id) or []
            names = await user_names(db, [s for s in seats if s != user_id])
            against = [names.get(s, s) for s in seats if s != user_id]
        out.append(against)
    return out
