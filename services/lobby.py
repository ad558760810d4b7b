"""A person's lobby, with no HTTP in it: the tables and teams he is invited to, his championships with his
next match, his live tables and his finished games.

Tables come from the table index (``tables_index``, whose ``seats`` name him), each folded by the table
service. His championships come from their members' index (``championship_members``: the players and
substitutes of registered teams, written with the registration), the newest ``CHAMPIONSHIPS`` of his, and his
team invitations from the pending invitations' index (``team_invites_pending``): however many championships
others create, his own are found (an earlier lobby looked among the newest 100 of all, and 100 empty ones
pushed a player's real championship out of it).

Every invitation waiting for him is shown: the caps on pending proposals (``services/proposals.py``) keep
them to ``PER_INVITEE`` of each kind, and the lobby lists that many.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from domain.seam import GameResult
from domain.table import game_of
from domain.tournament.state import ChampionshipState
from services.championships import ChampionshipService, team_names
from services.championships.checkins import closes_at
from services.proposals import PER_INVITEE
from services.tables import Table, TableService

CHAMPIONSHIPS = 100          # the newest of his championships a lobby shows
TABLES = 50                  # tables of each kind (invited, live, finished) a lobby shows
INVITATIONS = PER_INVITEE    # tables (and teams) waiting for his answer: all of them, as the caps allow no more

# The tables waiting for his answer are among those still waiting for answers that seat him and that he did
# not propose himself: what the per-invitee cap counts (services/tables/service.py, propose_table).
_INVITED = ("SELECT t.table_id, t.created_at, t.proposed_by AS proposer FROM tables_index t "
            "WHERE t.seats @> ARRAY[$1] AND t.status = 'invited' AND t.proposed_by IS DISTINCT FROM $1 "
            "ORDER BY t.created_at DESC LIMIT $2")
_TABLES = ("SELECT t.table_id, t.created_at, t.proposed_by AS proposer FROM tables_index t "
           "WHERE $1 = ANY(t.seats) AND t.status = $3 ORDER BY t.created_at DESC LIMIT $2")


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
    opponent_name: str | None            # what people call it (its name, else its players' names)
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
    team_name: str                       # what people call his team (its name, else its players' names)
    champion: str | None
    champion_name: str | None
    next_match: NextMatch | None


class LobbyService:
    def __init__(self, tables: TableService, championships: ChampionshipService):
        self.tables, self.championships, self.pool = tables, championships, tables.pool

    async def tables_of(self, user_id: str, status: str, limit: int = TABLES) -> list[LobbyTable]:
        """The user's tables of ``status`` (invited: only those still waiting for his answer, every one of
        them), newest first."""
        if status == "invited":
            rows = await self.pool.fetch(_INVITED, user_id, max(limit, INVITATIONS))
        else:
            rows = await self.pool.fetch(_TABLES, user_id, limit, status)
        out = []
        for r in rows:
            table = await self.tables.load(r["table_id"])
            if status == "invited" and user_id not in table.waiting:
                continue
            result = game_of(table).result(table.game) if status == "finished" else None
            out.append(LobbyTable(table, r["created_at"], r["proposer"], result))
        return out

    async def championships_of(self, user_id: str) -> tuple[list[MyChampionship], list[TeamInvite]]:
        """The championships the user plays in (the newest ``CHAMPIONSHIPS`` he joined), and the teams he is
        invited to and has not answered (all of them), each from its index."""
        joined = [r["championship_id"] for r in await self.pool.fetch(
            "SELECT championship_id FROM championship_members WHERE user_id = $1 ORDER BY since DESC, "
            "championship_id LIMIT $2", user_id, CHAMPIONSHIPS)]
        invited = list(dict.fromkeys(r["championship_id"] for r in await self.pool.fetch(
            "SELECT championship_id FROM team_invites_pending WHERE user_id = $1 ORDER BY since DESC, "
            "championship_id LIMIT $2", user_id, INVITATIONS)))
        mine, invites = [], []
        for cid in invited:
            champ = await self.championships.load(cid, missing_ok=True)
            state = champ.state
            if state.settings is None:
                continue
            for invitation in (await self.championships.invitations.of(cid))[1].values():
                if user_id in invitation.waiting and not invitation.declined and \
                        invitation.proposal.team_id not in state.teams:
                    p = invitation.proposal
                    invites.append(TeamInvite(cid, state.settings.name, p.team_id, p.players, p.substitutes, p.by,
                                              invitation.waiting))
        for cid in joined:
            champ = await self.championships.load(cid, missing_ok=True)
            state = champ.state
            team = state.players.get(user_id)
            if team is not None:
                nxt = await self._next_match(cid, champ, state, team, user_id)
                names = await team_names(self.pool, state, (team, state.champion, nxt and nxt.opponent))
                if nxt is not None and nxt.opponent is not None:
                    nxt = replace(nxt, opponent_name=names[nxt.opponent])
                mine.append(MyChampionship(cid, state.settings.name, state.status, team, names[team], state.champion,
                                           names.get(state.champion), nxt))
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
                    m.match_id, m.round, m.team_b if m.team_a == team else m.team_a, None,
                    "decided" if outcome is not None else "playing" if tables else "waiting", slot,
                    closes_at(champ, m.round, checks), user_id in checks.of(m.round, m.match_id),
                    tuple(r["table_id"] for r in tables))
        return None
