"""Championships: one event stream per championship ("championship-{id}"), decided by the tournament
decider and appended with the expected version.

A command runs the command loop (``services/commands.py``): it loads the stream (cached state + the events
after it), asks ``domain.tournament.decide`` and appends at the version it read; a concurrent writer
(another organiser request, or a table's game-end step recording a result) makes the append fail and the
command is decided again on the fresh state.
Event ids derive from the client's command id and the stream remembers the command ids it applied, so a
retried request stores nothing new.

Beside it: the matches at the tables (``matches.py``), the check-in windows (``checkins.py``) and the team
invitations (``invitations.py``), each with a stream of its own where it needs one, its commands run in the
same loop. How the platform runs the matches (a check-in window, the turn clock, the bots' level and pace)
is not a rule of the tournament:
it is kept as ``RunSettings`` in the metadata of the championship's first event.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import uuid
from typing import TYPE_CHECKING

import asyncpg
import msgspec

from domain.events import HandsPolicy
from domain.table import OnTimeout
from domain.tournament.events import PlayerSubstituted, TeamRegistered
from domain.tournament.state import parse_match_id
from domain.tournament import (
    ChampionshipEvent, ChampionshipState, CloseRegistration, CommitDraw, MakeDraw, RoundPaired, commitment,
    decide, evolve,
)
from projections import bracket as bracket_projection
from projections.standings import StandingRow
from services.championships.checkins import CheckInService
from services.championships.invitations import TeamInvitationService
from services.championships.matches import MatchService
from services.commands import NONE_APPLIED, Applied, CommandLoop, CommandOutcome, Decision, StreamCache, applied_by
from services.commands import event_id as stream_event_id
from services.errors import NotFound
from services.eventstore import Codec, read_stream
from services.tables import TableOpened, TableService

if TYPE_CHECKING:
    from services.flow import Flow
    from services.tables.seeds import Seeds

log = logging.getLogger("baloot.championships")

MAX_ATTEMPTS = 20          # results of many tables may land at once on one championship stream
NAMESPACE = uuid.UUID("0f6d9a52-3c1e-4b8f-8a57-6d2b1e9c4a70")

CODEC = Codec(ChampionshipEvent)


class RunSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How the platform runs a championship's matches (not tournament rules): kept with its creation."""

    check_in_seconds: float | None = None     # None: no check-in, a round's tables open when it starts
    turn_seconds: float | None = None         # the tables' turn clock; None: no clock
    on_timeout: OnTimeout = "auto_play"
    bot_level: str = "normal"                 # the level of bot users' seats and of on_timeout "bot"
    bot_pace_seconds: float = 0.0             # the tables' bot pace (``TableOpened.bot_pace``); 0: full speed
    hands_policy: HandsPolicy = "after_deal"  # what the tables show spectators of the hands
    delay_seconds: float = 0.0                # and how late spectators see them


class Championship(msgspec.Struct, frozen=True):
    """A championship as the service folds it: its state, its bracket, version and command ids. (Its standings
    are the ``standings_rm`` read model the projection runner keeps: ``ChampionshipService.standings``.)"""

    state: ChampionshipState = msgspec.field(default_factory=ChampionshipState)
    bracket: bracket_projection.Bracket = msgspec.field(default_factory=bracket_projection.initial)
    version: int = 0
    # (actor, command id) -> (version after it, digest of the request)
    commands: Applied = NONE_APPLIED
    run: RunSettings = RunSettings()
    round_started_at: tuple[dt.datetime, ...] = ()                   # when each round was paired


def stream_of(championship_id: str) -> str:
    return f"championship-{championship_id}"


def event_id(championship_id: str, actor: str, command_id: str, k: int) -> uuid.UUID:
    return stream_event_id(NAMESPACE, championship_id, actor, command_id, k)


# The lobby's indexes (migrations/0022_lobby.sql): a member since his first registration or substitution in; a
# registered team's invitations wait for nobody any more.
_MEMBER = ("INSERT INTO championship_members (championship_id, user_id) VALUES ($1, $2) "
           "ON CONFLICT (championship_id, user_id) DO NOTHING")
_REGISTERED = "DELETE FROM team_invites_pending WHERE championship_id = $1 AND team_id = $2"


