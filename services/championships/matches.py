"""A championship's matches at the tables: a round's tables opened, and what each finished game means for its
match (its next game, or its result on the championship's stream; the rule: ``domain/tournament/matches.py``).

Table ids are deterministic (``{championship}-{match}-g{n}``; a duplicate match's ``dup.…t1`` and ``.t2``),
so opening them and recording a result are safe to repeat: the game-end step runs after a game's last events
are stored, and again from ``collect_results`` (a crash in between would otherwise leave the match undecided).
Seats of users whose kind is 'bot' are played by bots.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import asyncpg
import msgspec

from domain import games
from domain.table import game_of
from domain.tournament import ChampionshipRuleError, RecordMatchResult, Settings
from domain.tournament.matches import after_games
from services import people
from services.championships import duplicate
from services.errors import ServiceError
from services.eventstore import reads
from services.tables import Table, TableOpened, stream_of

if TYPE_CHECKING:
    from services.tables import TableService

log = logging.getLogger("baloot.championships")
SYSTEM_ACTOR = "system"


def table_id_for(championship_id: str, match_id: str, game_no: int) -> str:
    return f"{championship_id}-{match_id}-g{game_no}"


# The championship's switches of its game's profile: Settings.switches is a tuple of text, so each switch
# is kept as "name=<JSON value>".

def encode_switches(switches: dict) -> tuple[str, ...]:
    return tuple(f"{k}={msgspec.json.encode(v).decode()}" for k, v in sorted(switches.items()))


def decode_switches(switches: tuple[str, ...]) -> dict:
    out = {}
    for text in switches:
        name, _, value = text.partition("=")
        out[name] = msgspec.json.decode(value) if value else True
    return out


def table_profile(settings: Settings):
    """The rules the championship's tables play: its game's profile, its switches, and its game target (for
    profiles that have one)."""
    game = games.get(settings.game)
    switches = decode_switches(settings.switches)
    if "target" in game.profile(settings.profile).__struct_fields__:
        switches["target"] = settings.game_target
    return game.profile(settings.profile, switches)


# Each game's end event: a table whose game has ended has one (the log indexes them, ``migrations/0018``).
GAME_ENDS = sorted(g.info.end_event.__struct_config__.tag for g in games.every())
LAST_TABLES = ("SELECT DISTINCT ON (match_id) table_id, match_id FROM tables_index WHERE championship_id = $1 "
               "ORDER BY match_id, game_no DESC")


class MatchService:
    """A championship's matches at the tables on ``pool``: opening a round's tables, and a match going on from
    its games' ends, each result a command of the championship (``load`` its fold, ``execute`` a command on
    its stream: the championship service's own)."""

    def __init__(self, pool: asyncpg.Pool, tables: TableService, load, execute):
        self.pool, self.tables = pool, tables
        self.load, self.execute = load, execute

    async def tables_of(self, championship_id: str) -> list[asyncpg.Record]:
        """The championship's tables, by match and game."""
        return await self.pool.fetch(
            "SELECT table_id, match_id, game_no, status, seats FROM tables_index WHERE championship_id = $1 "
            "ORDER BY match_id, game_no", championship_id)

    async def open_round_tables(self, championship_id: str, round_no: int, actor: str,
                                only: set[str] | None = None) -> list[Table]:
        """Game 1 of each match of the round still to play (of ``only`` those matches, if given) that has no
        table yet; byes and forfeits get none. Seats of bot users are played by bots."""
        champ = await self.load(championship_id)
        state = champ.state
        if not 1 <= round_no <= len(state.rounds):
            return []
        settings, run = state.settings, champ.run
        profile = table_profile(settings)
        game = games.get(settings.game)
        have = {r["match_id"] for r in await self.tables_of(championship_id)}
        todo = [m for m in state.rounds[round_no - 1].to_play()
                if m.match_id not in have and (only is None or m.match_id in only)]
        players = [p for m in todo for t in (m.team_a, m.team_b) for p in state.teams[t].players]
        bots = await people.bots(self.pool, players)
        openings = []
        for m in todo:
            a, b = state.teams[m.team_a].players, state.teams[m.team_b].players
            seats = (a[0], b[0], a[1], b[1])
            table = TableOpened(table_id=table_id_for(championship_id, m.match_id, 1), seats=seats,
                                game=game.info.name, **game.profile_fields(profile), table_mode=settings.table_mode,
                                opened_by=actor, championship_id=championship_id, match_id=m.match_id, game_no=1,
                                bots=tuple(run.bot_level if p in bots else None for p in seats),
                                turn_seconds=run.turn_seconds, on_timeout=run.on_timeout,
                                timeout_bot_level=run.bot_level, bot_pace=run.bot_pace_seconds,
                                hands_policy=run.hands_policy, delay_seconds=run.delay_seconds)
            if settings.format == "duplicate":      # two tables of the round's boards, seats swapped
                table = msgspec.structs.replace(table, profile=duplicate.profile(
                    settings, decode_switches(settings.switches)))
                openings.extend(duplicate.tables(championship_id, state, m, table, bots, run.bot_level))
                continue
            openings.append(table)
        return await self.tables.open_tables(openings)

    # ------------------------------------------------------------ shared boards

    def round_over(self, state, round_no: int) -> bool:
        """Whether round ``round_no`` of a duplicate event is decided: its boards may be shown."""
        return 1 <= round_no <= len(state.rounds) and not state.rounds[round_no - 1].undecided

    async def reveal_boards(self, championship_id: str, state) -> int:
        """Reveal the seeds held back at the tables of every decided round of a duplicate event whose tables
        still hold some (the step after the result that decides a round, and its repair); returns how many
        tables revealed."""
        if state.settings is None or state.settings.format != "duplicate":
            return 0
        decided = [r.number for r in state.rounds if not r.undecided]
        if not decided:
            return 0
        holding = await self.tables.holding_seeds(
            "t.championship_id = $1 AND split_part(t.match_id, '-', 1)::int = ANY($2)", championship_id, decided)
        for table_id in holding:
            await self.tables.reveal_held_seeds(table_id)
        return len(holding)

    # ------------------------------------------------------------ results from the tables

    async def game_ended(self, table: Table) -> None:
        """A game ended: open its match's next game, or record the match result once it is decided."""
        o = table.opened
        if o is None or o.championship_id is None or o.match_id is None:
            return
        try:
            await self._game_ended(o)
        except (ServiceError, ChampionshipRuleError) as exc:
            log.warning("championship %s, match %s: result not recorded: %s (%s)", o.championship_id,
                        o.match_id, exc, exc.rule)
        except Exception:
            log.exception("championship %s, match %s: game-end step failed", o.championship_id, o.match_id)

    async def collect_results(self, championship_id: str) -> None:
        """The game-end step again for the current round's undecided matches whose last table has ended
        (both of its steps are idempotent)."""
        state = (await self.load(championship_id)).state
        await self.reveal_boards(championship_id, state)       # a reveal lost with a crash after its result
        if state.status != "running":
            return
        current = state.rounds[-1]
        undecided = {m.match_id for m in current.matches if current.outcomes[m.index] is None}
        # Each match's last table, if its game has ended (by the log's index of game ends: a round of 4,096
        # matches is not read table by table to find the few whose step was lost).
        last = {r["table_id"]: r["match_id"] for r in await self.pool.fetch(LAST_TABLES, championship_id)
                if r["match_id"] in undecided}
        ended = await reads.streams_holding(self.pool, [stream_of(t) for t in last], GAME_ENDS)
        for table_id in last:
            if stream_of(table_id) in ended:
                table = await self.tables.load(table_id)
                if table.game.phase == "ended":
                    await self.game_ended(table)

    async def _game_ended(self, o: TableOpened) -> None:
        cid, match_id = o.championship_id, o.match_id
        settings = (await self.load(cid)).state.settings
        rows = await self.pool.fetch("SELECT table_id FROM tables_index WHERE championship_id = $1 AND "
                                     "match_id = $2 ORDER BY game_no", cid, match_id)
        tables = [await self.tables.load(r["table_id"]) for r in rows]
        if any(t.game.phase != "ended" for t in tables):
            return                           # a later game (or the other duplicate table) is being played
        if settings.format == "duplicate":
            if len(tables) != 2:
                return
            decision = RecordMatchResult(match_id, duplicate.match_result(tables[0], tables[1],
                                                                          settings.duplicate_boards))
        else:
            # The seam: each game's result as the championship's game of a match, team A against team B.
            decision = after_games(match_id, [game_of(t).match_game(game_of(t).result(t.game)) for t in tables],
                                   settings.match_games)
        if decision is None:
            # The next game: the same table, its seats played as the championship set them (bots included).
            following = msgspec.structs.replace(o, table_id=table_id_for(cid, match_id, o.game_no + 1),
                                                opened_by=SYSTEM_ACTOR, game_no=o.game_no + 1)
            await self.tables.open_table(following)
            return
        await self.execute(cid, f"match-result/{match_id}", lambda _: [decision], actor=SYSTEM_ACTOR)
