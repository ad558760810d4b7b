"""A table proposed by a user: its options checked against what its game takes (``services.game_options``)
and its terms (``domain.table.terms_problem``), its seats named (a person plays one seat; "bot" is a bot of the
table's level, whose account is made here), then proposed to the table service with the bots and the creator
accepting; a creator who does not sit at it referees it."""

from __future__ import annotations

import uuid

from domain import games
from domain.table import terms_problem
from services.bots import BOT_SEAT, table_bot
from services.errors import Invalid, Unprocessable
from services.game_options import game_profile
from services.people import kinds as user_kinds
from services.roles import grant
from services.tables import TableOpened


async def propose_table(pool, tables, creator: str, asked):
    """The table ``creator`` proposes with the options ``asked`` (anything with the fields of the API's
    ``NewTable``): the stored table (its id is ``table.table_id``)."""
    game = games.get(asked.game)
    profile = game_profile(asked.game, seats=len(asked.seats), profile=asked.profile, switches=asked.switches,
                           table_mode=asked.table_mode, mode_field="mode", on_timeout=asked.on_timeout,
                           bot_levels=(("bot_level", asked.bot_level), ("timeout_bot_level", asked.timeout_bot_level)))
    level = asked.bot_level or game.info.default_bot
    people = [s for s in asked.seats if s != BOT_SEAT]
    kinds = await user_kinds(pool, people)
    missing = [s for s in people if s not in kinds]
    if missing:
        raise Unprocessable("unknown_user", f"no user {missing[0]!r} to seat", field="seats")
    twice = next((s for i, s in enumerate(people) if kinds[s] == "human" and s in people[:i]), None)
    if twice is not None:
        raise Unprocessable("seated_twice", f"user {twice} is named for two seats: a person plays one seat",
                            field="seats")
    bot_account = f"bot-{level}"                # services/bots.py: made once the table is accepted below
    seats = tuple(bot_account if s == BOT_SEAT else s for s in asked.seats)
    kinds[bot_account] = "bot"
    table_id = uuid.uuid4().hex[:16]
    bots = tuple(level if kinds[s] == "bot" else None for s in seats)
    opened = TableOpened(table_id=table_id, seats=seats, table_mode=asked.table_mode,
                         hands_policy=asked.hands_policy, delay_seconds=asked.delay_seconds,
                         opened_by=creator, bots=bots, turn_seconds=asked.turn_seconds,
                         on_timeout=asked.on_timeout, timeout_bot_level=asked.timeout_bot_level or game.info.default_bot,
                         max_timeouts=asked.max_timeouts, bot_pace=asked.bot_pace_seconds, game=game.info.name,
                         **game.profile_fields(profile))
    problem = terms_problem(opened)
    if problem is not None:
        raise Invalid("invalid_field", problem[1], field=problem[0])
    if BOT_SEAT in asked.seats:
        await table_bot(pool, level)
    accepted = {creator} | {s for s in seats if kinds[s] == "bot"}
    table = await tables.propose_table(opened, accepted)
    if creator not in asked.seats:              # a seated creator plays; he is never his own referee
        await grant(pool, "table", table_id, creator, "referee")
    return table