def members_of(championship_id: str, events) -> list[tuple[str, str]]:
    """The (championship, user) rows of the people ``events`` make members: a registered team's players and
    substitutes, a player substituted in."""
    people: list[str] = []
    for e in events:
        if isinstance(e, TeamRegistered):
            people.extend((*e.players, *e.substitutes))
        elif isinstance(e, PlayerSubstituted):
            people.append(e.player_in)
    return [(championship_id, u) for u in dict.fromkeys(people)]


def championship_id_for(user_id: str, command_id: str) -> str:
    """A new championship's id: a retried creation (same user, same command id) names the same one."""
    return uuid.uuid5(NAMESPACE, f"create/{user_id}/{command_id}").hex[:16]


# ---- the service ----

class ChampionshipService:
    """Championships for the API and the workers: their matches are played at ``tables``, ``seeds`` gives
    the draw's seed, ``flow`` says what follows an append."""

    def __init__(self, pool: asyncpg.Pool, tables: TableService, seeds: Seeds, flow: Flow | None = None,
                 cache_size: int = 256):
        self.pool, self.tables, self.seeds, self.flow = pool, tables, seeds, flow
        self._cache: StreamCache[Championship] = StreamCache(cache_size)
        self.commands = CommandLoop(pool, attempts=MAX_ATTEMPTS, rule="championship_busy")
        self.matches = MatchService(pool, tables, self.load, self.execute)
        self.check_ins = CheckInService(pool, self.commands, NAMESPACE, self.load, self.matches.open_round_tables)
        self.invitations = TeamInvitationService(pool, self.commands, NAMESPACE, self.load, self.execute)
        self._turns: dict[str, list] = {}   # championship -> [its lock, how many hold or wait for it] (``_turn``)

    @property
    def deciding(self) -> int:
        """How many championships have a command deciding or waiting for its turn in this process (a lock
        each, kept only while one does)."""
        return len(self._turns)

    @contextlib.asynccontextmanager
    async def _turn(self, championship_id: str):
        """One command of a championship at a time in this process (its other commands wait here, not in a
        conflict at the store): the results of a round's last tables land together on one stream, and
        without a queue each would decide from a state that one of the others had already moved on, and
        try again, up to giving up while the round waits for it. Only other processes still race (the
        store's expected version settles it, the command loop reading and deciding again under the lock). Not
        held while the flow runs after the append."""
        entry = self._turns.setdefault(championship_id, [asyncio.Lock(), 0])
        entry[1] += 1
        try:
            async with entry[0]:
                yield
        finally:
            entry[1] -= 1
            if not entry[1]:
                del self._turns[championship_id]

    def draw_seed(self, championship_id: str) -> str:
        return self.seeds.draw_seed(championship_id)

    async def load(self, championship_id: str, *, missing_ok: bool = False) -> Championship:
        """The championship folded up to its last stored event."""
        champ = self._cache.get(championship_id) or Championship()
        rows = await read_stream(self.pool, stream_of(championship_id), champ.version + 1)
        if rows:
            champ = fold_rows(champ, rows)
            self._cache.put(championship_id, champ)
        if champ.version == 0 and not missing_ok:
            raise NotFound("unknown_championship", f"there is no championship {championship_id!r}")
        return champ

    async def standings(self, championship_id: str) -> list[StandingRow]:
        """Every team, best first, as the standings read model has it (``standings_rm``, kept by the workers'
        projection runner: it follows the championship's stream within the projection's lag)."""
        await self.load(championship_id)
        table = await self.pool.fetchval("SELECT standings FROM standings_rm WHERE championship_id = $1",
                                         championship_id)
        return msgspec.json.decode(table, type=list[StandingRow]) if table is not None else []

    async def events(self, championship_id: str) -> list:
        """Every stored event of the championship, decoded."""
        return [CODEC.decode(r) for r in await read_stream(self.pool, stream_of(championship_id))]

    async def execute(self, championship_id: str, command_id: str, make_commands, *, actor: str,
                      digest: str = "", new: bool = False, metadata: dict | None = None
                      ) -> tuple[CommandOutcome, Championship]:
        """Decide ``make_commands(championship)`` (a list, decided in turn) and append, retrying on conflicts.

        A command id is the sender's own (``actor``); ``digest`` says what the request was, so the same id
        with another request is refused. ``metadata`` is stored with each event (``run``: the
        RunSettings, with the creation).
        """
        stream = stream_of(championship_id)

        async def load(_attempt: int) -> Championship:
            return await self.load(championship_id, missing_ok=new)

        def decide_all(champ: Championship) -> Decision:
            state = champ.state
            events: list = []
            for command in make_commands(champ):     # a ChampionshipRuleError names the rule that refuses it
                for e in decide(state, command):
                    state = evolve(state, e)
                    events.append(e)
            rows = [CODEC.encode(e, event_id=event_id(championship_id, actor, command_id, k),
                                 metadata={**(metadata or {}), "command_id": command_id, "actor": actor,
                                           "digest": digest})
                    for k, e in enumerate(events)]
            members = members_of(championship_id, events)
            registered = [(championship_id, e.team_id) for e in events if isinstance(e, TeamRegistered)]

            async def also(conn) -> None:
                # The lobby's index of who plays in it, and the team invitations a registration settles,
                # stored with the registration or substitution itself: never one without the other.
                await conn.executemany(_MEMBER, members)
                await conn.executemany(_REGISTERED, registered)

            return Decision(events, rows, champ.version, also=also if members else None)

        async with self._turn(championship_id):
            step = await self.commands.run(stream, load, decide_all, command=(actor, command_id, digest),
                                           busy=f"championship {championship_id} kept changing; try again")
            if step.replayed is not None:
                return step.replayed, step.fold
            champ = await self.load(championship_id)
        events = step.decision.events
        if events and self.flow is not None:
            await self.flow.championship_appended(championship_id, champ, events)
        version = step.appended.version if step.appended is not None else champ.version
        return CommandOutcome(version, events=[type(e).__struct_config__.tag for e in events]), champ

    # ------------------------------------------------------------ draw and rounds

    def close_registration(self, championship_id: str, champ: Championship) -> list:
        """Close registration and, for a random draw, publish the commitment to its seed."""
        out = [CloseRegistration()]
        if champ.state.settings.seeding == "draw" and not champ.state.commitment:
            out.append(CommitDraw(commitment(self.draw_seed(championship_id))))
        return out

    def make_draw(self, championship_id: str, champ: Championship, ratings: dict[str, float],
                  order: list[str] | None = None, platform_ratings: dict[str, float] | None = None) -> MakeDraw:
        if champ.state.settings is not None and champ.state.settings.seeding == "manual":
            # The order the request gives, else the teams' own (the order they were registered or imported in).
            field = [t for t in champ.state.team_order if not champ.state.teams[t].withdrawn]
            return MakeDraw(order=tuple(order or field))
        if champ.state.settings is not None and champ.state.settings.seeding == "rating":
            # The ratings the request gives, else those the teams were registered (imported) with, else the
            # platform's own (its players' ratings, services/ratings.py).
            stored = {t.team_id: t.info.rating for _, t in champ.state.teams.items()
                      if t.info is not None and t.info.rating is not None}
            return MakeDraw(ratings=tuple(sorted((ratings or stored or platform_ratings or {}).items())))
        return MakeDraw(seed=self.draw_seed(championship_id))

    async def boards_done(self, opened: TableOpened) -> bool | None:
        """Whether the round whose boards ``opened`` plays is decided (a duplicate event's); None: they are
        not a championship's."""
        if opened.championship_id is None:
            return None
        where = parse_match_id(opened.match_id or "")
        state = (await self.load(opened.championship_id, missing_ok=True)).state
        return where is not None and self.matches.round_over(state, where[0])

    def why_hidden(self, opened: TableOpened) -> str:
        return (f"the boards of match {opened.match_id}'s round in championship {opened.championship_id} stay "
                "hidden until every match of the round is decided; each player sees only his own table")


def fold_rows(champ: Championship, rows) -> Championship:
    """Fold stored rows into ``champ`` (the championship and its bracket)."""
    state, bracket = champ.state, champ.bracket
    run, started = champ.run, champ.round_started_at
    for r in rows:
        e = CODEC.decode(r)
        state = evolve(state, e)
        bracket = bracket_projection.evolve(bracket, e)
        meta = r.metadata
        if r.version == 1 and meta.get("run"):
            run = msgspec.convert(meta["run"], RunSettings)
        if isinstance(e, RoundPaired):
            started = started + (r.recorded_at,)
    return Championship(state, bracket, rows[-1].version, champ.commands.plus(applied_by(rows)), run,
                        started)
