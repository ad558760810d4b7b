"""Tables: propose and accept, view, act, rule, follow live, replay and audit. Who is asking, and what he
may see, is settled by the access policy (``services/access``, docs/access.md) before anything else, for every
route."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import msgspec
from litestar import Request, Router, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, Parameter
from litestar.types import ASGIApp

from domain.games import record_format_of
from services.anchor import Receipt, receipts_of
from services.anchor.audit import AnchorCheck, check_anchor
from services.anchor.keys import Signer
from services.api import schemas
from services.api.schemas import Strict
from services.new_tables import propose_table
from services.records import (
    DealSummary, HandRecord, StoredAudit, audit_deal, deal_record, deal_summaries, finished_deal, seed_check,
    visible_events, whole_game,
)
from services.tables.rulings import ruling_command
from services.tokens import tokens_stream
from services.api.deps import Auth, Caller, Feeds, Gate, Pool, ServerSigner, Streams, Tables, Who
from services.api.live import LiveStream, frame
from services.api.problems import Problem, field_in
from services.api.wire import table_view, to_command, view_json
from services.eventstore import read_stream, verify_stream
from services.tables import Table, command_digest, deal_spans, stream_of
from services.tables.feeds import Cut


@post("/tables", operation_id="createTable", refuses=(409, 422), status_code=201,
      summary="Propose a table (one game): the seated users are invited, and the game starts once each has "
              "accepted (the caller accepts by himself); a seat named \"bot\" is played by a bot of the "
              "table's level",
      dto=Strict[schemas.NewTable], return_dto=None)
async def create_table(request: Request, data: JSONBody[schemas.NewTable], user: Caller, pool: Pool,
                       tables: Tables) -> schemas.TableCreated:
    table = await propose_table(pool, tables, user.user_id, data)
    return schemas.TableCreated(table.table_id, table.version, "live" if table.opened else "invited",
                                list(table.waiting))


async def _answer(tables: Tables, access: Gate, table_id: str, viewer: Who, accept: bool
                  ) -> schemas.InvitationAnswered:
    table = await tables.load(table_id)
    await access.invitee(viewer, table)
    outcome, table = await tables.answer_invitation(table_id, viewer.user_id, accept)
    status = "cancelled" if table.cancelled else "live" if table.opened else "invited"
    return schemas.InvitationAnswered(table_id, outcome.version, outcome.replayed, status, list(table.waiting))


@post("/tables/{table_id:str}/accept", operation_id="acceptInvitation", refuses=(409,), status_code=200,
      summary="Take the seat you are invited to; the last acceptance starts the game")
async def accept_invitation(table_id: FromPath[str], viewer: Who, tables: Tables, access: Gate
                            ) -> schemas.InvitationAnswered:
    return await _answer(tables, access, table_id, viewer, True)


@post("/tables/{table_id:str}/decline", operation_id="declineInvitation", refuses=(409,), status_code=200,
      summary="Refuse the seat you are invited to: the table is cancelled")
async def decline_invitation(table_id: FromPath[str], viewer: Who, tables: Tables, access: Gate
                             ) -> schemas.InvitationAnswered:
    return await _answer(tables, access, table_id, viewer, False)


@get("/tables", operation_id="listTables", summary="Tables, live ones first")
async def list_tables(viewer: Who, access: Gate,
                      status: str = Parameter(default="live", pattern="^(live|finished|all)$"),
                      limit: int = Parameter(default=100, ge=1, le=1000)) -> list[schemas.TableSummary]:
    rows = await access.listed_tables(viewer, status, limit)
    return [schemas.TableSummary(r["table_id"], r["profile"], r["mode"], r["status"], list(r["seats"]),
                                 r["championship_id"], r["match_id"]) for r in rows]


@get("/tables/{table_id:str}/view", operation_id="viewTable", refuses=(403,),
     summary="The table as the caller sees it: a seated player's own seat, else the spectator view")
async def view_table(table_id: FromPath[str], viewer: Who, tables: Tables, access: Gate,
                     seat: int | None = Parameter(default=None, ge=0, le=schemas.MAX_SEAT)) -> schemas.AnyTableView:
    table = await tables.load(table_id)
    seen = await access.sight(viewer, table, seat)
    return table_view(await access.seen(table, seen), seen.seat)


@post("/tables/{table_id:str}/commands", operation_id="actAtTable", refuses=(409,), status_code=200,
      summary="Act for your own seat: bid, double, declare, play, claim Sawa or call Qayd (the card game); "
              "roll or score (the dice game)", dto=Strict[schemas.PlayerCommand], return_dto=None)
async def act(request: Request, table_id: FromPath[str], data: JSONBody[schemas.PlayerCommand],
              tables: Tables, feeds: Feeds, access: Gate, viewer: Who,
              seat: int | None = Parameter(default=None, ge=0, le=schemas.MAX_SEAT)) -> schemas.CommandAccepted:
    return await act_at_table(tables, feeds, access, table_id, data, viewer, seat)


async def act_at_table(tables, feeds, access, table_id: str, data: schemas.PlayerCommand, viewer, seat: int | None
                       ) -> schemas.CommandAccepted:
    """A player's command at a table (the route ``act``'s, also taken by its lane, ``services/api/lanes.py``)."""
    # A table followed here is this process's fold of it, kept by its feed (no read; if it is behind, the
    # append at its version fails and the table is read); a table not yet open is read, to refuse on the log.
    table = feeds.current(table_id)
    read = table is None or table.opened is None
    if read:
        table = await tables.load(table_id)
    # Who may act is settled before anything else, a replayed command id included (seats never change).
    my_seat = await access.acting_seat(viewer, table, seat)
    if table.opened is None:
        raise Problem(409, "table_not_open", f"table {table_id} waits for its invited players: "
                                             f"{', '.join(table.waiting) or 'cancelled'}")
    command = to_command(data.action, my_seat)
    outcome, table = await tables.execute(table_id, data.command_id, lambda _: command, actor=viewer.user_id,
                                       role="player", digest=command_digest(command), seat=my_seat,
                                       expected_version=data.expected_version, table=table, read=read)
    return schemas.CommandAccepted(table_id, outcome.version, outcome.replayed, outcome.events,
                                   table_view(table, my_seat), outcome.receipts)


@post("/tables/{table_id:str}/rulings", operation_id="ruleAtTable", refuses=(409, 422), status_code=200,
      summary="Referee: call Qayd for a seat (the engine rules from the log), record the result, annul "
              "or replay a deal, end the game, hand a seat to a bot", dto=Strict[schemas.RefereeCommand], return_dto=None)
async def rule(request: Request, table_id: FromPath[str], data: JSONBody[schemas.RefereeCommand], user: Caller,
               tables: Tables, access: Gate, viewer: Who) -> schemas.CommandAccepted:
    table = await tables.load(table_id)
    await access.referee(viewer, table)
    if table.opened is None:
        raise Problem(409, "table_not_open", f"table {table_id} has not started")
    r = data.ruling
    ruling = ruling_command(table, type(r).__struct_config__.tag, msgspec.structs.asdict(r), user.user_id, data.call)
    outcome, table = await tables.execute(table_id, data.command_id, lambda _: ruling, actor=user.user_id,
                                       role="referee", digest=command_digest(ruling),
                                       expected_version=data.expected_version, table=table)
    return schemas.CommandAccepted(table_id, outcome.version, outcome.replayed, outcome.events,
                                   table_view(table, None), outcome.receipts)


@get("/tables/{table_id:str}/live", operation_id="followTable", refuses=(403,),
     summary="Server-Sent Events: the caller's view after each event (a player's own seat; spectators behind "
             "the table's delay)",
     responses={200: ResponseSpec(data_container=dict, media_type="text/event-stream", generate_examples=False,
                                  description="`view` events (the view as JSON), then `end`")})
async def follow(request: Request, table_id: FromPath[str], user: Caller, tables: Tables, feeds: Feeds,
                 streams: Streams, access: Gate, viewer: Who, auth: Auth,
                 after: int = Parameter(default=0, ge=0, le=schemas.MAX_VERSION, description="start after this version")
                 ) -> ASGIApp:
    table = await tables.load(table_id)
    audience = await access.sight(viewer, table)
    session = await auth.session(request.scope)
    slot = streams.take(user.user_id)       # 429 too_many_streams before any data
    delay = 0.0 if audience.live else audience.delay
    stream = stream_of(table_id)

    following: dict = {"sub": None, "gone": False}   # the subscription, once the stream has begun

    async def body(write) -> None:
        sub = following["sub"] = feeds.subscribe(table_id, table)     # the process's one reader of this table
        if following["gone"]:                        # the client went away before the stream began
            sub.cut("the client went away")
        stop_watching = _cut_when_token_ends(auth, feeds.listener, session, sub)
        state = sub.start
        try:
            if after < sub.cursor:                   # resuming before the feed's head: fold from the start once
                state = Table()
                for row in await read_stream(tables.pool, stream, 1, sub.cursor):
                    state = tables.fold(state, [row])
                    if row.version > after:
                        await sub.pause(_broadcast_wait(row.recorded_at, delay))
                        await write(_view_frame(state, audience.seat))
            while not (state.game.phase == "ended" or state.cancelled):
                if delay > 0:                        # a spectator's: each event when its delay is over
                    took = False
                    for entry in sub.take():
                        if entry.version > after:
                            await sub.pause(_broadcast_wait(entry.recorded_at, delay))
                            await write(entry.view(audience.seat, _view_frame))
                        state, took = entry.state, True
                else:                                # what arrived together, written together
                    took, state, chunk = _frames_after(sub.take(), state, after, audience.seat)
                    if chunk:
                        await write(chunk)
                if took:                             # more may have come while writing: look again
                    continue
                if sub.ended:
                    break
                await sub.changed()                  # (no list of the last step is held while waiting)
            await write(frame("end", "{}", state.version))
        except Cut as cut:                           # the follower's token was revoked or has expired
            await write(frame("error", msgspec.json.encode({"rule": "bad_token", "detail": str(cut)}), state.version))
        finally:
            stop_watching()
            sub.close()

    def gone() -> None:                              # the client went away: the stream ends at once
        following["gone"] = True
        if following["sub"] is not None:
            following["sub"].cut("the client went away")

    return slot.hold(LiveStream(body, gone, background=slot.when_sent()))


def _cut_when_token_ends(auth, listener, session, sub):
    """Cut ``sub`` when its follower's token is revoked (a notification from whichever process revoked it,
    then the database's word) or expires (a timer); returns what stops watching. No task waits meanwhile."""
    loop = asyncio.get_running_loop()
    name = tokens_stream(session.user.user_id)
    checks: set = set()

    async def check() -> None:
        why = await auth.check(session)
        if why is not None:
            sub.cut(why)

    def revoked_maybe() -> None:
        task = loop.create_task(check())
        checks.add(task)
        task.add_done_callback(checks.discard)

    listener.watch(name, revoked_maybe)
    left = (session.expires_at - dt.datetime.now(dt.timezone.utc)).total_seconds()
    timer = loop.call_later(max(0.0, left), sub.cut, "token expired")

    def stop() -> None:
        listener.unwatch(name, revoked_maybe)
        timer.cancel()
        for task in checks:
            task.cancel()

    return stop


