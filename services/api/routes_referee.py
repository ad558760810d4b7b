"""The referee's desk: a player calls the referee to his table, a referee sees the calls of the tables he
referees (his queue, oldest first), claims one, steps through the disputed deal with every hand, and rules
(``POST /tables/{id}/rulings`` with the call). Who may do what is settled first, as everywhere: calling is for
the seated players, the desk and the claims for the table's referees (``services.access``: never one of its
players). The calls, claims and rulings are events of the table's stream; the queue reads them from the log."""

from __future__ import annotations

from typing import Annotated

from litestar import Router, get, post
from litestar.params import FromPath, FromQuery, JSONBody, Parameter, QueryParameter

from domain.table import CallReferee, ClaimCall
from services.api import schemas
from services.api.deps import Caller, Championships, Gate, Pool, Tables, Who
from services.api.problems import Problem
from services.api.schemas import Strict
from services.api.schemas_referee import DeskDeal, QueueItem
from services.api.wire import table_view
from services.referee import desk as referee_desk
from services.tables import command_digest


@post("/tables/{table_id:str}/calls", operation_id="callReferee", refuses=(409,), status_code=201,
      summary="A seated player calls the referee to his table (a claim dispute, a misclick, a connection loss, "
              "suspected collusion, an accusation of an action: \"qayd\" with its index, whose deal's result "
              "then waits for the ruling)", dto=Strict[schemas.NewCall], return_dto=None)
async def call_referee(table_id: FromPath[str], data: JSONBody[schemas.NewCall], user: Caller, tables: Tables,
                       access: Gate, viewer: Who,
                       seat: int | None = Parameter(default=None, ge=0, le=schemas.MAX_SEAT)
                       ) -> schemas.CommandAccepted:
    table = await tables.load(table_id)
    my_seat = await access.acting_seat(viewer, table, seat)      # who asks, before anything else
    if table.opened is None:
        raise Problem(409, "table_not_open", f"table {table_id} has not started")
    command = CallReferee(seat=my_seat, user=user.user_id, reason=data.reason, note=data.note.strip(),
                          index=data.index)
    outcome, table = await tables.execute(table_id, data.command_id, lambda _: command, actor=user.user_id,
                                          role="player", digest=command_digest(command), seat=my_seat,
                                          table=table)
    return schemas.CommandAccepted(table_id, outcome.version, outcome.replayed, outcome.events,
                                   table_view(table, my_seat), outcome.receipts)


async def _referee_of(tables, access, table_id: str, viewer):
    table = await tables.load(table_id)
    await access.referee(viewer, table)
    return table


@post("/tables/{table_id:str}/calls/{call:int}/claim", operation_id="claimCall", refuses=(409,), status_code=200,
      summary="Referee: take a call (the other referees see it is taken; claiming one's own again changes "
              "nothing)", dto=Strict[schemas.ClaimCall], return_dto=None)
async def claim_call(table_id: FromPath[str], call: FromPath[int], data: JSONBody[schemas.ClaimCall],
                     user: Caller, tables: Tables, access: Gate, viewer: Who) -> schemas.CommandAccepted:
    table = await _referee_of(tables, access, table_id, viewer)
    mine = next((c for c in table.calls if c.call == call and c.claimed_by == user.user_id and c.open), None)
    if mine is not None:
        return schemas.CommandAccepted(table_id, table.version, True, [], table_view(table, None))
    command = ClaimCall(call=call, referee=user.user_id)
    outcome, table = await tables.execute(table_id, data.command_id, lambda _: command, actor=user.user_id,
                                          role="referee", digest=command_digest(command), table=table)
    return schemas.CommandAccepted(table_id, outcome.version, outcome.replayed, outcome.events,
                                   table_view(table, None), outcome.receipts)


@get("/referee/queue", operation_id="refereeQueue", refuses=(403,),
     summary="Referee: the calls at every table the caller referees, the open ones oldest first (ruled=true: "
             "the ruled ones too, newest first after them)")
async def referee_queue(user: Caller, pool: Pool, championships: Championships, tables: Tables, access: Gate,
                        viewer: Who, ruled: FromQuery[bool] = False,
                        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 200) -> list[QueueItem]:
    return await referee_desk.queue(pool, tables, championships, access, viewer, ruled=ruled, limit=limit)


@get("/tables/{table_id:str}/deals/{deal_no:int}/desk", operation_id="refereeDesk", refuses=(403, 409),
     summary="Referee: a deal step by step with all four hands (at any time, the deal being played included), "
             "its calls with the engine's verdict on each accusation and the rule's text, its rulings and "
             "signed receipts")
async def desk(table_id: FromPath[str], deal_no: FromPath[int], pool: Pool, tables: Tables,
               access: Gate, viewer: Who, championships: Championships) -> DeskDeal:
    return DeskDeal.of(await referee_desk.desk(pool, tables, championships, access, viewer, table_id, deal_no))


referee_router = Router("/", tags=["referees"], route_handlers=[call_referee, claim_call, referee_queue, desk])
