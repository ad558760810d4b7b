"""The referee's desk: the calls at every table the caller referees (his queue, read from the log), and a deal
of one of them step by step with all four hands, its calls with the engine's verdict on each accusation and
the rule's text, its rulings and their signed receipts. Who may see it is the access policy's
(``services.access``: a table's officials, never one of its players); the deal's own steps and verdicts are
the engine's (``domain.baloot.desk``); the table's events (a call, a claim, a ruling) are worded here."""

from __future__ import annotations

import datetime as dt

import msgspec

from domain.baloot import desk as deal_desk
from domain.baloot.events import QaydVerdict
from domain.baloot.views import DealView
from domain import games
from domain.table import CallClaimed, CallReason, RefereeCalled, RulingMade, game_of
from domain.tournament.state import parse_match_id
from services.accounts import user_names
from services.anchor import Receipt, receipt_of_ruling, receipts_of
from services.championships import team_names
from services.errors import Conflict, Forbidden, NotFound
from services.eventstore.reads import read_kinds
from services.roles import referees_anything
from services.tables import CODEC, deal_spans, stream_of

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


class Step(msgspec.Struct):
    """The deal after one stored event that changed it: the words of the action, when it was stored, and the
    deal with every hand."""

    version: int
    at: dt.datetime
    index: int | None                         # the action's index in the deal (what a Qayd names)
    text: str                                 # in English, the players named
    kind: str
    seat: int | None
    value: str | None
    words: str | None
    deal: DealView


class Desk(msgspec.Struct):
    """One deal at the desk: the table and its match, the deal's steps with every hand, its calls with the
    engine's verdicts, its rulings and their signed receipts, and the Qayd rule's text."""

    table_id: str
    deal_no: int
    deals: int
    players: list[str]
    table_mode: str
    championship_id: str | None
    championship_name: str | None
    steps: list[Step]
    calls: list[DeskCall]
    rulings: list[dict]
    receipts: list[Receipt]
    qayd_section: str
    qayd_text: str
    match_id: str | None = None
    round: int | None = None
    sides: list[str] = []
    seats: list[str] = []


async def _match(pool, championships, championship_id: str | None, match_id: str | None, seats,
                 names: dict[str, str], game: str) -> tuple[str | None, int | None, list[str]]:
    """Which match a table is: its championship's name, the round, and its two sides (seats 0 and 2, then 1 and
    3) by their teams' names at a championship's table, else by their players'; the dice game's table has no
    sides (each plays for himself)."""
    paired = games.get(game).info.partnerships
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


async def queue(pool, tables, championships, access, viewer, *, ruled: bool, limit: int) -> list[QueueItem]:
    """The calls at every table the caller referees, the open ones oldest first (``ruled``: the ruled ones too,
    newest first after them), at most ``limit``."""
    if not await referees_anything(pool, viewer.user_id):
        raise Forbidden("not_referee", "the desk is for referees: a table's creator who does not sit at it, "
                                       "a championship's organiser and the referees he names, the platform's "
                                       "referees")
    # Decoded by the tables' codec (upcast to today's schema), then read as plain values like the JSON they are.
    rows = [(r.stream_id, r.event_type, msgspec.to_builtins(CODEC.decode(r)), r.recorded_at)
            for r in await read_kinds(pool, CALL_EVENTS)]
    prefix = len(stream_of(""))
    refereed = await _refereed_tables(tables, access, viewer, sorted({stream[prefix:] for stream, *_ in rows}))
    calls: dict[tuple[str, int], dict] = {}
    for stream, event_type, e, recorded_at in rows:
        table_id = stream[prefix:]
        if table_id not in refereed:
            continue
        if event_type == "referee_called":
            calls[(table_id, e["call"])] = dict(e, table_id=table_id, called_at=recorded_at, claimed_by=None,
                                                ruling=None, ruling_reason="", ruled_at=None)
        elif (key := (table_id, e.get("call"))) in calls:
            c = calls[key]
            c["claimed_by"] = e.get("referee")
            if event_type == "ruling_made":
                c.update(ruling=e["ruling"], ruling_reason=e.get("reason", ""), ruled_at=recorded_at)
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


def _table_step(e, players: list[str], names: dict[str, str]) -> tuple[str, str, int | None, str | None,
                                                                         str | None] | None:
    """A table's event at the desk as (text, kind, seat, value, words), or None for one that is no step."""
    match e:
        case RefereeCalled():
            what = f" on action {e.index}" if e.index is not None else ""
            return (f"{players[e.seat]} calls the referee ({e.reason}{what})", "call", e.seat, e.reason,
                    None if e.index is None else str(e.index))
        case CallClaimed():
            referee = names.get(e.referee, e.referee)
            return f"call {e.call} taken by {referee}", "claimed", None, str(e.call), referee
        case RulingMade():
            referee = names.get(e.referee, e.referee)
            on = f" on call {e.call}" if e.call else ""
            return (f"{referee} rules{on} ({RULING_WORDS.get(e.ruling, e.ruling)}): {e.reason}", "ruling", None,
                    e.ruling, f"{referee}: {e.reason}")
    return None


def _steps(evs: list, players: list[str], names: dict[str, str]) -> list[Step]:
    """The deal after each stored event that changed it, with every hand; the English words name the players
    (the page says each step in its reader's language from its kind, seat and value)."""
    state = deal_desk.INITIAL
    steps = []
    for version, at, e in evs:
        before, state = state, deal_desk.evolve(state, e)
        told = deal_desk.step(before, state, e)
        if told is not None:
            text, kind, seat, value, words, index = (told.text(players), told.kind, told.seat, told.value,
                                                     told.words, told.index)
        elif (table_step := _table_step(e, players, names)) is not None:
            (text, kind, seat, value, words), index = table_step, None
        else:
            continue
        steps.append(Step(version, at, index, text, kind, seat, value, words, deal_desk.referee_view(state)))
    return steps


async def desk(pool, tables, championships, access, viewer, table_id: str, deal_no: int) -> Desk:
    """Deal ``deal_no`` of the table at the desk, for one of its referees."""
    table = await tables.load(table_id)
    await access.referee(viewer, table)
    if game_of(table).info.record_scope != "deal":
        raise Conflict("records_per_game", "this game's desk is its table: rule from the queue")
    events = await tables.events(table_id)
    spans = deal_spans(events)
    if not 1 <= deal_no <= len(spans):
        raise NotFound("unknown_deal", f"table {table_id} has {len(spans)} deal(s); there is no deal {deal_no}")
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
        verdict, problem = (deal_desk.verdict((e for _, _, e in evs), c.seat, c.index)
                            if c.reason == "qayd" and c.index is not None else (None, None))
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
    return Desk(table_id, deal_no, len(spans), players, opened.table_mode, opened.championship_id, title,
                _steps(evs, players, names), calls, rulings, receipts, *QAYD_SECTION, opened.match_id, round_no,
                sides, list(table.seats))