def _frames_after(entries: list, state: Table, after: int, seat: int | None) -> tuple[bool, Table, bytes]:
    """Whether there are ``entries``, the table after them (``state`` if none) and their frames for ``seat``
    past version ``after``, joined."""
    if not entries:
        return False, state, b""
    return True, entries[-1].state, b"".join(e.view(seat, _view_frame) for e in entries if e.version > after)


def _view_frame(state: Table, seat: int | None, memo: dict | None = None) -> bytes:
    """The view event of ``state`` as ``seat`` sees it (None: a spectator), framed once for all who see it
    (``memo``: the state's feed entry's, where its views share the table's frame)."""
    return frame("view", view_json(state, seat, memo), state.version)


def _broadcast_wait(recorded_at: dt.datetime, delay: float) -> float:
    """How long until a row stored at ``recorded_at`` may be sent: spectators get it ``delay`` seconds after."""
    if delay <= 0:
        return 0.0
    return max(0.0, (recorded_at + dt.timedelta(seconds=delay) - dt.datetime.now(dt.timezone.utc)).total_seconds())


@get("/tables/{table_id:str}/deals", operation_id="listDeals", refuses=(403,),
     summary="The deals of a table, for replays")
async def list_deals(table_id: FromPath[str], viewer: Who, tables: Tables, access: Gate
                     ) -> list[DealSummary]:
    events = await visible_events(tables, access, table_id, viewer)
    return deal_summaries(events)


