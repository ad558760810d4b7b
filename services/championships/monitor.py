"""The organiser's live monitor of a championship: every match of a round with its state, a count per state,
and what needs the organiser now, first (no-shows at a closed check-in window, stalled tables, disputes, a
round ready to start).

A match is ``waiting_check_in`` (a window is open and a team has not checked in), ``waiting`` (no table yet),
``playing``, ``stalled`` (its table live with nothing stored for ``stall_seconds``), ``disputed`` (a Qayd under
review at its table, or a call waiting for the referee), or ``finished`` (decided: played, forfeit, bye). Built from the championship's fold, its
check-in stream, the tables index and each live table's last event: one query for all the round's tables.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Literal

import msgspec

from domain.tournament.checkin import team_checked_in
from domain.tournament.formats import next_round
from services.championships.checkins import closes_at

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
    names: tuple[str, str]                     # the teams' names (their ids where they have none)
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


def team_names(championships, championship_id: str, champ) -> tuple[dict[str, str], dict[str, str]]:
    """Each team's name (its id where it has none), and the same case-folded with its id, for the search;
    worked out once per version of the championship and kept by its service (a 10,240-team field is not
    walked on every request)."""
    kept = championships.team_names
    cached = kept.get(championship_id)
    if cached is not None and cached[0] == champ.version:
        return cached[1], cached[2]
    names = {tid: (t.info.name if t.info is not None and t.info.name else tid) for tid, t in champ.state.teams.items()}
    folded = {tid: f"{name}\x00{tid}".casefold() for tid, name in names.items()}
    if len(kept) > 64:
        kept.clear()
    kept[championship_id] = (champ.version, names, folded)
    return names, folded


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
    names, folded = team_names(championships, championship_id, champ)
    # The tables of the round's matches still to play, and the last event of each live one (one query).
    undecided = {m.match_id for m in current.matches if outcomes[m.index] is None}
    tables: dict[str, list] = {}
    for r in await championships.matches.tables_of(championship_id):
        tables.setdefault(r["match_id"], []).append(r)
    live = [r["table_id"] for mid in undecided for r in tables.get(mid, ()) if r["status"] == "live"]
    last = {r["table_id"]: (r["event_type"], r["recorded_at"]) for r in await championships.pool.fetch(
        "SELECT t.table_id, e.event_type, e.recorded_at FROM unnest($1::text[]) AS t(table_id) "
        "CROSS JOIN LATERAL (SELECT event_type, recorded_at FROM events WHERE stream_id = 'table-' || t.table_id "
        "ORDER BY version DESC LIMIT 1) e", live)} if live else {}
    # The live tables with a call waiting for the referee (called, not ruled): disputed too.
    calling = {r["stream_id"][len("table-"):] for r in await championships.pool.fetch(
        "SELECT stream_id FROM events WHERE event_type IN ('referee_called', 'ruling_made') AND stream_id = ANY($1) "
        "AND data->>'call' IS NOT NULL GROUP BY stream_id, data->>'call' "
        "HAVING NOT bool_or(event_type = 'ruling_made')", [f"table-{t}" for t in live])} if live else set()
    checks = await championships.check_ins.of(championship_id) if champ.run.check_in_seconds is not None else None
    window = closes_at(champ, number, checks)
    stall = dt.timedelta(seconds=stall_seconds())

    def checked_in(m) -> tuple[bool, bool]:
        if checks is None:
            return (False, False)
        here = checks.of(number, m.match_id)
        return tuple(t is not None and team_checked_in(state.teams[t], here) for t in (m.team_a, m.team_b))

    # Each match's state (all of them: the counts and the filters need it), and what needs the organiser.
    kinds: list[State] = []
    needs: list[Attention] = []
    for m in current.matches:
        if outcomes[m.index] is not None:
            kinds.append("finished")
            counts["finished"] += 1
            continue
        seen = [last[r["table_id"]] for r in tables.get(m.match_id, ()) if r["table_id"] in last]
        latest = max((at for _, at in seen), default=None)
        called = any(r["table_id"] in calling for r in tables.get(m.match_id, ()))
        if called or any(t in DISPUTE_EVENTS for t, _ in seen):
            kind: State = "disputed"
        elif latest is not None and now - latest > stall:
            kind = "stalled"
        elif m.match_id in tables:
            kind = "playing"
        elif window is not None and not all(checked_in(m)):
            kind = "waiting_check_in"
        else:
            kind = "waiting"
        kinds.append(kind)
        counts[kind] += 1
        pair = (names.get(m.team_a, ""), names.get(m.team_b, ""))
        if kind == "stalled":
            needs.append(Attention("stalled", f"{pair[0]} v {pair[1]}: nothing played for "
                                              f"{int((now - latest).total_seconds() // 60)} min", m.match_id))
        elif kind == "disputed":
            why = "a call waits for the referee" if called else "a Qayd is under review"
            needs.append(Attention("disputed", f"{pair[0]} v {pair[1]}: {why}", m.match_id))
        elif kind == "waiting_check_in" and now >= window:
            absent = [n for n, c in zip(pair, checked_in(m)) if not c]
            needs.append(Attention("no_show", f"{' and '.join(absent)} did not check in by the window's end",
                                   m.match_id))
    order = {"no_show": 0, "stalled": 1, "disputed": 2}
    needs.sort(key=lambda a: order[a.kind])
    if current.undecided == 0 and number == len(state.rounds) and state.status == "running":
        if next_round(state) is None:
            needs.append(Attention("championship_over", f"round {number} is decided and none remains: finish the "
                                                        "championship"))
        else:
            needs.append(Attention("round_ready", f"round {number} is decided: start round {number + 1}"))

    # The filters, then the page; only the page's matches are written out whole.
    wanted = query.casefold().strip()
    hits = {tid for tid, text in folded.items() if wanted in text} if wanted else None
    picked = [k for k, m in enumerate(current.matches)
              if (state_filter is None or kinds[k] == state_filter)
              and (hits is None or m.team_a in hits or m.team_b in hits or wanted in m.match_id.casefold())]
    start = after + 1
    page = picked[start:start + limit]
    out = []
    for k in page:
        m = current.matches[k]
        o = outcomes[m.index]
        rows = tables.get(m.match_id, [])
        seen = [last[r["table_id"]][1] for r in rows if r["table_id"] in last]
        games = (o.result.team_a_games, o.result.team_b_games) if o is not None and o.result is not None else None
        out.append(MonitoredMatch(m.match_id, m.round, m.stage, m.team_a, m.team_b,
                                  (names.get(m.team_a, ""), names.get(m.team_b, "")), kinds[k],
                                  o.kind if o else None, o.winner if o else None, games,
                                  [r["table_id"] for r in rows], checked_in(m), max(seen, default=None)))
    more = start + len(page) < len(picked)
    return Monitor(championship_id, state.settings.name, state.status, number, len(state.rounds), window, counts,
                   needs, out, len(picked), start + len(page) - 1 if more else None)
