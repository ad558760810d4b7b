"""A person's lobby (``GET /me/lobby``): what he is invited to, his championships and next match, his live
tables and finished games. The pages at ``/play/`` draw it; ``services/lobby.py`` gathers it."""

from __future__ import annotations


from litestar import Router, get

from services.api.deps import Caller, Lobby
from services.api.wire import table_terms
from services.lobby import LobbyTable
from services.api.schemas_lobby import LobbyTableOut, LobbyOut


def _out(t: LobbyTable, user_id: str, status: str) -> LobbyTableOut:
    table = t.table
    opened = table.opened or table.proposed
    return LobbyTableOut(
        opened.table_id, opened.game, status, list(opened.seats), opened.seats.index(user_id), list(table.waiting), t.proposed_by, t.created_at,
        table_terms(opened), list(t.result.places) if t.result else None,
        list(t.result.scores) if t.result else None)


@get("/me/lobby", operation_id="myLobby",
     summary="The caller's lobby: invitations to tables and teams (with the tables' terms), championships with "
             "the next match, live tables, finished games")
async def my_lobby(user: Caller, lobby: Lobby) -> LobbyOut:
    invited, live, finished = [[_out(t, user.user_id, status) for t in await lobby.tables_of(user.user_id, status)]
                               for status in ("invited", "live", "finished")]
    championships, teams = await lobby.championships_of(user.user_id)
    return LobbyOut(invited, teams, championships, live, finished)


lobby_router = Router(tags=["accounts"], path="/", route_handlers=[my_lobby])