@get("/tables/{table_id:str}/deals/{deal_no:int}/record", operation_id="handRecord", refuses=(403, 409),
     summary="A finished deal as a baloot-hand/1 hand record, with the server's signed receipt of its end")
async def hand_record(table_id: FromPath[str], deal_no: FromPath[int], viewer: Who, pool: Pool,
                      tables: Tables, access: Gate) -> HandRecord:
    events = await visible_events(tables, access, table_id, viewer, hands=True)
    return deal_record(events, deal_no, await receipts_of(pool, stream_of(table_id)))


@get("/tables/{table_id:str}/receipts", operation_id="tableReceipts", refuses=(403,),
     summary="The server's signed receipts of the table's stream head at the end of each deal and of the game "
             "(keep them: `baloot verify --receipts` checks the log against them)")
async def table_receipts(table_id: FromPath[str], viewer: Who, pool: Pool, tables: Tables, access: Gate
                         ) -> list[Receipt]:
    table = await tables.load(table_id)
    visible = await access.version(table, await access.sight(viewer, table))
    return [r for r in await receipts_of(pool, stream_of(table_id)) if r.version <= visible]


@get("/tables/{table_id:str}/state", operation_id="tableStateAt", refuses=(403,),
     summary="The caller's view after event number `at` (step-by-step replay; spectators behind the table's "
             "delay)")
