"""The webhooks' outbox: a projection (``webhooks_rm``) that turns the log's events an integrator cares about
into deliveries, one per subscribed endpoint, in the transaction that moves its checkpoint, so that each event
is queued exactly once per endpoint (the event id is the delivery's idempotency key) and the sender
(``services/webhooks/sender``) has nothing to lose.

It reads only the kinds of event it needs (filtered in SQL): the championships' own, and from the tables'
streams their openings (a match started) and referee calls and rulings. Free text written at a table (a
player's note to the referee, the referee's written reason) is not sent: a webhook may feed a public channel.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timezone

import asyncpg
import msgspec

from domain.table import RefereeCalled, RulingMade, TableOpened
from domain.tournament import events as e
from services.championships import CODEC
from services.eventstore import RecordedEvent, projection
from services.tables import CODEC as TABLE_CODEC

NAME = "webhooks_rm"
CHANNEL = "baloot_webhooks"          # NOTIFY'd when deliveries are queued: the sender wakes
CHAMPIONSHIP = "championship-"
TABLE = "table-"
PODIUM = 4                           # a finished championship's payload names the teams ranked this high

KINDS = ("registration.closed", "draw.made", "round.started", "match.started", "match.ended",
         "championship.finished", "referee.called", "referee.ruled")
EVENT_TYPES = ("championship_created", "team_registered", "registration_closed", "draw_committed", "draw_made",
               "round_paired", "match_result_recorded", "match_forfeited", "match_double_forfeited",
               "championship_finished", "table_opened", "referee_called", "ruling_made")


@dataclass(frozen=True)
class Item:
    event: RecordedEvent
    championship_id: str
    kind: str
    data: dict


async def _keep(conn, kept: list[tuple[str, object]]) -> None:
    """What the payloads will name, from a batch's championship events: championships, teams, pairings."""
    created, committed, teams, matches = [], [], [], []
    for cid, event in kept:
        match event:
            case e.ChampionshipCreated(settings=settings):
                created.append((cid, settings.name))
            case e.DrawCommitted(commitment=commitment):
                committed.append((cid, commitment))
            case e.TeamRegistered(team_id=team_id, players=players, info=info):
                teams.append((cid, team_id, info.name if info and info.name else None, players))
            case e.RoundPaired(matches=pairs):
                matches += [(cid, m.match_id, m.round, m.team_a, m.team_b) for m in pairs]
    if created:
        await conn.executemany("INSERT INTO webhook_championships VALUES ($1, $2, NULL) ON CONFLICT DO NOTHING", created)
    if committed:
        await conn.executemany("UPDATE webhook_championships SET commitment = $2 WHERE championship_id = $1", committed)
    if teams:
        unnamed = list({p for *_, name, players in teams if name is None for p in players})
        people = {r["user_id"]: r["name"] for r in await conn.fetch(
            "SELECT user_id, name FROM users WHERE user_id = ANY($1)", unnamed)} if unnamed else {}
        await conn.executemany("INSERT INTO webhook_teams VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                               [(cid, team_id, name or " & ".join(people.get(p, p) for p in players))
                                for cid, team_id, name, players in teams])
    if matches:
        await conn.executemany("INSERT INTO webhook_matches VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                               matches)


class Lookup:
    """What a batch's payloads name, read in a few queries for the whole batch: its championships (name,
    commitment), the tables of its referee events, its matches and their teams."""

    def __init__(self) -> None:
        self.championships: dict[str, tuple[str, str | None]] = {}
        self.tables: dict[str, tuple[str | None, str | None]] = {}
        self.matches: dict[tuple[str, str], tuple[int, str | None, str | None]] = {}
        self.teams: dict[tuple[str, str], dict] = {}

    async def load(self, conn, cids, table_ids, match_keys, team_keys) -> None:
        self.tables = {r[0]: (r[1], r[2]) for r in await conn.fetch(
            "SELECT table_id, championship_id, match_id FROM tables_index WHERE table_id = ANY($1)", list(table_ids))}
        self.championships = {r[0]: (r[1], r[2]) for r in await conn.fetch(
            "SELECT championship_id, name, commitment FROM webhook_championships WHERE championship_id = ANY($1)",
            list({*cids, *(c for c, _ in self.tables.values() if c)}))}
        match_keys = {*match_keys, *((c, m) for c, m in self.tables.values() if c and m)}
        rows = await conn.fetch(
            "SELECT m.championship_id, m.match_id, m.round, m.team_a, m.team_b FROM webhook_matches m "
            "JOIN unnest($1::text[], $2::text[]) AS k(c, id) ON m.championship_id = k.c AND m.match_id = k.id",
            [c for c, _ in match_keys], [m for _, m in match_keys])
        self.matches = {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}
        team_keys = {*team_keys, *((c, t) for (c, _), (_, a, b) in self.matches.items() for t in (a, b) if t)}
        rows = await conn.fetch(
            "SELECT t.championship_id, t.team_id, t.name FROM webhook_teams t "
            "JOIN unnest($1::text[], $2::text[]) AS k(c, id) ON t.championship_id = k.c AND t.team_id = k.id",
            [c for c, _ in team_keys], [t for _, t in team_keys])
        self.teams = {(r[0], r[1]): {"team_id": r[1], "name": r[2]} for r in rows}

    def team(self, cid: str, team_id: str | None) -> dict | None:
        return self.teams.get((cid, team_id)) if team_id else None

    def match(self, cid: str, match_id: str) -> dict:
        round_no, a, b = self.matches.get((cid, match_id), (None, None, None))
        return {"match_id": match_id, "round": round_no, "team_a": self.team(cid, a), "team_b": self.team(cid, b)}


def _wants(cid: str, event) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The matches and teams a championship event's payload names."""
    match event:
        case e.RoundPaired(matches=matches):
            return [], [(cid, t) for m in matches for t in (m.team_a, m.team_b) if t]
        case e.MatchResultRecorded(match_id=match_id, winner=winner) | e.MatchForfeited(match_id=match_id, winner=winner):
            return [(cid, match_id)], [(cid, winner)]
        case e.MatchDoubleForfeited(match_id=match_id):
            return [(cid, match_id)], []
        case e.ChampionshipFinished(champion=champion, ranking=ranking):
            return [], [(cid, t) for t in (champion, *(r.team_id for r in ranking if r.rank <= PODIUM)) if t]
    return [], []


def _championship_item(names: Lookup, cid: str, event) -> tuple[str, dict] | None:
    match event:
        case e.RegistrationClosed(team_count=count):
            return "registration.closed", {"team_count": count}
        case e.DrawMade(method=method, seed=seed, order=order, planned_rounds=rounds):
            return "draw.made", {"method": method, "commitment": names.championships.get(cid, ("", None))[1],
                                 "seed": seed, "order": list(order), "planned_rounds": rounds}
        case e.RoundPaired(round=round_no, matches=matches):
            return "round.started", {"round": round_no, "matches": [
                {"match_id": m.match_id, "stage": m.stage, "team_a": names.team(cid, m.team_a),
                 "team_b": names.team(cid, m.team_b), "note": m.note} for m in matches]}
        case e.MatchResultRecorded(match_id=match_id, winner=winner, result=r):
            return "match.ended", {**names.match(cid, match_id), "outcome": "played", "winner": names.team(cid, winner),
                                   "score": {"team_a_games": r.team_a_games, "team_b_games": r.team_b_games,
                                             "team_a_points": r.team_a_points, "team_b_points": r.team_b_points,
                                             "games": [list(g) for g in r.final_scores]}}
        case e.MatchForfeited(match_id=match_id, winner=winner, absent=absent, reason=reason):
            return "match.ended", {**names.match(cid, match_id), "outcome": "forfeit", "winner": names.team(cid, winner),
                                   "absent": [absent], "reason": reason, "score": None}
        case e.MatchDoubleForfeited(match_id=match_id, absent=absent, reason=reason):
            return "match.ended", {**names.match(cid, match_id), "outcome": "double_forfeit", "winner": None,
                                   "absent": list(absent), "reason": reason, "score": None}
        case e.ChampionshipFinished(champion=champion, ranking=ranking):
            return "championship.finished", {"champion": names.team(cid, champion), "podium": [
                {"rank": r.rank, "team": names.team(cid, r.team_id), "reached": r.reached}
                for r in ranking if r.rank <= PODIUM]}
    return None


def _table_item(names: Lookup, table_id: str, decoded) -> tuple[str, str, dict] | None:
    if isinstance(decoded, TableOpened):
        if decoded.championship_id is None or decoded.match_id is None or decoded.game_no != 1:
            return None
        cid = decoded.championship_id
        return cid, "match.started", {**names.match(cid, decoded.match_id), "table_id": table_id}
    cid, match_id = names.tables.get(table_id, (None, None))
    if cid is None:
        return None
    where = {"table_id": table_id, "match_id": match_id}
    if isinstance(decoded, RefereeCalled):
        return cid, "referee.called", {**where, "call": decoded.call, "seat": decoded.seat, "reason": decoded.reason}
    if isinstance(decoded, RulingMade):
        return cid, "referee.ruled", {**where, "call": decoded.call, "ruling": decoded.ruling}
    return None


_SUBSCRIBED = """
SELECT w.endpoint_id, w.kinds, w.from_position FROM webhook_endpoints w
 WHERE w.championship_id = $1
    OR (w.championship_id IS NULL AND EXISTS (SELECT 1 FROM grants g WHERE g.scope = 'championship'
        AND g.scope_id = $1 AND g.user_id = w.owner AND g.role = 'organiser'))"""


def payload(item: Item, name: str | None) -> str:
    """The body sent: the Standard Webhooks envelope (type, timestamp, data); ``sequence`` is the event's place
    in the log. Deliveries go in the order the log commits (docs/webhooks.md): two appends to different streams
    may commit in the other order than they were numbered, so ``sequence`` can step back along a line
    (deploy/chaos saw it at 2,048 teams)."""
    return msgspec.json.encode({
        "type": item.kind, "timestamp": item.event.recorded_at.astimezone(timezone.utc).isoformat(),
        "data": {"championship_id": item.championship_id, "championship_name": name,
                 "sequence": item.event.position, **item.data}}).decode()


async def apply_webhooks_batch(conn: asyncpg.Connection, events: list[RecordedEvent]) -> None:
    """A batch: the names and pairings kept (for every championship: an endpoint may be registered later), then,
    for the championships some endpoint follows, each event of a kind an endpoint takes queued for it."""
    championship, tables = [], []
    for ev in events:
        if ev.stream_id.startswith(CHAMPIONSHIP):
            championship.append((ev, ev.stream_id[len(CHAMPIONSHIP):], CODEC.decode(ev)))
        elif ev.stream_id.startswith(TABLE):
            tables.append((ev, ev.stream_id[len(TABLE):], TABLE_CODEC.decode(ev)))
    await _keep(conn, [(cid, decoded) for _, cid, decoded in championship])
    if not await conn.fetchval("SELECT EXISTS (SELECT 1 FROM webhook_endpoints)"):
        return
    names = Lookup()
    wanted = [_wants(cid, decoded) for _, cid, decoded in championship]
    opened = [(d.championship_id, d.match_id) for _, _, d in tables if isinstance(d, TableOpened) and d.match_id]
    await names.load(conn, {cid for _, cid, _ in championship} | {c for c, _ in opened if c},
                     [t for _, t, d in tables if not isinstance(d, TableOpened)],
                     {k for m, _ in wanted for k in m} | {k for k in opened if k[0]}, {k for _, t in wanted for k in t})
    items = [Item(ev, cid, *made) for ev, cid, decoded in championship
             if (made := _championship_item(names, cid, decoded)) is not None]
    items += [Item(ev, *found) for ev, table_id, decoded in tables
              if (found := _table_item(names, table_id, decoded)) is not None]
    read = {ev.position: n for n, ev in enumerate(events)}      # the log's order, as read (tx, then position)
    items.sort(key=lambda i: read[i.event.position])
    rows = []
    for cid in dict.fromkeys(i.championship_id for i in items):
        endpoints = await conn.fetch(_SUBSCRIBED, cid)
        if not endpoints:
            continue
        name = names.championships.get(cid, (None, None))[0]
        for item in (i for i in items if i.championship_id == cid):
            body = None
            for w in endpoints:
                if item.kind in w["kinds"] and item.event.position > w["from_position"]:
                    body = body or payload(item, name)
                    rows.append((w["endpoint_id"], item.event.event_id, item.event.position, cid, item.kind, body))
    if rows:
        await conn.executemany(
            "INSERT INTO webhook_deliveries (endpoint_id, event_id, position, championship_id, kind, payload) "
            "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (endpoint_id, event_id) DO NOTHING", rows)
        await conn.execute("SELECT pg_notify($1, '')", CHANNEL)


async def apply_webhooks(conn: asyncpg.Connection, event: RecordedEvent) -> None:
    await apply_webhooks_batch(conn, [event])


async def reset_webhooks(conn: asyncpg.Connection) -> None:
    """A rebuild forgets the names and pairings, never a delivery: those already queued are kept, and the
    replay queues no event twice for an endpoint (the event id is the key) nor any event older than it."""
    await conn.execute("TRUNCATE webhook_championships, webhook_teams, webhook_matches")


def webhooks_read_model():
    """The outbox projection (for ``ProjectionRunner``): every stream, only the kinds of event it reads."""
    return projection(NAME, apply_webhooks, reset_webhooks, stream_prefix="", event_types=EVENT_TYPES,
                      apply_batch=apply_webhooks_batch)
