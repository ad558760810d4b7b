"""Championships: one event stream per championship ("championship-{id}"), decided by the tournament
decider and appended with the expected version.

A command loads the stream (cached state + the events after it), asks ``domain.tournament.decide`` and
appends at the version it read; a concurrent writer (another organiser request, or a table's game-end
hook recording a result) makes the append fail and the command is decided again on the fresh state.
Event ids derive from the client's command id and the stream remembers the command ids it applied, so a
retried request stores nothing new.

Matches are played at tables (``services.api.tables``): starting a round opens one table per match to
play, and the game-end hook either opens the match's next game or records the match result. Table ids
are deterministic (``{championship}-{match}-g{n}``), so both are safe to repeat.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import uuid
from collections import OrderedDict

import asyncpg
import msgspec

from domain.profiles import RuleProfile, profile_named
from domain.tournament import (
    GameResult,
    MakeDraw,
    RecordMatchResult,
    Settings,
    Tournament,
    TournamentEvent,
    TournamentRuleError,
    decide,
    evolve,
    match_result,
)
from domain.tournament.results import games_to_win
from projections import bracket as bracket_projection
from projections import standings as standings_projection
from services.api.problems import Problem
from services.api.tables import Table, TableOpened, TableService
from services.eventstore import Codec, ConcurrencyError, append, read_stream

log = logging.getLogger("baloot.championships")

MAX_ATTEMPTS = 20          # results of many tables may land at once on one championship stream
NAMESPACE = uuid.UUID("0f6d9a52-3c1e-4b8f-8a57-6d2b1e9c4a70")
SYSTEM_ACTOR = "system"

CODEC = Codec(TournamentEvent)


class Championship(msgspec.Struct, frozen=True):
    """A championship as the service folds it: the tournament, its projections, version and command ids."""

    state: Tournament = msgspec.field(default_factory=Tournament)
    standings: standings_projection.Standings = msgspec.field(default_factory=standings_projection.initial)
    bracket: bracket_projection.Bracket = msgspec.field(default_factory=bracket_projection.initial)
    version: int = 0
    commands: dict[str, int] = msgspec.field(default_factory=dict)   # command id -> version after it


class Outcome(msgspec.Struct):
    version: int
    replayed: bool = False
    events: list[str] = []


def stream_of(championship_id: str) -> str:
    return f"championship-{championship_id}"


def event_id(championship_id: str, command_id: str, k: int) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"{championship_id}/{command_id}/{k}")


def championship_id_for(user_id: str, command_id: str) -> str:
    """A new championship's id: a retried creation (same user, same command id) names the same one."""
    return uuid.uuid5(NAMESPACE, f"create/{user_id}/{command_id}").hex[:16]


def table_id_for(championship_id: str, match_id: str, game_no: int) -> str:
    return f"{championship_id}-{match_id}-g{game_no}"


# ---- settings <-> rule profile ----
# Settings.switches is a tuple of text, so each switch is kept as "name=<JSON value>".

def encode_switches(switches: dict) -> tuple[str, ...]:
    return tuple(f"{k}={msgspec.json.encode(v).decode()}" for k, v in sorted(switches.items()))


def decode_switches(switches: tuple[str, ...]) -> dict:
    out = {}
    for text in switches:
        name, _, value = text.partition("=")
        out[name] = msgspec.json.decode(value) if value else True
    return out


def table_profile(settings: Settings) -> RuleProfile:
    """The rules the championship's tables play: its profile, its switches, and its game target."""
    return profile_named(settings.profile, {**decode_switches(settings.switches), "target": settings.game_target})


# ---- refusals ----

_RULES = (   # words of a TournamentRuleError -> the stable rule id of its problem document
    ("registration is closed", "registration_closed"),
    ("registration is not open", "registration_not_open"),
    ("is already registered", "already_registered"),
    ("needs two different players", "team_players"),
    ("is not registered", "unknown_team"),
    ("withdrawn", "team_withdrawn"),
    ("withdrew", "team_withdrawn"),
    ("substitute", "not_a_substitute"),
    ("is not playing for team", "not_in_team"),
    ("does not match the published commitment", "seed_mismatch"),
    ("commitment", "draw_commitment"),
    ("has no rating", "missing_rating"),
    ("the draw is made once", "draw_not_allowed"),
    ("no teams to draw", "no_teams"),
    ("rounds start after the draw", "draw_first"),
    ("the next round is round", "wrong_round"),
    ("undecided matches", "round_undecided"),
    ("there is no round", "championship_decided"),
    ("remains to be played", "rounds_remaining"),
    ("already has a result", "match_decided"),
    ("is not a match of round", "unknown_match"),
    ("nothing to play", "nothing_to_play"),
    ("does not play in match", "not_in_match"),
    ("no round is being played", "no_round"),
    ("best of", "match_length"),
    ("game target", "game_target"),
    ("a game ends when", "game_target"),
    ("unknown format", "unknown_format"),
    ("group", "groups_settings"),
    ("already exists", "championship_exists"),
    ("is finished", "championship_finished"),
    ("finishes after its draw", "draw_first"),
)


