"""Championships: one event stream per championship ("championship-{id}"), decided by the tournament
decider and appended with the expected version.

A command loads the stream (cached state + the events after it), asks ``domain.tournament.decide`` and
appends at the version it read; a concurrent writer (another organiser request, or a table's game-end
hook recording a result) makes the append fail and the command is decided again on the fresh state.
Event ids derive from the client's command id and the stream remembers the command ids it applied, so a
retried request stores nothing new.

Matches are played at tables (``services.tables``): starting a round opens one table per match to
play, and the game-end hook either opens the match's next game or records the match result. Table ids
are deterministic (``{championship}-{match}-g{n}``), so both are safe to repeat. Seats of users whose
kind is 'bot' are played by bots.

How the platform runs the matches (a check-in window, the turn clock) is not a rule of the tournament:
it is kept as ``RunSettings`` in the metadata of the championship's first event. With a check-in window,
a match's table opens only once both teams have checked in (every player; bots check in by themselves),
and the workers forfeit whoever has not when the window closes. Check-ins are their own stream
("checkin-{id}"); closing the window is an event of that stream too, so a check-in and the closing are
ordered by the stream's version: a check-in either counts or is refused, never both.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import TYPE_CHECKING, ClassVar, Literal

import asyncpg
import msgspec

from domain.games import GAMES
from domain.table import game_of
from domain.tournament import (
    CloseRegistration,
    CommitDraw,
    MatchGame,
    MakeDraw,
    RecordDoubleForfeit,
    RecordMatchResult,
    RegisterTeam,
    RoundPaired,
    Settings,
    ChampionshipState,
    ChampionshipEvent,
    ChampionshipRuleError,
    commitment,
    decide,
    evolve,
    match_result,
)
from domain.tournament.results import games_to_win
from projections import bracket as bracket_projection
from projections.standings import StandingRow
from domain.tournament import checkin
from domain.tournament.checkin import CheckIns, CheckInClosed, PlayerCheckedIn, team_checked_in
from services.championships import duplicate
from services.errors import Conflict, Forbidden, NotFound, ServiceError
from services.commands import CommandOutcome, StreamCache, applied_by, replayed
from services.commands import event_id as stream_event_id
from services.tables import Table, TableOpened, TableService
from services.eventstore import (
    Codec,
    ConcurrencyError,
    DuplicateEventError,
    append,
    append_reporting,
    read_stream,
)

if TYPE_CHECKING:
    from services.flow import Flow
    from services.tables.seeds import Seeds

log = logging.getLogger("baloot.championships")

MAX_ATTEMPTS = 20          # results of many tables may land at once on one championship stream
NAMESPACE = uuid.UUID("0f6d9a52-3c1e-4b8f-8a57-6d2b1e9c4a70")
SYSTEM_ACTOR = "system"

CODEC = Codec(ChampionshipEvent)


class RunSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How the platform runs a championship's matches (not tournament rules): kept with its creation."""

    check_in_seconds: float | None = None     # None: no check-in, a round's tables open when it starts
    turn_seconds: float | None = None         # the tables' turn clock; None: no clock
    on_timeout: Literal["auto_play", "bot", "forfeit"] = "auto_play"
    bot_level: str = "normal"                 # the level of bot users' seats and of on_timeout "bot"


class Championship(msgspec.Struct, frozen=True):
    """A championship as the service folds it: its state, its bracket, version and command ids. (Its standings
    are the ``standings_rm`` read model the projection runner keeps: ``ChampionshipService.standings``.)"""

    state: ChampionshipState = msgspec.field(default_factory=ChampionshipState)
    bracket: bracket_projection.Bracket = msgspec.field(default_factory=bracket_projection.initial)
    version: int = 0
    # (actor, command id) -> (version after it, digest of the request)
    commands: dict[tuple[str, str], tuple[int, str]] = msgspec.field(default_factory=dict)
    run: RunSettings = RunSettings()
    round_started_at: tuple[dt.datetime, ...] = ()                   # when each round was paired


