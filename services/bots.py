"""Bot accounts are the server's: it makes one when a table seats a bot or an organiser registers a team of
bots, and nobody signs one up or holds its token (a person holding a bot's token could read the hand of the
bot he seated as his partner).

A table's bot seats are played by the account of the table's bot level (``bot-<level>``: a bot may sit at
several seats of one table, and at any number of tables); a team's bots are accounts of their own (a player
is registered once in a championship), named after the team.
"""

from __future__ import annotations

import uuid

import asyncpg

BOT_SEAT = "bot"          # what a client names in a seat (a table's) or a player (an organiser's team) for a bot
NAMESPACE = uuid.UUID("8a1d2f4e-51c7-4c1b-9d8e-0b5c3e6f7a21")


async def table_bot(db: asyncpg.Pool | asyncpg.Connection, level: str) -> str:
    """The account that plays bot seats at ``level`` (made the first time it is needed)."""
    user_id = f"bot-{level}"
    await db.execute("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'bot') ON CONFLICT DO NOTHING",
                     user_id, f"Bot ({level})")
    return user_id


async def team_bots(db: asyncpg.Pool | asyncpg.Connection, championship_id: str, team_id: str,
                    places: list[int]) -> dict[int, str]:
    """Accounts of their own for the bots at ``places`` of a team (the same ones for the same team: a retried
    registration makes no more)."""
    out = team_bot_ids(championship_id, team_id, places)
    await db.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'bot') ON CONFLICT DO NOTHING",
                         [(uid, f"{team_id} bot {i + 1}") for i, uid in out.items()])
    return out


def team_bot_ids(championship_id: str, team_id: str, places: list[int]) -> dict[int, str]:
    """The ids of a team's bots at ``places`` (``team_bots`` makes their accounts)."""
    return {i: "bot-" + uuid.uuid5(NAMESPACE, f"{championship_id}/{team_id}/{i}").hex[:16] for i in places}
