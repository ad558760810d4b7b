"""Tables: create, view, act, rule, follow live, replay and audit."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid

import msgspec
from litestar import Request, Router, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from domain import game as game_mod
from domain.audit import audit_record
from domain.events import AnnulDeal, CallQayd, DealStarted, RecordResult, SeedRevealed
from domain.handrecord import MalformedRecord, export_record, parse_record
from domain.profiles import profile_named
from domain.shuffle import deck_from_seed, seed_commitment
from domain.views import contract_view
from services.api import schemas
from services.api.auth import User, grant, has_role
from services.api.problems import Problem, field_in
from services.api.tables import Table, TableOpened, deal_finished, deal_spans, fold_rows, stream_of
from services.api.wire import table_view, to_command
from services.eventstore import read_stream, verify_stream


def _svc(request: Request):
    return request.app.state.tables


async def _user(request: Request) -> User:
    return await request.app.state.auth.user(request)


def _seats_of(table: Table, user: User) -> list[int]:
    return [i for i, uid in enumerate(table.opened.seats) if uid == user.user_id]


async def _is_referee(request: Request, table: Table, user: User) -> bool:
    o = table.opened
    return await has_role(request.app.state.pool, user.user_id, "referee", ("table", o.table_id),
                          ("championship", o.championship_id)) or await has_role(
        request.app.state.pool, user.user_id, "organiser", ("championship", o.championship_id))


@post("/tables", operation_id="createTable", summary="Open a table (one game) with four seated users",
      status_code=201)
async def create_table(request: Request, data: JSONBody[schemas.NewTable]) -> schemas.TableCreated:
    user = await _user(request)
    try:
        profile = profile_named(data.profile, data.switches)
    except ValueError as exc:
        raise Problem(400, "invalid_field", str(exc), field="switches") from None
    pool = request.app.state.pool
    kinds = {r["user_id"]: r["kind"] for r in await pool.fetch(
        "SELECT user_id, kind FROM users WHERE user_id = ANY($1)", data.seats)}
    missing = [s for s in data.seats if s not in kinds]
    if missing:
        raise Problem(422, "unknown_user", f"no user {missing[0]!r} to seat", field="seats")
    table_id = uuid.uuid4().hex[:16]
    bots = tuple(data.bot_level if kinds[s] == "bot" else None for s in data.seats)
    opened = TableOpened(table_id=table_id, seats=tuple(data.seats), profile=profile, mode=data.mode,
                         hands_policy=data.hands_policy, delay_seconds=data.delay_seconds,
                         opened_by=user.user_id, bots=bots, turn_seconds=data.turn_seconds,
                         on_timeout=data.on_timeout)
    table = await _svc(request).open_table(opened)
    await grant(pool, "table", table_id, user.user_id, "referee")
    return schemas.TableCreated(table_id, table.version)


@get("/tables", operation_id="listTables", summary="Tables, live ones first")
async def list_tables(request: Request, status: str = Parameter(default="live", pattern="^(live|finished|all)$"),
                      limit: int = Parameter(default=100, ge=1, le=1000)) -> list[schemas.TableSummary]:
    await _user(request)
    rows = await request.app.state.pool.fetch(
        "SELECT table_id, profile, mode, status, seats, championship_id, match_id FROM tables_index "
        "WHERE $1 = 'all' OR status = $1 ORDER BY created_at DESC LIMIT $2", status, limit)
    return [schemas.TableSummary(r["table_id"], r["profile"], r["mode"], r["status"], list(r["seats"]),
                                 r["championship_id"], r["match_id"]) for r in rows]


@get("/tables/{table_id:str}/view", operation_id="viewTable",
     summary="The table as the caller sees it: a seated player's own seat, else the spectator view")
async def view_table(request: Request, table_id: FromPath[str],
                     seat: int | None = Parameter(default=None, ge=0, le=3)) -> dict:
    user = await _user(request)
    table = await _svc(request).load(table_id)
    mine = _seats_of(table, user)
    if seat is not None and seat not in mine:
        raise Problem(403, "not_your_seat", f"seat {seat} is not yours; you may see only your own cards")
    if seat is None and mine:
        seat = mine[0] if len(mine) == 1 or table.game.deal.turn not in mine else table.game.deal.turn
    if seat is None:
        return await _spectator_view_now(request, table_id, table)
    return table_view(table, seat)


async def _spectator_view_now(request: Request, table_id: str, table: Table) -> dict:
    delay = table.opened.delay_seconds
    if delay <= 0:
        return table_view(table, None)
    events = await _svc(request).events(table_id)
    cutoff = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=delay)
    return _view_at(events, sum(1 for _, at, _ in events if at <= cutoff), None)


def _view_at(events, n: int, seat: int | None) -> dict:
    """The view after the first ``n`` events."""
    opened = None
    game = game_mod.INITIAL
    for _, _, e in events[:n]:
        if isinstance(e, TableOpened):
            opened = e
        else:
            game = game_mod.evolve(game, e)
    version = events[n - 1][0] if n else 0
    return table_view(Table(opened, game, version), seat)


def _player_seat(table: Table, user: User, wanted: int | None) -> int:
    mine = _seats_of(table, user)
    if not mine:
        raise Problem(403, "not_seated", "only the players seated at this table act at it")
    if wanted is not None:
        if wanted not in mine:
            raise Problem(403, "not_your_seat", f"seat {wanted} is not yours; a player acts only for its own seat")
        return wanted
    if len(mine) == 1:
        return mine[0]
    turn = table.game.deal.turn
    return turn if turn in mine else mine[0]


@post("/tables/{table_id:str}/commands", operation_id="actAtTable", status_code=200,
      summary="Bid, double, declare, play, claim Sawa or call Qayd for your own seat")
async def act(request: Request, table_id: FromPath[str], data: JSONBody[schemas.PlayerCommand],
              seat: int | None = Parameter(default=None, ge=0, le=3)) -> schemas.CommandAccepted:
    user = await _user(request)
    svc = _svc(request)
    chosen: dict = {}

    def make(table: Table):
        if table.opened is None:
            raise Problem(404, "unknown_table", f"there is no table {table_id!r}")
        chosen["seat"] = s = _player_seat(table, user, seat)
        return to_command(data.action, s)

    outcome, table = await svc.execute(table_id, data.command_id, make, actor=user.user_id,
                                       expected_version=data.expected_version)
    view_seat = chosen.get("seat")
    if view_seat is None:
        view_seat = _player_seat(table, user, seat) if _seats_of(table, user) else None
    return schemas.CommandAccepted(table_id, outcome.version, outcome.replayed, outcome.events,
                                   table_view(table, view_seat))


@post("/tables/{table_id:str}/rulings", operation_id="ruleAtTable", status_code=200,
      summary="Referee: call Qayd for a seat (the engine rules from the log), record the result, annul "
              "or replay a deal")
async def rule(request: Request, table_id: FromPath[str], data: JSONBody[schemas.RefereeCommand]) -> schemas.CommandAccepted:
    user = await _user(request)
    svc = _svc(request)
    table = await svc.load(table_id)
    if not await _is_referee(request, table, user):
        raise Problem(403, "not_referee", "only this table's referee or its championship's organiser rules here")

    def make(table: Table):
        r = data.ruling
        match r:
            case schemas.RefereeQayd():
                return CallQayd(r.seat, r.index)
            case schemas.RecordResultRuling():
                return RecordResult()
            case schemas.AnnulRuling():
                return AnnulDeal(reason=r.reason, replay=r.replay)

    outcome, table = await svc.execute(table_id, data.command_id, make, actor=user.user_id,
                                       expected_version=data.expected_version)
    return schemas.CommandAccepted(table_id, outcome.version, outcome.replayed, outcome.events,
                                   table_view(table, None))


@get("/tables/{table_id:str}/live", operation_id="followTable",
     summary="Server-Sent Events: the spectator view after each event, behind the table's delay",
     responses={200: ResponseSpec(data_container=dict, media_type="text/event-stream", generate_examples=False,
                                  description="`view` events (the spectator view as JSON), then `end`")})
async def follow(request: Request, table_id: FromPath[str],
                 after: int = Parameter(default=0, ge=0, le=schemas.MAX_VERSION, description="start after this version")
                 ) -> ServerSentEvent:
    user = await _user(request)
    svc = _svc(request)
    table = await svc.load(table_id)
    slot = request.app.state.streams.take(user.user_id)       # 429 too_many_streams before any data
    delay = table.opened.delay_seconds
    notifier = request.app.state.notifier
    stream = stream_of(table_id)

    async def messages():
        state = Table()
        rows = await read_stream(svc.pool, stream, 1, after) if after else []
        if rows:
            state = fold_rows(state, rows)
        while True:
            waiter = notifier.waiter(stream)
            rows = await read_stream(svc.pool, stream, state.version + 1)
            for row in rows:
                if delay > 0:
                    due = row.recorded_at + dt.timedelta(seconds=delay)
                    wait = (due - dt.datetime.now(dt.timezone.utc)).total_seconds()
                    if wait > 0:
                        await asyncio.sleep(wait)     # the broadcast delay itself, not synchronisation
                state = fold_rows(state, [row])
                yield ServerSentEventMessage(data=msgspec.json.encode(table_view(state, None)).decode(),
                                             event="view", id=str(state.version))
            if state.game.phase == "ended":
                yield ServerSentEventMessage(data="{}", event="end", id=str(state.version))
                return
            await notifier.wait(waiter, timeout=5.0)

    return ServerSentEvent(slot.hold(messages()), background=slot.when_sent())


@get("/tables/{table_id:str}/deals", operation_id="listDeals", summary="The deals of a table, for replays")
async def list_deals(request: Request, table_id: FromPath[str]) -> list[schemas.DealSummary]:
    await _user(request)
    events = await _svc(request).events(table_id)
    out = []
    for n, first, evs in deal_spans(events):
        state = game_mod.deal_mod.replay(evs)
        contract = None
        if state.contract is not None:
            contract = msgspec.to_builtins(contract_view(state.contract))
        out.append(schemas.DealSummary(n, first, evs[0].dealer, deal_finished(evs), contract,
                                       tuple(state.result.game_points) if state.result else None))
    return out


async def _may_read_hands(request: Request, table_id: str, user: User) -> None:
    """Hand records show every hand: with hands_policy 'never' only the table's players and referees get them."""
    table = await _svc(request).load(table_id)
    if table.opened.hands_policy == "never" and not _seats_of(table, user) and not await _is_referee(
            request, table, user):
        raise Problem(403, "hands_hidden", "this table never shows hands to spectators; its players and "
                                           "referees may read its hand records")


