"""The referee's desk: a player calls the referee to his table, a referee sees the calls of the tables he
referees (his queue, oldest first), claims one, steps through the disputed deal with every hand, and rules
(``POST /tables/{id}/rulings`` with the call). Who may do what is settled first, as everywhere: calling is for
the seated players, the desk and the claims for the table's referees (``services.access``: never one of its
players). The calls, claims and rulings are events of the table's stream; the queue reads them from the log."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated

import msgspec
from litestar import Router, get, post
from litestar.params import FromPath, FromQuery, JSONBody, Parameter, QueryParameter

from domain.baloot import deal as deal_mod
from domain.baloot.audit import _action_text
from domain.baloot.cards import card_name, suit_name
from domain.baloot.events import (
    BidMade, CallQayd, CardPlayed, DoubleCalled, ProjectsDeclared, QaydCalled, QaydVerdict, SawaClaimed,
)
from domain.baloot.result import decide_qayd
from domain.baloot.views import view as deal_view
from domain.errors import DomainError
from domain.games import GAMES
from domain.table import CallClaimed, CallReason, CallReferee, ClaimCall, RefereeCalled, RulingMade, game_of
from domain.tournament.state import parse_match_id
from services.accounts import user_names
from services.anchor import Receipt, receipt_of_ruling, receipts_of
from services.api import schemas
from services.api.deps import Caller, Championships, Gate, Pool, Tables, Who
from services.api.problems import Problem
from services.championships import team_names
from services.api.schemas import DealOnWire, Strict
from services.api.wire import table_view
from services.roles import referees_anything
from services.tables import command_digest, deal_spans, stream_of

# The engine's rule names, with where docs/rules.md states them and the rule in a sentence.
RULE_TEXT = {
    "revoke": ("§5 Play", "Everyone follows the led suit if able (revoke, قاطع)."),
    "must_trump": ("§5 Play", "In Hokum, a player void in the led plain suit must trump (ما دق بحكم)."),
    "must_overtrump": ("§5 Play", "In Hokum, a player who trumps or follows trump must beat the highest trump "
                                  "on the table if he can (ما كبّر بحكم)."),
    "closed_trump_lead": ("§5 Play", "In a closed game, no trump lead while holding a plain card."),
    "false_sawa": ("§5 Play", "Sawa (سوا) holds only if the claimer's team wins every remaining trick against "
                              "every defence."),
}
QAYD_SECTION = ("§9 Strict and recorded tables, Qayd (قيد)",
                "Proven: the deal ends, the offending team gets 0 and the other the full deal value plus its own "
                "projects. Unfounded: the accusing team loses the deal the same way.")
RULING_WORDS = {"uphold": "the accusation upheld", "reject": "rejected", "annul_deal": "the deal cancelled",
                "replay_deal": "the deal cancelled and dealt again", "award_deal": "the deal awarded",
                "end_game": "the game ended", "hand_seat_to_bot": "a seat handed to a bot",
                "record_result": "the result recorded", "qayd": "Qayd called by the referee"}
CALL_EVENTS = ("referee_called", "referee_call_claimed", "ruling_made")


class QueueItem(msgspec.Struct):
    """One call at a table the caller referees, with who called, why, and where it stands."""

    table_id: str
    call: int
    seat: int
    caller: str
    caller_name: str
    reason: CallReason
    note: str
    deal_no: int
    index: int | None
    called_at: dt.datetime
    status: str                               # open, claimed, ruled
    claimed_by: str | None
    claimed_by_name: str | None
    ruling: str | None
    ruling_reason: str
    ruled_at: dt.datetime | None
    players: list[str]                        # the seats' names
    championship_id: str | None
    championship_name: str | None
    match_id: str | None
    round: int | None = None                  # the round of the table's match
    sides: list[str] = []                     # who plays whom: seats 0 and 2, then 1 and 3 (their teams' names)
    seats: list[str] = []                     # the seats' user ids (a bot's names its level: the page says it)


class DeskStep(msgspec.Struct):
    """The deal after one stored event that changed it: the words of the action, when it was stored, and the
    deal with every hand (the referee's view)."""

    version: int
    at: dt.datetime
    index: int | None                         # the action's index in the deal (what a Qayd names)
    text: str                                 # in English, the players named
    kind: str                                 # bid, double, declare, play, sawa, qayd, call, claimed, ruling, cards_dealt, …
    seat: int | None
    value: str | None                         # the bid, call, card(s), reason or ruling
    words: str | None                         # an offence, a verdict, the referee and his reason
    deal: DealOnWire                          # a referee acts on no seat: legal_actions is empty


class DeskCall(msgspec.Struct):
    call: int
    seat: int
    caller_name: str
    reason: CallReason
    note: str
    index: int | None
    called_at: dt.datetime
    status: str
    claimed_by_name: str | None
    ruling: str | None
    ruling_reason: str
    verdict: QaydVerdict | None               # an accusation: the engine's verdict on the accused action
    verdict_problem: str | None               # why the engine cannot rule on it now
    rule_section: str | None
    rule_text: str | None


class DeskDeal(msgspec.Struct):
    table_id: str
    deal_no: int
    deals: int                                # the table's deals so far
    players: list[str]
    table_mode: str
    championship_id: str | None
    championship_name: str | None
    steps: list[DeskStep]
    calls: list[DeskCall]
    rulings: list[dict]                       # RulingMade of this deal, with when and by whom
    receipts: list[Receipt]                   # the deal's end, and its rulings, signed
    qayd_section: str
    qayd_text: str
    match_id: str | None = None
    round: int | None = None                  # the round of the table's match
    sides: list[str] = []                     # who plays whom: seats 0 and 2, then 1 and 3 (their teams' names)
    seats: list[str] = []                     # the seats' user ids (a bot's names its level: the page says it)


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


async def _match(pool, championships, championship_id: str | None, match_id: str | None, seats,
                 names: dict[str, str], game: str) -> tuple[str | None, int | None, list[str]]:
    """Which match a table is: its championship's name, the round, and its two sides (seats 0 and 2, then 1 and
    3) by their teams' names at a championship's table, else by their players'; the dice game's table has no
    sides (each plays for himself)."""
    paired = GAMES[game].info.partnerships
    sides = [" & ".join(names.get(u, u) for u in seats[side::2]) for side in (0, 1)] if paired else []
    if championship_id is None:
        return None, None, sides
    state = (await championships.load(championship_id)).state
    teams = [state.players.get(seats[side]) for side in (0, 1)] if paired else []
    named = await team_names(pool, state, [t for t in teams if t])
    where = parse_match_id(match_id or "")
    return (state.settings.name, where[0] if where else None,
            [named.get(t, sides[side]) if t else sides[side] for side, t in enumerate(teams)])


async def _refereed_tables(tables, access, viewer, table_ids: list[str]) -> dict[str, dict]:
    """Of ``table_ids``, the tables the caller referees now (the access policy's ``referee``), with their
    championship, match and seats."""
    out = {}
    for table_id in table_ids:
        table = await tables.load(table_id)
        if await access.is_referee(viewer, table):
            o = table.opened or table.proposed
            out[table_id] = {"championship_id": o.championship_id, "match_id": o.match_id, "seats": o.seats,
                             "game": o.game}
    return out


@get("/referee/queue", operation_id="refereeQueue", refuses=(403,),
     summary="Referee: the calls at every table the caller referees, the open ones oldest first (ruled=true: "
             "the ruled ones too, newest first after them)")
async def referee_queue(user: Caller, pool: Pool, championships: Championships, tables: Tables, access: Gate,
                        viewer: Who, ruled: FromQuery[bool] = False,
                        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 200) -> list[QueueItem]:
    if not await referees_anything(pool, user.user_id):
        raise Problem(403, "not_referee", "the desk is for referees: a table's creator who does not sit at it, "
                                          "a championship's organiser and the referees he names, the platform's "
                                          "referees")
    rows = await pool.fetch(
        "SELECT stream_id, event_type, data, recorded_at FROM events WHERE event_type = ANY($1) ORDER BY position",
        list(CALL_EVENTS))
    prefix = len(stream_of(""))
    refereed = await _refereed_tables(tables, access, viewer, sorted({r["stream_id"][prefix:] for r in rows}))
    calls: dict[tuple[str, int], dict] = {}
    for r in rows:
        table_id = r["stream_id"][prefix:]
        if table_id not in refereed:
            continue
        e = msgspec.json.decode(r["data"].encode() if isinstance(r["data"], str) else r["data"])
        if r["event_type"] == "referee_called":
            calls[(table_id, e["call"])] = dict(e, table_id=table_id, called_at=r["recorded_at"], claimed_by=None,
                                                ruling=None, ruling_reason="", ruled_at=None)
        elif (key := (table_id, e.get("call"))) in calls:
            c = calls[key]
            c["claimed_by"] = e.get("referee")
            if r["event_type"] == "ruling_made":
                c.update(ruling=e["ruling"], ruling_reason=e.get("reason", ""), ruled_at=r["recorded_at"])
    shown = [c for c in calls.values() if ruled or c["ruling"] is None]
    shown.sort(key=lambda c: (c["ruling"] is not None, c["called_at"] if c["ruling"] is None
                              else -c["ruled_at"].timestamp()))
    shown = shown[:limit]
    names = await user_names(pool, [u for c in shown for u in (c["user"], c["claimed_by"],
                                                           *refereed[c["table_id"]]["seats"]) if u])
    matches = {}
    for table_id in {c["table_id"] for c in shown}:
        t = refereed[table_id]
        matches[table_id] = await _match(pool, championships, t["championship_id"], t["match_id"], t["seats"], names,
                                         t["game"])
    out = []
    for c in shown:
        t = refereed[c["table_id"]]
        title, round_no, sides = matches[c["table_id"]]
        status = "ruled" if c["ruling"] is not None else "claimed" if c["claimed_by"] else "open"
        out.append(QueueItem(
            c["table_id"], c["call"], c["seat"], c["user"], names.get(c["user"], c["user"]), c["reason"],
            c.get("note", ""), c.get("part_no", 0), c.get("index"), c["called_at"], status, c["claimed_by"],
            names.get(c["claimed_by"]) if c["claimed_by"] else None, c["ruling"], c["ruling_reason"], c["ruled_at"],
            [names.get(u, u) for u in t["seats"]], t["championship_id"], title, t["match_id"], round_no, sides,
            list(t["seats"])))
    return out


def _step_of(e, names: dict[str, str]) -> tuple[str, int | None, str | None, str | None] | None:
    """What a deal's event says, as (kind, seat, value, words) for the page to put in its reader's language, or
    None for an event that is no step of its own."""
    match e:
        case BidMade():
            return "bid", e.seat, e.bid + (f" {suit_name(e.suit)}" if e.suit is not None else ""), None
        case DoubleCalled():
            return "double", e.seat, e.call, None
        case ProjectsDeclared():
            return "declare", e.seat, " ".join(card_name(c) for g in e.projects for c in g), None
        case CardPlayed():
            return "play", e.seat, card_name(e.card), e.offence
        case SawaClaimed():
            return "sawa", e.seat, "holds" if e.valid else "false", None
        case QaydCalled():
            return "qayd", e.verdict.caller, str(e.verdict.index), e.verdict.message
        case RefereeCalled():
            return "call", e.seat, e.reason, None if e.index is None else str(e.index)
        case CallClaimed():
            return "claimed", None, str(e.call), names.get(e.referee, e.referee)
        case RulingMade():
            return "ruling", None, e.ruling, f"{names.get(e.referee, e.referee)}: {e.reason}"
    tag = type(e).__struct_config__.tag
    if tag in ("cards_dealt", "contract_fixed", "deal_scored", "deal_voided", "seed_revealed", "deal_annulled"):
        return tag, None, None, None
    return None


def _steps(evs: list, players: list[str], names: dict[str, str]) -> list[DeskStep]:
    """The deal after each stored event that changed it, with every hand; the English words name the players
    (the page says each step in its reader's language from its kind, seat and value)."""
    state = deal_mod.INITIAL
    steps = []
    for version, at, e in evs:
        before = state
        state = deal_mod.evolve(state, e)
        step = _step_of(e, names)
        if step is None:
            continue
        kind, seat, value, words = step
        acted = state.actions > before.actions
        text = _action_text(before.actions, e) if acted else _event_text(e, names)
        text = re.sub(r"\bseat (\d)", lambda m: players[int(m[1])], text.split(" ", 1)[1] if text.startswith("#") else text)
        view = deal_view(state, None, hands="always")
        steps.append(DeskStep(version, at, before.actions if acted else None, text, kind, seat, value, words,
                              DealOnWire(**{**msgspec.structs.asdict(view), "legal_actions": []})))
    return steps


def _event_text(e, names: dict[str, str]) -> str:
    match e:
        case RefereeCalled():
            what = f" on action {e.index}" if e.index is not None else ""
            return f"seat {e.seat} calls the referee ({e.reason}{what})"
        case CallClaimed():
            return f"call {e.call} taken by {names.get(e.referee, e.referee)}"
        case RulingMade():
            on = f" on call {e.call}" if e.call else ""
            return f"{names.get(e.referee, e.referee)} rules{on} ({RULING_WORDS.get(e.ruling, e.ruling)}): {e.reason}"
    tag = type(e).__struct_config__.tag
    return {"cards_dealt": "the cards are dealt", "contract_fixed": "the contract is fixed",
            "deal_scored": "the deal is scored", "deal_voided": "the deal is void",
            "seed_revealed": "the deal's seed is revealed", "deal_annulled": "the deal is cancelled"}.get(tag, tag)


def _verdict(evs: list, call) -> tuple[QaydVerdict | None, str | None]:
    """The engine's verdict on an accusation: the one it gave (upheld), else what it would give now."""
    for _, _, e in evs:
        if isinstance(e, QaydCalled) and e.verdict.caller == call.seat and e.verdict.index == call.index:
            return e.verdict, None
    state = deal_mod.fold(e for _, _, e in evs)
    try:
        return decide_qayd(state, CallQayd(call.seat, call.index))[0].verdict, None
    except DomainError as err:
        return None, f"{err.rule}: {err.message}"


@get("/tables/{table_id:str}/deals/{deal_no:int}/desk", operation_id="refereeDesk", refuses=(403, 409),
     summary="Referee: a deal step by step with all four hands (at any time, the deal being played included), "
             "its calls with the engine's verdict on each accusation and the rule's text, its rulings and "
             "signed receipts")
async def desk(table_id: FromPath[str], deal_no: FromPath[int], pool: Pool, tables: Tables,
               access: Gate, viewer: Who, championships: Championships) -> DeskDeal:
    table = await _referee_of(tables, access, table_id, viewer)
    if game_of(table).info.record_scope != "deal":
        raise Problem(409, "records_per_game", "this game's desk is its table: rule from the queue")
    events = await tables.events(table_id)
    spans = deal_spans(events)
    if not 1 <= deal_no <= len(spans):
        raise Problem(404, "unknown_deal", f"table {table_id} has {len(spans)} deal(s); there is no deal {deal_no}")
    first = spans[deal_no - 1][1]
    last = spans[deal_no][1] - 1 if deal_no < len(spans) else events[-1][0]
    evs = [row for row in events if first <= row[0] <= last]
    names = await user_names(pool, [*table.seats, *(c.user for c in table.calls),
                                *(c.claimed_by for c in table.calls if c.claimed_by),
                                *(e.referee for _, _, e in events if isinstance(e, RulingMade))])
    called = {e.call: when for _, when, e in events if isinstance(e, RefereeCalled)}
    calls = []
    for c in table.calls:
        if c.part_no != deal_no:
            continue
        verdict, problem = _verdict(evs, c) if c.reason == "qayd" and c.index is not None else (None, None)
        section, text = RULE_TEXT.get(verdict.rule, (None, None)) if verdict and verdict.rule else (None, None)
        calls.append(DeskCall(c.call, c.seat, names.get(c.user, c.user), c.reason, c.note, c.index, called[c.call],
                              c.status, names.get(c.claimed_by) if c.claimed_by else None, c.ruling, c.ruling_reason,
                              verdict, problem, section, text))
    rulings = [dict(msgspec.to_builtins(e), at=when.isoformat(), referee_name=names.get(e.referee, e.referee),
                    version=v) for v, when, e in evs if isinstance(e, RulingMade)]
    stored = await receipts_of(pool, stream_of(table_id))
    receipts = [r for r in stored if r.kind == "deal" and r.ref == str(deal_no)] + [
        r for r in (receipt_of_ruling(stored, x["version"], x["part_no"], x["call"]) for x in rulings) if r is not None]
    opened = table.opened
    title, round_no, sides = await _match(pool, championships, opened.championship_id, opened.match_id,
                                          table.seats, names, opened.game)
    players = [names.get(u, u) for u in table.seats]
    return DeskDeal(table_id, deal_no, len(spans), players, opened.table_mode, opened.championship_id, title,
                    _steps(evs, players, names), calls, rulings, receipts, *QAYD_SECTION, opened.match_id, round_no,
                    sides, list(table.seats))


referee_router = Router("/", tags=["referees"], route_handlers=[call_referee, claim_call, referee_queue, desk])
