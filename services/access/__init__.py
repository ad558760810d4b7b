"""The access policy's application side: a caller's relations and a resource's facts, gathered, then asked of
``services/access/policy.py`` (docs/access.md), for every route, stream, the desk, the exports and fair play.

A ``Viewer`` is one caller for one request: his roles on a scope (the platform, a championship, a table) are
read in one query the first time they are needed and kept for the rest of the request. A seated player
needs none of it: his seat comes from the table's fold, so the hot path (a player's command) reads nothing.
What a table's facts need of its championship or of the daily deal (whether its boards are still played
elsewhere, whether the caller plays its round) comes from their folds, which their services keep cached;
the table service never asks them itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from domain.table import game_of, table_referee
from domain.tournament.state import ChampionshipState, Round, parse_match_id, playable
from services.access import policy
from services.access.policy import ChampionshipFacts, Relations, Sight, TableFacts
from services.errors import Forbidden
from services.eventstore import reads
from services.tables.service import stream_of

if TYPE_CHECKING:
    import asyncpg

    from services.championships import Championship, ChampionshipService
    from services.daily.service import DailyService
    from services.tables import Table, TableService

_ROLES = ("SELECT scope, scope_id, role FROM grants WHERE user_id = $1 AND ((scope = 'platform' AND scope_id = '') "
          "OR (scope = 'championship' AND scope_id = $2) OR scope = 'table')")


class Viewer:
    """One caller, for one request: his roles, read once per championship asked about (his tables' with them,
    so that the desk's queue, which asks about many tables of one championship, reads them once)."""

    __slots__ = ("pool", "user_id", "_roles")

    def __init__(self, pool: asyncpg.Pool, user_id: str):
        self.pool, self.user_id = pool, user_id
        # championship -> (his roles on it, on the platform, the tables the operator made him referee)
        self._roles: dict[str | None, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}

    async def roles(self, championship_id: str | None, table_id: str | None = None
                    ) -> tuple[frozenset[str], frozenset[str]]:
        """(his roles on the championship, or on the table, granted by the operator; his roles on the platform),
        in one query, kept for the request."""
        found = self._roles.get(championship_id)
        if found is None:
            rows = await self.pool.fetch(_ROLES, self.user_id, championship_id or "")
            found = self._roles[championship_id] = (
                frozenset(r["role"] for r in rows if r["scope"] == "championship"),
                frozenset(r["role"] for r in rows if r["scope"] == "platform"),
                frozenset(r["scope_id"] for r in rows if r["scope"] == "table" and r["role"] == "referee"))
        roles, platform, refereed = found
        return (roles | {"referee"} if table_id in refereed else roles), platform


def _round_of(state: ChampionshipState, match_id: str | None) -> Round | None:
    where = parse_match_id(match_id or "")
    if where is not None and 1 <= where[0] <= len(state.rounds):
        return state.rounds[where[0] - 1]
    return next((r for r in state.rounds if any(m.match_id == match_id for m in r.matches)), None)


class Access:
    """The policy asked for one process's services: ``tables``' folds, and the championships' and the daily
    deal's, for what a table's facts need of them."""

    def __init__(self, pool: asyncpg.Pool, tables: TableService, championships: ChampionshipService,
                 daily: DailyService):
        self.pool, self.tables, self.championships, self.daily = pool, tables, championships, daily

    def viewer(self, user_id: str) -> Viewer:
        return Viewer(self.pool, user_id)

    # ------------------------------------------------------------ facts and relations

    async def boards_done(self, opened) -> bool:
        """Whether every table of ``opened``'s shared boards is done: the daily set closed, the duplicate round
        decided (a board set of no known kind never is)."""
        done = self.daily.boards_done(opened)
        if done is None:
            done = await self.championships.boards_done(opened)
        return bool(done)

    async def table_facts(self, table: Table) -> TableFacts:
        o = table.opened or table.proposed
        in_play = o.boards is not None and not await self.boards_done(o)
        if table.opened is None:
            phase = "proposed"
        elif table.game.phase != "ended":
            phase = "live"
        else:
            phase = "held" if in_play else "closed"
        daily = o.boards is not None and self.daily.boards_done(o) is not None
        why = (self.daily if daily else self.championships).why_hidden(o) if in_play else ""
        return TableFacts(o.table_id, o.seats, phase, o.hands_policy, o.delay_seconds, table_referee(o), in_play,
                          why, daily)

    async def relations(self, viewer: Viewer, championship_id: str | None, *, match_id: str | None = None,
                        table_id: str | None = None, table_match: str | None = None) -> Relations:
        """The caller's relations to a championship (none: only his platform roles, and those on ``table_id``);
        ``table_match``: the match of the table asked about (whether he plays its round); ``match_id``: a match
        asked about (whether he plays in it)."""
        roles, platform = await viewer.roles(championship_id, table_id)
        if championship_id is None:
            return Relations(viewer.user_id, referee="referee" in roles, platform=platform)
        state = (await self.championships.load(championship_id, missing_ok=True)).state
        team = state.players.get(viewer.user_id)
        plays_round = own_match = False
        if team is not None and table_match is not None and (roles or "referee" in platform):
            round_ = _round_of(state, table_match)      # walked only for an official who plays in the event
            plays_round = round_ is not None and round_.undecided > 0 and any(
                playable(m) and team in (m.team_a, m.team_b) for m in round_.matches)
        if team is not None and match_id is not None:
            round_ = _round_of(state, match_id)
            match = next((m for m in round_.matches if m.match_id == match_id), None) if round_ else None
            own_match = match is not None and team in (match.team_a, match.team_b)
        return Relations(viewer.user_id, "organiser" in roles, "referee" in roles, team is not None, plays_round,
                         own_match, platform)

    async def _table(self, viewer: Viewer, table: Table) -> tuple[TableFacts, Relations]:
        o = table.opened or table.proposed
        facts = await self.table_facts(table)
        if viewer.user_id in facts.seats:
            return facts, Relations(viewer.user_id)
        return facts, await self.relations(viewer, o.championship_id, table_id=o.table_id, table_match=o.match_id)

    # ------------------------------------------------------------ tables

    async def sight(self, viewer: Viewer, table: Table, wanted: int | None = None) -> Sight:
        """What the caller sees of ``table`` (``wanted``: the seat a player of several seats asks for); a
        seated player's is read from the fold alone."""
        turn = _turn(table, viewer.user_id, wanted)
        if viewer.user_id in table.seats:
            return policy.sight(_seated(table), Relations(viewer.user_id), wanted, turn)
        return policy.sight(*await self._table(viewer, table), wanted, turn)

    async def acting_seat(self, viewer: Viewer, table: Table, wanted: int | None) -> int:
        """The seat the caller acts for at ``table``; a seated player's is read from the fold alone."""
        turn = _turn(table, viewer.user_id, wanted)
        if viewer.user_id in table.seats:
            return policy.acting_seat(_seated(table), Relations(viewer.user_id), wanted, turn)
        return policy.acting_seat(*await self._table(viewer, table), wanted, turn)

    async def invitee(self, viewer: Viewer, table: Table) -> None:
        if viewer.user_id not in table.seats:
            policy.invitee(*await self._table(viewer, table))

    async def referee(self, viewer: Viewer, table: Table) -> None:
        """Refuse anyone but the table's officials (``board_hidden`` first, ``official_plays``, ``not_referee``)."""
        policy.referee(*await self._table(viewer, table))

    async def is_referee(self, viewer: Viewer, table: Table) -> bool:
        try:
            await self.referee(viewer, table)
        except Forbidden:
            return False
        return True

    async def records(self, viewer: Viewer, table: Table) -> Sight:
        """The caller's sight of ``table``, which must let him read its finished deals' records."""
        facts, rel = await self._table(viewer, table)
        seen = policy.sight(facts, rel, None, _turn(table, viewer.user_id, None))
        policy.records(facts, rel, seen)
        return seen

    async def evaluation(self, viewer: Viewer, table: Table, finished: Callable[[int], Awaitable[bool]]
                         ) -> tuple[str, int]:
        """The basis of a deal's evaluation the caller may see (``policy.evaluation``) and how much of the table
        he may see (its version: a spectator's behind the delay); ``finished(version)``: whether the deal is
        over as the table stood at that version (as the caller sees it)."""
        facts, rel = await self._table(viewer, table)
        seen = policy.sight(facts, rel, None, _turn(table, viewer.user_id, None))
        visible = await self.version(table, seen)
        return policy.evaluation(facts, rel, seen, await finished(visible)), visible

    async def listed_tables(self, viewer: Viewer, status: str, limit: int) -> list:
        """The index rows of the table list as the caller may see it, newest first (``status``: live, finished
        or all): tables of shared boards only to their players (their pages link them once the boards are
        done), a rule applied in the query so that a page is a whole page."""
        return await self.pool.fetch(
            "SELECT table_id, profile, mode, status, seats, championship_id, match_id FROM tables_index "
            "WHERE ($1 = 'all' OR status = $1) AND (NOT shared OR $3 = ANY(seats)) ORDER BY created_at DESC LIMIT $2",
            status, limit, viewer.user_id)

    async def version(self, table: Table, seen: Sight) -> int:
        """How much of the table the caller may see: all of it live, else what was stored at least the table's
        delay ago, finished or not."""
        if seen.live or seen.delay <= 0 or table.opened is None:
            return table.version
        return await reads.version_recorded_by(self.pool, stream_of(table.table_id), seen.delay)

    async def seen(self, table: Table, seen: Sight) -> Table:
        """The table as the caller may see it now: as it is, or, for spectators, as it was the delay ago."""
        version = await self.version(table, seen)
        return table if version == table.version else await self.tables.table_at(table.table_id, version)

    # ------------------------------------------------------------ championships

    async def championship(self, viewer: Viewer, championship_id: str,
                           rule: Callable[..., None] | None = None, *, match_id: str | None = None,
                           **facts) -> tuple[Championship, Relations]:
        """The championship (``404`` when there is none) and the caller's relations to it, ``rule`` (one of the
        policy's championship rules) asked first."""
        champ = await self.championships.load(championship_id)
        rel = await self.relations(viewer, championship_id, match_id=match_id)
        if rule is not None:
            rule(ChampionshipFacts(championship_id, champ.state.status), rel, **facts)
        return champ, rel

    async def platform(self, viewer: Viewer, rule: Callable[[Relations], None] | None = None) -> Relations:
        """The caller's platform roles, ``rule`` asked of them."""
        rel = await self.relations(viewer, None)
        if rule is not None:
            rule(rel)
        return rel

    async def organiser_console(self, viewer: Viewer) -> None:
        """The organiser console's list: an account that organises a championship, or the platform's organisers."""
        rel = await self.relations(viewer, None)
        organises = "organiser" in rel.platform or await self.pool.fetchval(
            "SELECT true FROM grants WHERE scope = 'championship' AND role = 'organiser' AND user_id = $1 LIMIT 1",
            viewer.user_id)
        policy.organiser_console(rel, bool(organises))


def _turn(table: Table, user_id: str, wanted: int | None) -> int | None:
    """The seat to act, which the policy needs only to choose among a caller's several seats (one person
    playing for several at a table of bots): not worked out on a command's path otherwise."""
    if wanted is not None or table.seats.count(user_id) < 2:
        return None
    return game_of(table).to_act(table.game)


def _seated(table: Table) -> TableFacts:
    """A table's facts as a seated player's sight and seat need them (his seats only: no boards asked)."""
    o = table.opened or table.proposed
    return TableFacts(o.table_id, o.seats, "live")