async def state_at(table_id: FromPath[str], viewer: Who, tables: Tables, access: Gate,
                   at: int = Parameter(ge=0, le=2**31 - 1)) -> schemas.AnyTableView:
    table = await tables.load(table_id)
    audience = await access.sight(viewer, table)
    visible = await access.version(table, audience)
    if at > visible:
        raise Problem(404, "not_yet_visible", f"event {at} is not visible yet ({visible} are)", field="at")
    return table_view(await tables.table_at(table_id, at), audience.seat)


@get("/tables/{table_id:str}/deals/{deal_no:int}/audit", operation_id="auditStoredDeal", refuses=(403, 409),
     summary="Verify the stream's hash chain, the revealed seed against the commitment and the dealt hands, "
             "and replay the rules")
async def audit_stored(table_id: FromPath[str], deal_no: FromPath[int], viewer: Who, pool: Pool,
                       tables: Tables, access: Gate, signer: ServerSigner) -> StoredAudit:
    events = await visible_events(tables, access, table_id, viewer, hands=True)
    evs = finished_deal(events, deal_no)
    broken = await verify_stream(pool, stream_of(table_id))
    spans = deal_spans(events)
    end = spans[deal_no][1] - 1 if deal_no < len(spans) else events[-1][0]
    anchor = await _anchor(pool, signer, table_id, "deal", str(deal_no), end, events[-1][0])
    report = audit_deal(events, evs, await receipts_of(pool, stream_of(table_id)))
    return StoredAudit(table_id, deal_no, broken is None, broken, seed_check(evs), report, anchor)


async def _anchor(pool, signer: Signer, table_id: str, kind: str, ref: str, end: int, visible: int) -> AnchorCheck:
    """The anchor of a deal or a game that ended by version ``end``: its signed receipt (of the append that
    ended it, which the caller may see) against the stored head, and that event against the latest signed
    checkpoint; with no receipt, the event at ``end``."""
    receipt = next((r for r in await receipts_of(pool, stream_of(table_id))
                    if r.kind == kind and r.ref == ref and r.version <= visible), None)
    return await check_anchor(pool, signer.public_key_hex, stream_of(table_id),
                              receipt.version if receipt is not None else end, receipt)


@get("/tables/{table_id:str}/record", operation_id="gameRecord", refuses=(403, 409),
     summary="A finished game as one record in its game's format (the dice game: balut-game/1, every turn's "
             "seed and commitment); the card game's records are per deal")
async def game_record(table_id: FromPath[str], viewer: Who, tables: Tables, access: Gate) -> dict[str, Any]:
    events = await visible_events(tables, access, table_id, viewer, hands=True)
    game, played = whole_game(await tables.load(table_id), events)
    return msgspec.to_builtins(game.info.record.export(played))


@get("/tables/{table_id:str}/audit", operation_id="auditStoredGame", refuses=(403, 409),
     summary="A finished game's audit: the stream's hash chain, and its record replayed by its game's audit "
             "(each turn's seed against its commitment and the dice thrown)")
async def audit_game(table_id: FromPath[str], viewer: Who, pool: Pool, tables: Tables, access: Gate,
                     signer: ServerSigner) -> schemas.StoredGameAudit:
    events = await visible_events(tables, access, table_id, viewer, hands=True)
    game, played = whole_game(await tables.load(table_id), events)
    broken = await verify_stream(pool, stream_of(table_id))
    report = game.info.record.audit(game.info.record.export(played))
    anchor = await _anchor(pool, signer, table_id, "game", table_id, events[-1][0], events[-1][0])
    return schemas.StoredGameAudit(table_id, game.info.record.name, broken is None, broken, report.valid,
                                   msgspec.to_builtins(report), anchor)


@post("/audit", operation_id="auditHandRecord", refuses=(400, 413), status_code=200,
      summary="Audit an uploaded record (baloot-hand/1 or balut-game/1, told apart by its `format`), as "
              "`baloot audit --json` does")
async def audit_upload(request: Request, user: Caller) -> dict[str, Any]:
    body = await request.body()
    try:
        fmt = record_format_of(body)
    except ValueError as exc:
        raise Problem(400, "malformed_record", str(exc), field="format") from None
    try:
        record = fmt.parse(body)
    except fmt.malformed as exc:
        raise Problem(400, "malformed_record", str(exc), field=field_in(str(exc))) from None
    return msgspec.to_builtins(fmt.audit(record))


table_router = Router(tags=["tables"], path="/", route_handlers=[
    create_table, accept_invitation, decline_invitation, list_tables, view_table, act, rule, follow, list_deals,
    hand_record, table_receipts,
    state_at, audit_stored, audit_upload, game_record, audit_game,
])
