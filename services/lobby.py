"""A person's lobby, with no HTTP in it: the tables and teams he is invited to, his championships with his
next match, his live tables and his finished games.

Tables come from the table index (``tables_index``, whose ``seats`` name him), each folded by the table
service; championships from the newest ``CHAMPIONSHIPS`` listed (their folds are cached), with the team
invitations of each. A championship older than those is not in the lobby (its pages still are).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from domain.seam import GameResult
from domain.table import game_of
from domain.tournament.state import ChampionshipState
from services.championships import ChampionshipService
from services.championships.checkins import closes_at
from services.championships.service import stream_of as championship_stream
from services.tables import Table, TableService

CHAMPIONSHIPS = 100          # the newest championships a lobby looks in
TABLES = 50                  # tables of each kind (invited, live, finished) a lobby shows


@dataclass(frozen=True)
class LobbyTable:
    table: Table
    created_at: dt.datetime
    proposed_by: str | None              # who proposed it (None: the platform opened it, e.g. a championship's)
    result: GameResult | None            # a finished game's


@dataclass(frozen=True)
class TeamInvite:
    championship_id: str
    championship: str
    team_id: str
    players: tuple[str, ...]
    substitutes: tuple[str, ...]
    proposed_by: str
    waiting: tuple[str, ...]


@dataclass(frozen=True)
class NextMatch:
    match_id: str
    round: int
    opponent: str | None                 # None: a bye
    status: str                          # waiting (no table yet), playing, decided
    starts_at: str | None                # the round's scheduled start (ISO 8601), if it has one
    check_in_closes_at: dt.datetime | None
    checked_in: bool                     # the caller has checked in for it
    tables: tuple[str, ...]


@dataclass(frozen=True)
class MyChampionship:
    championship_id: str
    name: str
    status: str
    team_id: str
    champion: str | None
    next_match: NextMatch | None


class LobbyService:
    def __init__(self, tables: TableService, championships: ChampionshipService):
        self.tables, self.championships, self.pool = tables, championships, tables.pool

    async def tables_of(self, user_id: str, status: str, limit: int = TABLES) -> list[LobbyTable]:
        """The user's tables of ``status`` (invited: only those still waiting for his answer), newest first."""
        rows = await self.pool.fetch(
            "SELECT t.table_id, t.created_at, e.metadata->>'actor' AS proposer FROM tables_index t "
            "LEFT JOIN events e ON e.stream_id = 'table-' || t.table_id AND e.version = 1 "
            "AND e.event_type = 'table_proposed' WHERE $1 = ANY(t.seats) AND t.status = $2 "
            "ORDER BY t.created_at DESC LIMIT $3", user_id, status, limit)
        out = []
        for r in rows:
            table = await self.tables.load(r["table_id"])
            if status == "invited" and user_id not in table.waiting:
                continue
            result = game_of(table).result(table.game) if status == "finished" else None
            out.append(LobbyTable(table, r["created_at"], r["proposer"], result))
        return out

    async def championships_of(self, user_id: str) -> tuple[list[MyChampionship], list[TeamInvite]]:
        """The championships (of the newest ``CHAMPIONSHIPS``) the user plays in, and the teams he is
        invited to and has not answered."""
        ids = [r["scope_id"] for r in await self.pool.fetch(
            "SELECT g.scope_id FROM grants g JOIN events e ON e.stream_id = $2 || g.scope_id AND e.version = 1 "
            "WHERE g.scope = 'championship' AND g.role = 'organiser' ORDER BY e.recorded_at DESC LIMIT $1",
            CHAMPIONSHIPS, championship_stream(""))]
        mine, invites = [], []
        for cid in ids:
            champ = await self.championships.load(cid)
            state = champ.state
            for invitation in (await self.championships.invitations.of(cid))[1].values():
                if user_id in invitation.waiting and not invitation.declined and \
                        invitation.proposal.team_id not in state.teams:
                    p = invitation.proposal
                    invites.append(TeamInvite(cid, state.settings.name, p.team_id, p.players, p.substitutes, p.by,
                                              invitation.waiting))
            team = state.players.get(user_id)
            if team is not None:
                mine.append(MyChampionship(cid, state.settings.name, state.status, team, state.champion,
                                           await self._next_match(cid, champ, state, team, user_id)))
        return mine, invites

    async def _next_match(self, cid: str, champ, state: ChampionshipState, team: str, user_id: str
                          ) -> NextMatch | None:
        """The team's match in the latest round it plays in, unless it is decided and the championship over."""
        for round_ in reversed(state.rounds):
            for m in round_.matches:
                if team not in (m.team_a, m.team_b):
                    continue
                outcome = round_.outcomes[m.index]
                tables = [r for r in await self.championships.matches.tables_of(cid) if r["match_id"] == m.match_id]
                checks = await self.championships.check_ins.of(cid)
                slot = next((s.starts_at for s in state.settings.schedule if s.round == m.round), None)
                return NextMatch(
                    m.match_id, m.round, m.team_b if m.team_a == team else m.team_a,
                    "decided" if outcome is not None else "playing" if tables else "waiting", slot,
                    closes_at(champ, m.round, checks), user_id in checks.of(m.round, m.match_id),
                    tuple(r["table_id"] for r in tables))
        return None