# ---- check-in: its own stream, "checkin-{championship}" ----

CHECK_IN_CODEC = Codec((PlayerCheckedIn, CheckInClosed))


def check_in_stream(championship_id: str) -> str:
    return f"checkin-{championship_id}"


def fold_check_ins(rows) -> CheckIns:
    checks = CheckIns()
    for r in rows:
        checks = checkin.evolve(checks, CHECK_IN_CODEC.decode(r))
    return msgspec.structs.replace(checks, version=rows[-1].version if rows else 0)


# ---- team invitations: their own stream, "team-invites-{championship}" ----

class TeamProposed(msgspec.Struct, frozen=True, tag="team_proposed", kw_only=True):
    """A player proposes a team; the other players and substitutes named must accept before it registers."""

    schema_version: ClassVar[int] = 1
    team_id: str
    players: tuple[str, ...]
    substitutes: tuple[str, ...]
    by: str
    waiting: tuple[str, ...]


class TeamInvitationAnswered(msgspec.Struct, frozen=True, tag="team_invitation_answered", kw_only=True):
    schema_version: ClassVar[int] = 1
    team_id: str
    user: str
    accepted: bool


INVITES_CODEC = Codec((TeamProposed, TeamInvitationAnswered))


class TeamInvitation(msgspec.Struct, frozen=True):
    proposal: TeamProposed
    waiting: tuple[str, ...]
    declined: bool = False


def invites_stream(championship_id: str) -> str:
    return f"team-invites-{championship_id}"


def fold_invites(rows) -> tuple[int, dict[str, TeamInvitation]]:
    out: dict[str, TeamInvitation] = {}
    for r in rows:
        e = INVITES_CODEC.decode(r)
        if isinstance(e, TeamProposed):
            out[e.team_id] = TeamInvitation(e, e.waiting)
        else:
            inv = out[e.team_id]
            out[e.team_id] = TeamInvitation(inv.proposal, tuple(u for u in inv.waiting if u != e.user),
                                            inv.declined or not e.accepted)
    return (rows[-1].version if rows else 0), out


def stream_of(championship_id: str) -> str:
    return f"championship-{championship_id}"


def event_id(championship_id: str, actor: str, command_id: str, k: int) -> uuid.UUID:
    return stream_event_id(NAMESPACE, championship_id, actor, command_id, k)


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


def table_profile(settings: Settings):
    """The rules the championship's tables play: its game's profile, its switches, and its game target (for
    profiles that have one)."""
    game = GAMES[settings.game]
    switches = decode_switches(settings.switches)
    if "target" in game.profile(settings.profile).__struct_fields__:
        switches["target"] = settings.game_target
    return game.profile(settings.profile, switches)


# ---- the service ----