def _finished_deal(events, deal_no: int) -> list:
    spans = deal_spans(events)
    if not 1 <= deal_no <= len(spans):
        raise Problem(404, "unknown_deal", f"this table has {len(spans)} deal(s); there is no deal {deal_no}")
    evs = spans[deal_no - 1][2]
    if not deal_finished(evs):
        raise Problem(409, "deal_in_progress", f"deal {deal_no} is still being played; its record would show "
                                               "hidden cards")
    return evs


@get("/tables/{table_id:str}/deals/{deal_no:int}/record", operation_id="handRecord",
     summary="A finished deal as a baloot-hand/1 hand record")
async def hand_record(request: Request, table_id: FromPath[str], deal_no: FromPath[int]) -> dict:
    await _may_read_hands(request, table_id, await _user(request))
    evs = _finished_deal(await _svc(request).events(table_id), deal_no)
    return msgspec.to_builtins(export_record(evs))


@get("/tables/{table_id:str}/state", operation_id="tableStateAt",
     summary="The spectator view after event number `at` (step-by-step replay, behind the table's delay)")
async def state_at(request: Request, table_id: FromPath[str], at: int = Parameter(ge=0)) -> dict:
    await _user(request)
    svc = _svc(request)
    table = await svc.load(table_id)
    events = await svc.events(table_id)
    visible = len(events)
    if table.opened.delay_seconds > 0 and table.game.phase != "ended":
        cutoff = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=table.opened.delay_seconds)
        visible = sum(1 for _, t, _ in events if t <= cutoff)
    if at > visible:
        raise Problem(404, "not_yet_visible", f"event {at} is not visible yet ({visible} are)", field="at")
    return _view_at(events, at, None)