def refusal(err: TournamentRuleError) -> Problem:
    text = str(err)
    rule = next((r for words, r in _RULES if words in text), "tournament_rule")
    return Problem(409, rule, text, title="the championship rules refuse this")


# ---- the service ----

class ChampionshipService:
    def __init__(self, pool: asyncpg.Pool, tables: TableService, cache_size: int = 256):
        self.pool = pool
        self.tables = tables
        self._cache: OrderedDict[str, Championship] = OrderedDict()
        self._cache_size = cache_size

    def draw_seed(self, championship_id: str) -> str:
        """The draw seed, derived from the server secret: its sha256 is published at close, it at the draw."""
        return hmac.new(self.tables.secret, f"championship/{championship_id}/draw".encode(),
                        hashlib.sha256).hexdigest()

    async def load(self, championship_id: str, *, missing_ok: bool = False) -> Championship:
        """The championship folded up to its last stored event."""
        champ = self._cache.get(championship_id) or Championship()
        rows = await read_stream(self.pool, stream_of(championship_id), champ.version + 1)
        if rows:
            champ = fold_rows(champ, rows)
            self._cache[championship_id] = champ
            self._cache.move_to_end(championship_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        if champ.version == 0 and not missing_ok:
            raise Problem(404, "unknown_championship", f"there is no championship {championship_id!r}")
        return champ

    async def events(self, championship_id: str) -> list:
        """Every stored event of the championship, decoded."""
        return [CODEC.decode(r) for r in await read_stream(self.pool, stream_of(championship_id))]

    async def execute(self, championship_id: str, command_id: str, make_commands, *, actor: str,
                      new: bool = False) -> tuple[Outcome, Championship]:
        """Decide ``make_commands(championship)`` (a list, decided in turn) and append, retrying on conflicts."""
        for _ in range(MAX_ATTEMPTS):
            champ = await self.load(championship_id, missing_ok=new)
            done = champ.commands.get(command_id)
            if done is not None:
                return Outcome(done, replayed=True), champ
            state = champ.state
            events: list = []
            try:
                for command in make_commands(champ):
                    for e in decide(state, command):
                        state = evolve(state, e)
                        events.append(e)
            except TournamentRuleError as err:
                raise refusal(err) from None
            rows = [CODEC.encode(e, event_id=event_id(championship_id, command_id, k),
                                 metadata={"command_id": command_id, "actor": actor})
                    for k, e in enumerate(events)]
            try:
                version = await append(self.pool, stream_of(championship_id), champ.version, rows)
            except ConcurrencyError:
                continue
            champ = await self.load(championship_id)
            return Outcome(version, events=[type(e).__struct_config__.tag for e in events]), champ
        raise Problem(409, "championship_busy", f"championship {championship_id} kept changing; try again")

    # ------------------------------------------------------------ draw and rounds

    def make_draw(self, championship_id: str, champ: Championship, ratings: dict[str, float]) -> MakeDraw:
        if champ.state.settings is not None and champ.state.settings.seeding == "rating":
            return MakeDraw(ratings=tuple(sorted(ratings.items())))
        return MakeDraw(seed=self.draw_seed(championship_id))

    async def open_round_tables(self, championship_id: str, round_no: int, actor: str) -> list[Table]:
        """One table (game 1) per match of the round still to play; byes and forfeits get none."""
        champ = await self.load(championship_id)
        state = champ.state
        if not 1 <= round_no <= len(state.rounds):
            return []
        round_ = state.rounds[round_no - 1]
        settings = state.settings
        profile = table_profile(settings)
        opened = []
        for m in round_.matches:
            if m.note or m.team_a is None or m.team_b is None or round_.outcomes[m.index] is not None:
                continue
            a, b = state.teams[m.team_a].players, state.teams[m.team_b].players
            table = TableOpened(table_id=table_id_for(championship_id, m.match_id, 1),
                                seats=(a[0], b[0], a[1], b[1]), profile=profile, mode=settings.table_mode,
                                opened_by=actor, championship_id=championship_id, match_id=m.match_id,
                                game_no=1)
            opened.append(await self.tables.open_table(table))
        return opened

    async def match_tables(self, championship_id: str) -> list[asyncpg.Record]:
        return await self.pool.fetch(
            "SELECT table_id, match_id, game_no, status, seats FROM tables_index WHERE championship_id = $1 "
            "ORDER BY match_id, game_no", championship_id)

    # ------------------------------------------------------------ results from the tables

    async def game_ended(self, tables: TableService, table: Table) -> None:
        """Game-end hook: open the match's next game, or record the match result once it is decided."""
        o = table.opened
        if o is None or o.championship_id is None or o.match_id is None:
            return
        try:
            await self._game_ended(o)
        except Problem as exc:
            log.warning("championship %s, match %s: result not recorded: %s (%s)", o.championship_id,
                        o.match_id, exc.detail, exc.rule)
        except Exception:
            log.exception("championship %s, match %s: game-end hook failed", o.championship_id, o.match_id)

    async def collect_results(self, championship_id: str) -> None:
        """Run the game-end step again for the current round's undecided matches whose last table has ended.

        The hook runs after a game's last events are stored; a crash in between would otherwise leave the
        match undecided for ever. Both of its steps are idempotent, so repeating them is safe.
        """
        state = (await self.load(championship_id)).state
        if state.status != "running":
            return
        current = state.rounds[-1]
        undecided = {m.match_id for m in current.matches if current.outcomes[m.index] is None}
        rows = await self.pool.fetch("SELECT DISTINCT ON (match_id) table_id, match_id FROM tables_index "
                                     "WHERE championship_id = $1 ORDER BY match_id, game_no DESC", championship_id)
        for r in rows:
            if r["match_id"] in undecided:
                table = await self.tables.load(r["table_id"])
                if table.game.phase == "ended":
                    await self.game_ended(self.tables, table)

    async def _game_ended(self, o: TableOpened) -> None:
        cid, match_id = o.championship_id, o.match_id
        champ = await self.load(cid)
        settings = champ.state.settings
        rows = await self.pool.fetch("SELECT table_id FROM tables_index WHERE championship_id = $1 AND "
                                     "match_id = $2 ORDER BY game_no", cid, match_id)
        games: list[GameResult] = []
        for r in rows:
            t = await self.tables.load(r["table_id"])
            if t.game.phase != "ended":
                return                       # a later game of this match is already being played
            a, b = t.game.scores
            games.append(GameResult(a, b, "a" if t.game.winner == 0 else "b", t.game.end_reason or "target"))
        wins_a = sum(g.winner == "a" for g in games)
        if max(wins_a, len(games) - wins_a) < games_to_win(settings.match_games):
            following = TableOpened(table_id=table_id_for(cid, match_id, o.game_no + 1), seats=o.seats,
                                    profile=o.profile, mode=o.mode, hands_policy=o.hands_policy,
                                    delay_seconds=o.delay_seconds, opened_by=SYSTEM_ACTOR, championship_id=cid,
                                    match_id=match_id, game_no=o.game_no + 1)
            await self.tables.open_table(following)
            return
        try:
            result = match_result(games, settings.match_games)
        except TournamentRuleError as err:
            raise refusal(err) from None
        await self.execute(cid, f"match-result/{match_id}", lambda _: [RecordMatchResult(match_id, result)],
                           actor=SYSTEM_ACTOR)


def fold_rows(champ: Championship, rows) -> Championship:
    """Fold stored rows into ``champ`` (the tournament and both projections)."""
    state, standings, bracket = champ.state, champ.standings, champ.bracket
    added = {}
    for r in rows:
        e = CODEC.decode(r)
        state = evolve(state, e)
        standings = standings_projection.apply(standings, e)
        bracket = bracket_projection.apply(bracket, e)
        cid = r.metadata.get("command_id")
        if cid:
            added[cid] = r.version
    commands = {**champ.commands, **added} if added else champ.commands
    return Championship(state, standings, bracket, rows[-1].version, commands)


def install(app) -> None:
    """Give the app its championship service and let finished games report to it (called in the lifespan)."""
    app.state.championships = ChampionshipService(app.state.pool, app.state.tables)
    app.state.tables.game_end_hooks.append(app.state.championships.game_ended)