class ChampionshipService:
    """Championships for the API and the workers: their matches are played at ``tables``, ``seeds`` gives
    the draw's seed, ``flow`` says what follows an append."""

    def __init__(self, pool: asyncpg.Pool, tables: TableService, seeds: Seeds, flow: Flow | None = None,
                 cache_size: int = 256):
        self.pool, self.tables, self.seeds, self.flow = pool, tables, seeds, flow
        self._cache: StreamCache[Championship] = StreamCache(cache_size)

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
        for _ in range(MAX_ATTEMPTS):
            champ = await self.load(championship_id, missing_ok=new)
            retry = replayed(champ.commands, actor, command_id, digest)
            if retry is not None:
                return retry, champ
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
            try:
                version = await append(self.pool, stream_of(championship_id), champ.version, rows)
            except ConcurrencyError:
                continue
            champ = await self.load(championship_id)
            if events and self.flow is not None:
                await self.flow.championship_appended(championship_id, champ)
            return CommandOutcome(version, events=[type(e).__struct_config__.tag for e in events]), champ
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")

    # ------------------------------------------------------------ draw and rounds

    def close_registration(self, championship_id: str, champ: Championship) -> list:
        """Close registration and, for a random draw, publish the commitment to its seed."""
        out = [CloseRegistration()]
        if champ.state.settings.seeding == "draw" and not champ.state.commitment:
            out.append(CommitDraw(commitment(self.draw_seed(championship_id))))
        return out

    def make_draw(self, championship_id: str, champ: Championship, ratings: dict[str, float]) -> MakeDraw:
        if champ.state.settings is not None and champ.state.settings.seeding == "rating":
            return MakeDraw(ratings=tuple(sorted(ratings.items())))
        return MakeDraw(seed=self.draw_seed(championship_id))

    async def open_round_tables(self, championship_id: str, round_no: int, actor: str,
                                only: set[str] | None = None) -> list[Table]:
        """Game 1 of each match of the round still to play (of ``only`` those matches, if given) that has no
        table yet; byes and forfeits get none. Seats of bot users are played by bots."""
        champ = await self.load(championship_id)
        state = champ.state
        if not 1 <= round_no <= len(state.rounds):
            return []
        round_ = state.rounds[round_no - 1]
        settings, run = state.settings, champ.run
        profile = table_profile(settings)
        game = GAMES[settings.game]
        have = {r["match_id"] for r in await self.match_tables(championship_id)}
        todo = [m for m in round_.matches
                if not (m.note or m.team_a is None or m.team_b is None or round_.outcomes[m.index] is not None
                        or m.match_id in have or (only is not None and m.match_id not in only))]
        players = [p for m in todo for t in (m.team_a, m.team_b) for p in state.teams[t].players]
        bots = {r[0] for r in await self.pool.fetch(
            "SELECT user_id FROM users WHERE user_id = ANY($1) AND kind = 'bot'", players)}
        openings = []
        for m in todo:
            a, b = state.teams[m.team_a].players, state.teams[m.team_b].players
            seats = (a[0], b[0], a[1], b[1])
            table = TableOpened(table_id=table_id_for(championship_id, m.match_id, 1), seats=seats,
                                game=game.info.name, **game.profile_fields(profile), table_mode=settings.table_mode,
                                opened_by=actor,
                                championship_id=championship_id, match_id=m.match_id, game_no=1,
                                bots=tuple(run.bot_level if p in bots else None for p in seats),
                                turn_seconds=run.turn_seconds, on_timeout=run.on_timeout,
                                timeout_bot_level=run.bot_level)
            if settings.format == "duplicate":      # two tables of the round's boards, seats swapped
                table = msgspec.structs.replace(table, profile=duplicate.profile(
                    settings, decode_switches(settings.switches)))
                openings.extend(duplicate.tables(championship_id, state, m, table, bots, run.bot_level))
                continue
            openings.append(table)
        return await self.tables.open_tables(openings)

    # ------------------------------------------------------------ team invitations

    async def invitations(self, championship_id: str) -> tuple[int, dict[str, TeamInvitation]]:
        return fold_invites(await read_stream(self.pool, invites_stream(championship_id)))

    async def propose_team(self, championship_id: str, command: RegisterTeam, by: str
                           ) -> tuple[TeamInvitation, bool]:
        """Invite the team's other players and substitutes; nothing is registered until each accepts (so
        nobody can be entered, or locked out, without consent). Refused at once if the rules would refuse.
        Returns the invitation and whether it was already there (the same proposal sent again)."""
        version, invites = await self.invitations(championship_id)
        known = invites.get(command.team_id)
        if known is not None:
            p = known.proposal
            if (p.by, p.players, p.substitutes) == (by, command.players, command.substitutes):
                return known, True                # the same proposal, sent again
            raise Conflict("already_proposed", f"team {command.team_id} is already proposed")
        champ = await self.load(championship_id)
        decide(champ.state, command)              # a dry run: registration open, players free...
        waiting = tuple(u for u in (*command.players, *command.substitutes) if u != by)
        proposal = TeamProposed(team_id=command.team_id, players=command.players,
                                substitutes=command.substitutes, by=by, waiting=waiting)
        try:
            await append(self.pool, invites_stream(championship_id), version, [INVITES_CODEC.encode(
                proposal, event_id=uuid.uuid5(NAMESPACE, f"{championship_id}/team/{command.team_id}"),
                metadata={"actor": by})])
        except (ConcurrencyError, DuplicateEventError):
            raise Conflict("championship_busy", "another team was proposed at the same moment; try again") \
                from None
        return TeamInvitation(proposal, waiting), False

    async def answer_team(self, championship_id: str, team_id: str, user: str, accept: bool
                          ) -> tuple[TeamInvitation, CommandOutcome | None, Championship]:
        """An invited player answers; the last acceptance registers the team (as its proposer's command)."""
        for _ in range(MAX_ATTEMPTS):
            version, invites = await self.invitations(championship_id)
            inv = invites.get(team_id)
            if inv is None or (user not in inv.waiting and user not in inv.proposal.waiting):
                raise NotFound("not_invited", f"you are not invited to team {team_id}")
            if inv.declined:
                raise Conflict("invitation_declined", f"team {team_id} was declined by one of its players")
            if user in inv.waiting:
                answer = TeamInvitationAnswered(team_id=team_id, user=user, accepted=accept)
                try:
                    await append(self.pool, invites_stream(championship_id), version, [INVITES_CODEC.encode(
                        answer, event_id=uuid.uuid5(NAMESPACE, f"{championship_id}/team/{team_id}/{user}"),
                        metadata={"actor": user})])
                except (ConcurrencyError, DuplicateEventError):
                    continue
                inv = TeamInvitation(inv.proposal, tuple(u for u in inv.waiting if u != user), not accept)
            if inv.declined or inv.waiting:
                return inv, None, await self.load(championship_id)
            p = inv.proposal
            outcome, champ = await self.execute(
                championship_id, f"register/{team_id}", lambda _: [RegisterTeam(team_id, p.players, p.substitutes)],
                actor=p.by)
            return inv, outcome, champ
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")

    # ------------------------------------------------------------ check-in

    async def check_ins(self, championship_id: str) -> CheckIns:
        return fold_check_ins(await read_stream(self.pool, check_in_stream(championship_id)))

    def check_in_closes(self, champ: Championship, round_no: int) -> dt.datetime | None:
        """When the round's check-in window closes (None: the championship has no check-in)."""
        if champ.run.check_in_seconds is None or not 1 <= round_no <= len(champ.round_started_at):
            return None
        return champ.round_started_at[round_no - 1] + dt.timedelta(seconds=champ.run.check_in_seconds)

    async def check_in(self, championship_id: str, match_id: str, player: str, *, by: str
                       ) -> tuple[bool, CheckIns, Championship]:
        """Check ``player`` in for a match of the round being played; returns (stored now?, check-ins, champ).

        Once both teams are in, the match's table opens. Checking in twice stores nothing new.
        """
        for _ in range(MAX_ATTEMPTS):
            champ = await self.load(championship_id)
            state = champ.state
            if champ.run.check_in_seconds is None:
                raise Conflict("no_check_in", f"championship {championship_id} has no check-in: each match's "
                                                  "table opens when its round starts")
            round_, match = self._match_to_check_in(championship_id, state, match_id)
            team_id = next((t for t in (match.team_a, match.team_b) if player in state.teams[t].players), None)
            if team_id is None:
                raise Forbidden("not_in_match", f"{player} does not play in match {match_id}")
            checks = await self.check_ins(championship_id)
            if player in checks.of(round_.number, match_id):
                return False, checks, champ
            now = await self.pool.fetchval("SELECT now()")
            closes = self.check_in_closes(champ, round_.number)
            if round_.number in checks.closed or now >= closes:
                raise Conflict("check_in_closed", f"check-in for round {round_.number} closed at "
                                                      f"{closes.isoformat()}", closed_at=closes.isoformat())
            event = PlayerCheckedIn(round=round_.number, match_id=match_id, team_id=team_id, player=player, by=by)
            row = CHECK_IN_CODEC.encode(event, event_id=uuid.uuid5(
                NAMESPACE, f"{championship_id}/check-in/{round_.number}/{match_id}/{player}"),
                metadata={"actor": by})
            try:
                stored = (await append_reporting(self.pool, check_in_stream(championship_id), checks.version,
                                                 [row])).stored
            except (ConcurrencyError, DuplicateEventError):
                continue                  # another check-in (maybe this player's own, sent twice) came first
            checks = await self.check_ins(championship_id)
            await self.open_checked_in_tables(championship_id, champ, checks, by)
            return stored, checks, champ
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")

    def _match_to_check_in(self, championship_id: str, state: ChampionshipState, match_id: str):
        if state.status != "running":
            raise Conflict("no_round", f"no round of championship {championship_id} is being played")
        current = state.rounds[-1]
        match = next((m for m in current.matches if m.match_id == match_id), None)
        if match is None:
            raise NotFound("unknown_match", f"match {match_id} is not a match of round {current.number}, "
                                                "the round being played")
        if match.note or current.outcomes[match.index] is not None:
            raise Conflict("match_decided", f"match {match_id} is decided: there is nothing to check in for")
        return current, match

    async def check_in_bots(self, championship_id: str, champ: Championship, checks: CheckIns) -> CheckIns:
        """Check in every bot player of the current round's matches who is not in yet (one append)."""
        state = champ.state
        current = state.rounds[-1]
        if current.number in checks.closed:
            return checks
        todo = [(m, t, p) for m in current.matches
                if not m.note and m.team_a is not None and m.team_b is not None
                and current.outcomes[m.index] is None
                for t in (m.team_a, m.team_b) for p in state.teams[t].players
                if p not in checks.of(current.number, m.match_id)]
        bots = {r[0] for r in await self.pool.fetch(
            "SELECT user_id FROM users WHERE user_id = ANY($1) AND kind = 'bot'", [p for _, _, p in todo])}
        rows = [CHECK_IN_CODEC.encode(
            PlayerCheckedIn(round=current.number, match_id=m.match_id, team_id=t, player=p, by="bot"),
            event_id=uuid.uuid5(NAMESPACE, f"{championship_id}/check-in/{current.number}/{m.match_id}/{p}"),
            metadata={"actor": "bot"}) for m, t, p in todo if p in bots]
        if rows:
            try:
                await append(self.pool, check_in_stream(championship_id), checks.version, rows)
            except ConcurrencyError:
                pass                                  # someone checked in meanwhile: the next tick retries
            checks = await self.check_ins(championship_id)
        return checks

    async def open_checked_in_tables(self, championship_id: str, champ: Championship, checks: CheckIns,
                                     actor: str) -> list[Table]:
        """Open the table of each current match whose two teams have both checked in."""
        state = champ.state
        current = state.rounds[-1]
        ready = {m.match_id for m in current.matches
                 if not m.note and m.team_a is not None and m.team_b is not None
                 and all(team_checked_in(state.teams[t], checks.of(current.number, m.match_id))
                         for t in (m.team_a, m.team_b))}
        if not ready:
            return []
        return await self.open_round_tables(championship_id, current.number, actor, only=ready)

    async def close_check_in(self, championship_id: str, round_no: int) -> CheckIns:
        """Store that the round's window closed, with the teams absent then (once: a fixed event id)."""
        for _ in range(MAX_ATTEMPTS):
            champ = await self.load(championship_id)
            checks = await self.check_ins(championship_id)
            if round_no in checks.closed:
                return checks
            state = champ.state
            round_ = state.rounds[round_no - 1]
            absent = tuple(t for m in round_.matches
                           if not m.note and m.team_a is not None and m.team_b is not None
                           and round_.outcomes[m.index] is None
                           for t in (m.team_a, m.team_b)
                           if not team_checked_in(state.teams[t], checks.of(round_no, m.match_id)))
            row = CHECK_IN_CODEC.encode(CheckInClosed(round=round_no, absent=absent),
                                        event_id=uuid.uuid5(NAMESPACE, f"{championship_id}/check-in/{round_no}/closed"),
                                        metadata={"actor": SYSTEM_ACTOR})
            try:
                await append(self.pool, check_in_stream(championship_id), checks.version, [row])
            except (ConcurrencyError, DuplicateEventError):
                continue                              # a check-in (or the same closing) came first
            return await self.check_ins(championship_id)
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")

    async def match_tables(self, championship_id: str) -> list[asyncpg.Record]:
        return await self.pool.fetch(
            "SELECT table_id, match_id, game_no, status, seats FROM tables_index WHERE championship_id = $1 "
            "ORDER BY match_id, game_no", championship_id)

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
                    await self.game_ended(table)

    async def _game_ended(self, o: TableOpened) -> None:
        cid, match_id = o.championship_id, o.match_id
        champ = await self.load(cid)
        settings = champ.state.settings
        rows = await self.pool.fetch("SELECT table_id FROM tables_index WHERE championship_id = $1 AND "
                                     "match_id = $2 ORDER BY game_no", cid, match_id)
        if settings.format == "duplicate":
            await self._duplicate_ended(cid, match_id, [r["table_id"] for r in rows], settings.duplicate_boards)
            return
        games: list[MatchGame] = []
        for r in rows:
            t = await self.tables.load(r["table_id"])
            if t.game.phase != "ended":
                return                       # a later game of this match is already being played
            game = game_of(t)
            played = game.match_game(game.result(t.game))      # the seam: the game's result, team A vs B
            if played is None:               # nobody won it (abandoned by both teams): neither goes on
                await self.execute(cid, f"match-result/{match_id}", lambda _: [RecordDoubleForfeit(
                    match_id, f"game {t.opened.game_no} abandoned by both teams")], actor=SYSTEM_ACTOR)
                return
            games.append(played)
        wins_a = sum(g.winner == "a" for g in games)
        if max(wins_a, len(games) - wins_a) < games_to_win(settings.match_games):
            # The next game: the same table, its seats played as the championship set them (bots included).
            following = msgspec.structs.replace(o, table_id=table_id_for(cid, match_id, o.game_no + 1),
                                                opened_by=SYSTEM_ACTOR, game_no=o.game_no + 1)
            await self.tables.open_table(following)
            return
        result = match_result(games, settings.match_games)
        await self.execute(cid, f"match-result/{match_id}", lambda _: [RecordMatchResult(match_id, result)],
                           actor=SYSTEM_ACTOR)

    async def _duplicate_ended(self, cid: str, match_id: str, table_ids: list[str], boards: int) -> None:
        """Both tables of a duplicate match have ended: record the result their boards give."""
        tables = [await self.tables.load(t) for t in table_ids]
        if len(tables) != 2 or any(t.game.phase != "ended" for t in tables):
            return                           # the other table is still playing
        result = duplicate.match_result(tables[0], tables[1], boards)
        await self.execute(cid, f"match-result/{match_id}", lambda _: [RecordMatchResult(match_id, result)],
                           actor=SYSTEM_ACTOR)

    async def duplicate_hidden_from(self, opened: TableOpened, user_id: str) -> str | None:
        """Why ``user_id`` may not see a duplicate table of this event (its round still played), or None."""
        if opened.boards is None or opened.championship_id is None:
            return None
        champ = await self.load(opened.championship_id, missing_ok=True)
        return duplicate.hidden_from(champ.state, opened, user_id)


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
    return Championship(state, bracket, rows[-1].version, {**champ.commands, **applied_by(rows)}, run,
                        started)