@get("/tables/{table_id:str}/deals/{deal_no:int}/audit", operation_id="auditStoredDeal",
     summary="Verify the stream's hash chain, the revealed seed against the commitment and the dealt hands, "
             "and replay the rules")
async def audit_stored(request: Request, table_id: FromPath[str], deal_no: FromPath[int]) -> schemas.StoredAudit:
    await _may_read_hands(request, table_id, await _user(request))
    svc = _svc(request)
    events = await svc.events(table_id)
    evs = _finished_deal(events, deal_no)
    broken = await verify_stream(svc.pool, stream_of(table_id))
    start = evs[0]
    reveal = next((e for e in evs if isinstance(e, SeedRevealed)), None)
    if not isinstance(start, DealStarted) or start.commitment is None:
        seed_check = "no seed commitment (explicit deck)"
    elif reveal is None:
        seed_check = "seed not revealed yet"
    elif seed_commitment(reveal.seed) != start.commitment:
        seed_check = "seed does NOT match the commitment"
    elif deck_from_seed(reveal.seed) != tuple(start.deck):
        seed_check = "seed does NOT give the dealt deck"
    else:
        seed_check = "seed matches the commitment and the dealt hands"
    report = audit_record(export_record(evs))
    return schemas.StoredAudit(table_id, deal_no, broken is None, broken, seed_check, msgspec.to_builtins(report))


@post("/audit", operation_id="auditHandRecord", status_code=200,
      summary="Audit an uploaded hand record (baloot-hand/1), as `baloot audit --json` does")
async def audit_upload(request: Request) -> dict:
    await _user(request)
    body = await request.body()
    try:
        record = parse_record(body)
    except MalformedRecord as exc:
        raise Problem(400, "malformed_record", str(exc), field=field_in(str(exc))) from None
    return msgspec.to_builtins(audit_record(record))


table_router = Router(path="/", route_handlers=[
    create_table, list_tables, view_table, act, rule, follow, list_deals, hand_record,
    state_at, audit_stored, audit_upload,
])
