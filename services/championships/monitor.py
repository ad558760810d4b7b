"""The organiser's live monitor of a championship: every match of a round with its state, a count per state,
and what needs the organiser now, first (no-shows at a closed check-in window, stalled tables, disputes, a
round ready to start).

A match is ``waiting_check_in`` (a window is open and a team has not checked in), ``waiting`` (no table yet),
``playing``, ``stalled`` (its table live with nothing stored for ``stall_seconds``), ``disputed`` (a Qayd under
review at its table, or a call waiting for the referee), or ``finished`` (decided: played, forfeit, bye).

Two halves: what is known of each match (the championship's fold, its check-in stream, the tables index, and
from the log, through the event store's reads, each live table's last event and its calls decoded by the
tables' codec) is gathered by ``monitor``; what that means (each match's state, what needs the organiser)
is ``classify``'s and ``needs_of``'s, pure functions of those facts and the clock.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Literal

import msgspec

from domain.table import RefereeCalled, RulingMade
from domain.tournament.checkin import team_checked_in
from domain.tournament.formats import next_round
from services.championships.checkins import closes_at
from services.championships.names import team_names
from services.eventstore import reads
from services.tables import CODEC as TABLE_CODEC, stream_of as table_stream

State = Literal["waiting_check_in", "waiting", "playing", "stalled", "disputed", "finished"]
STATES: tuple[State, ...] = ("waiting_check_in", "waiting", "playing", "stalled", "disputed", "finished")
DISPUTE_EVENTS = ("qayd_called",)


def stall_seconds() -> float:
    return float(os.environ.get("BALOOT_STALL_SECONDS", "300"))


class MonitoredMatch(msgspec.Struct, frozen=True):
    match_id: str
    round: int
    stage: str
    team_a: str | None
    team_b: str | None
    names: tuple[str, str]                     # the teams' names (services/championships/names.py)
    state: State
    outcome: str | None                        # played, forfeit, double_forfeit, bye, walkover, void
    winner: str | None
    games: tuple[int, int] | None
    tables: list[str]
    checked_in: tuple[bool, bool]
    last_event_at: dt.datetime | None          # the latest stored event of its tables


class Attention(msgspec.Struct, frozen=True):
    kind: Literal["no_show", "stalled", "disputed", "round_ready", "championship_over"]
    detail: str
    match_id: str | None = None


class Monitor(msgspec.Struct, frozen=True):
    championship_id: str
    name: str
    status: str
    round: int                                 # the round shown (0: none started)
    rounds: int
    check_in_closes_at: dt.datetime | None
    counts: dict[str, int]                     # every state, over the whole round (filters aside)
    needs: list[Attention]                     # what needs the organiser now, the most urgent first
    matches: list[MonitoredMatch]              # the page asked for, in match order
    total: int                                 # matches that pass the filters
    next_after: int | None                     # give as `after` for the next page; None: the last page


class Seen(msgspec.Struct, frozen=True):
    """What is known of one undecided match: whether it has tables, its live tables' latest stored event and
    whether one of them shows a Qayd under review or a call waiting for the referee, and which of its teams
    checked in."""

    tables: bool
    latest: dt.datetime | None
    qayd: bool
    called: bool
    checked_in: tuple[bool, bool]


def classify(seen: Seen, now: dt.datetime, stall: dt.timedelta, window: dt.datetime | None) -> State:
    """An undecided match's state (a decided one is ``finished``), the first that holds of: disputed, stalled
    (nothing stored at its tables for longer than ``stall``), playing (it has a table), waiting for a
    check-in (a window, ``window`` its end, and a team not in), waiting."""
    if seen.called or seen.qayd:
        return "disputed"
    if seen.latest is not None and now - seen.latest > stall:
        return "stalled"
    if seen.tables:
        return "playing"
    if window is not None and not all(seen.checked_in):
        return "waiting_check_in"
    return "waiting"


URGENCY = {"no_show": 0, "stalled": 1, "disputed": 2}


def needs_of(round_no: int, kinds: dict[str, State], seen: dict[str, Seen], names: dict[str, tuple[str, str]],
             now: dt.datetime, window: dt.datetime | None, ahead: Literal["round", "end"] | None) -> list[Attention]:
    """What needs the organiser, the most urgent first: each match's no-show at a closed window, stalled
    table, dispute (in match order within a kind), then the round decided (``ahead``: the next round to
    start, the championship to finish, or nothing: the round is not decided, or not the last one started)."""
    needs: list[Attention] = []
    for match_id, kind in kinds.items():
        pair = names.get(match_id, ("", ""))
        if kind == "stalled":
            needs.append(Attention("stalled", f"{pair[0]} v {pair[1]}: nothing played for "
                                              f"{int((now - seen[match_id].latest).total_seconds() // 60)} min",
                                   match_id))
        elif kind == "disputed":
            why = "a call waits for the referee" if seen[match_id].called else "a Qayd is under review"
            needs.append(Attention("disputed", f"{pair[0]} v {pair[1]}: {why}", match_id))
        elif kind == "waiting_check_in" and window is not None and now >= window:
            absent = [n for n, c in zip(pair, seen[match_id].checked_in) if not c]
            needs.append(Attention("no_show", f"{' and '.join(absent)} did not check in by the window's end",
                                   match_id))
    needs.sort(key=lambda a: URGENCY[a.kind])
    if ahead == "end":
        needs.append(Attention("championship_over", f"round {round_no} is decided and none remains: finish the "
                                                    "championship"))
    elif ahead == "round":
        needs.append(Attention("round_ready", f"round {round_no} is decided: start round {round_no + 1}"))
    return needs


def open_calls(events) -> set[str]:
    """The streams with a call waiting for the referee (called, not ruled), from their ``referee_called`` and
    ``ruling_made`` events, decoded."""
    called: dict[tuple[str, int], bool] = {}
    for stream, e in events:
        if e.call is None:
            continue
        ruled = isinstance(e, RulingMade)
        called[(stream, e.call)] = called.get((stream, e.call), False) or ruled
    return {stream for (stream, _), ruled in called.items() if not ruled}


async def monitor(championships, championship_id: str, *, round_no: int | None = None, state_filter: str | None = None,
                  query: str = "", after: int = -1, limit: int = 100, now: dt.datetime | None = None) -> Monitor:
    champ = await championships.load(championship_id)
    state = champ.state
    now = now or dt.datetime.now(dt.timezone.utc)
    number = round_no or len(state.rounds)
    counts = {s: 0 for s in STATES}
    if not 1 <= number <= len(state.rounds):
        return Monitor(championship_id, state.settings.name, state.status, 0, len(state.rounds), None, counts,
                       [], [], 0, None)
    current = state.rounds[number - 1]
    outcomes = list(current.outcomes)
    pool = championships.pool
    # The tables of the round's matches still to play; each live one's last event and open calls.
    undecided = {m.match_id for m in current.matches if outcomes[m.index] is None}
    tables: dict[str, list] = {}
    for r in await championships.matches.tables_of(championship_id):
        tables.setdefault(r["match_id"], []).append(r)
    live = [table_stream(r["table_id"]) for mid in undecided for r in tables.get(mid, ()) if r["status"] == "live"]
    last = await reads.last_events(pool, live)
    calling = open_calls((e.stream_id, TABLE_CODEC.decode(e))
                         for e in await reads.read_kinds(pool, (RefereeCalled.__struct_config__.tag,
                                                                RulingMade.__struct_config__.tag), live))
    checks = await championships.check_ins.of(championship_id) if champ.run.check_in_seconds is not None else None
    window = closes_at(champ, number, checks)
    stall = dt.timedelta(seconds=stall_seconds())

    def checked_in(m) -> tuple[bool, bool]:
        if checks is None:
            return (False, False)
        here = checks.of(number, m.match_id)
        return tuple(t is not None and team_checked_in(state.teams[t], here) for t in (m.team_a, m.team_b))

    # Each match's state (all of them: the counts and the filters need it), and what needs the organiser.
    kinds: dict[str, State] = {}
    seen: dict[str, Seen] = {}
    for m in current.matches:
        if outcomes[m.index] is not None:
            kinds[m.match_id] = "finished"
            continue
        heads = [last[s] for s in (table_stream(r["table_id"]) for r in tables.get(m.match_id, ())) if s in last]
        seen[m.match_id] = Seen(m.match_id in tables, max((h.recorded_at for h in heads), default=None),
                                any(h.event_type in DISPUTE_EVENTS for h in heads),
                                any(table_stream(r["table_id"]) in calling for r in tables.get(m.match_id, ())),
                                checked_in(m))
        kinds[m.match_id] = classify(seen[m.match_id], now, stall, window)
    for kind in kinds.values():
        counts[kind] += 1
    ahead = None
    if current.undecided == 0 and number == len(state.rounds) and state.status == "running":
        ahead = "end" if next_round(state) is None else "round"

    # The filters, then the page; only the page's matches are written out whole, and named.
    wanted = query.casefold().strip()
    hits, everyone = None, {}
    if wanted:                                   # every team of the round named: the page's are among them
        everyone = await team_names(pool, state, [t for m in current.matches for t in (m.team_a, m.team_b) if t])
        hits = {tid for tid, name in everyone.items() if wanted in f"{name}\x00{tid}".casefold()}
    picked = [k for k, m in enumerate(current.matches)
              if (state_filter is None or kinds[m.match_id] == state_filter)
              and (hits is None or m.team_a in hits or m.team_b in hits or wanted in m.match_id.casefold())]
    start = after + 1
    page = picked[start:start + limit]
    late = window is not None and now >= window
    told = [m for m in current.matches                     # the matches a need names
            if kinds[m.match_id] in ("stalled", "disputed") or (late and kinds[m.match_id] == "waiting_check_in")]
    shown = [current.matches[k] for k in page]
    named = everyone if wanted else \
        await team_names(pool, state, [t for m in (*told, *shown) for t in (m.team_a, m.team_b) if t])
    pairs = {m.match_id: (named.get(m.team_a, ""), named.get(m.team_b, "")) for m in (*told, *shown)}
    needs = needs_of(number, {m.match_id: kinds[m.match_id] for m in current.matches}, seen, pairs, now, window,
                     ahead)
    out = []
    for m in shown:
        o = outcomes[m.index]
        rows = tables.get(m.match_id, [])
        at = [last[s].recorded_at for s in (table_stream(r["table_id"]) for r in rows) if s in last]
        games = (o.result.team_a_games, o.result.team_b_games) if o is not None and o.result is not None else None
        out.append(MonitoredMatch(m.match_id, m.round, m.stage, m.team_a, m.team_b, pairs[m.match_id],
                                  kinds[m.match_id], o.kind if o else None, o.winner if o else None, games,
                                  [r["table_id"] for r in rows], checked_in(m), max(at, default=None)))
    more = start + len(page) < len(picked)
    return Monitor(championship_id, state.settings.name, state.status, number, len(state.rounds), window, counts,
                   needs, out, len(picked), start + len(page) - 1 if more else None)
