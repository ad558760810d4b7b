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


async def _keep(conn, cid: str, event) -> None:
    """What the payloads will name: championships, teams and pairings."""
    match event:
        case e.ChampionshipCreated(settings=settings):
            await conn.execute("INSERT INTO webhook_championships VALUES ($1, $2, NULL) ON CONFLICT DO NOTHING",
                               cid, settings.name)
        case e.DrawCommitted(commitment=commitment):
            await conn.execute("UPDATE webhook_championships SET commitment = $2 WHERE championship_id = $1",
                               cid, commitment)
        case e.TeamRegistered(team_id=team_id, players=players, info=info):
            name = info.name if info and info.name else " & ".join(
                [r["name"] for r in await conn.fetch(
                    "SELECT coalesce(u.name, p) AS name FROM unnest($1::text[]) WITH ORDINALITY AS t(p, i) "
                    "LEFT JOIN users u ON u.user_id = p ORDER BY i", list(players))])
            await conn.execute("INSERT INTO webhook_teams VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                               cid, team_id, name)
        case e.RoundPaired(matches=matches):
            await conn.executemany("INSERT INTO webhook_matches VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                                   [(cid, m.match_id, m.round, m.team_a, m.team_b) for m in matches])


async def _teams(conn, cid: str, team_ids) -> dict[str, dict]:
    rows = await conn.fetch("SELECT team_id, name FROM webhook_teams WHERE championship_id = $1 AND team_id = ANY($2)",
                            cid, [t for t in team_ids if t])
    return {r["team_id"]: {"team_id": r["team_id"], "name": r["name"]} for r in rows}


async def _match(conn, cid: str, match_id: str) -> dict:
    row = await conn.fetchrow("SELECT round, team_a, team_b FROM webhook_matches WHERE championship_id = $1 "
                              "AND match_id = $2", cid, match_id)
    if row is None:
        return {"match_id": match_id, "round": None, "team_a": None, "team_b": None}
    teams = await _teams(conn, cid, (row["team_a"], row["team_b"]))
    return {"match_id": match_id, "round": row["round"], "team_a": teams.get(row["team_a"]),
            "team_b": teams.get(row["team_b"])}


async def _championship_item(conn, cid: str, event) -> tuple[str, dict] | None:
    match event:
        case e.RegistrationClosed(team_count=count):
            return "registration.closed", {"team_count": count}
        case e.DrawMade(method=method, seed=seed, order=order, planned_rounds=rounds):
            commitment = await conn.fetchval("SELECT commitment FROM webhook_championships WHERE championship_id = $1",
                                             cid)
            return "draw.made", {"method": method, "commitment": commitment, "seed": seed, "order": list(order),
                                 "planned_rounds": rounds}
        case e.RoundPaired(round=round_no, matches=matches):
            teams = await _teams(conn, cid, [t for m in matches for t in (m.team_a, m.team_b)])
            return "round.started", {"round": round_no, "matches": [
                {"match_id": m.match_id, "stage": m.stage, "team_a": teams.get(m.team_a), "team_b": teams.get(m.team_b),
                 "note": m.note} for m in matches]}
        case e.MatchResultRecorded(match_id=match_id, winner=winner, result=r):
            found = await _match(conn, cid, match_id)
            return "match.ended", {**found, "outcome": "played", "winner": (await _teams(conn, cid, [winner])).get(winner),
                                   "score": {"team_a_games": r.team_a_games, "team_b_games": r.team_b_games,
                                             "team_a_points": r.team_a_points, "team_b_points": r.team_b_points,
                                             "games": [list(g) for g in r.final_scores]}}
        case e.MatchForfeited(match_id=match_id, winner=winner, absent=absent, reason=reason):
            found = await _match(conn, cid, match_id)
            return "match.ended", {**found, "outcome": "forfeit", "winner": (await _teams(conn, cid, [winner])).get(winner),
                                   "absent": [absent], "reason": reason, "score": None}
        case e.MatchDoubleForfeited(match_id=match_id, absent=absent, reason=reason):
            found = await _match(conn, cid, match_id)
            return "match.ended", {**found, "outcome": "double_forfeit", "winner": None, "absent": list(absent),
                                   "reason": reason, "score": None}
        case e.ChampionshipFinished(champion=champion, ranking=ranking):
            podium = [r for r in ranking if r.rank <= PODIUM]
            teams = await _teams(conn, cid, [champion, *(r.team_id for r in podium)])
            return "championship.finished", {"champion": teams.get(champion), "podium": [
                {"rank": r.rank, "team": teams.get(r.team_id), "reached": r.reached} for r in podium]}
    return None


async def _table_item(conn, event: RecordedEvent) -> tuple[str, str, dict] | None:
    table_id = event.stream_id[len(TABLE):]
    decoded = TABLE_CODEC.decode(event)
    if isinstance(decoded, TableOpened):
        if decoded.championship_id is None or decoded.match_id is None or decoded.game_no != 1:
            return None
        cid = decoded.championship_id
        return cid, "match.started", {**await _match(conn, cid, decoded.match_id), "table_id": table_id}
    row = await conn.fetchrow("SELECT championship_id, match_id FROM tables_index WHERE table_id = $1", table_id)
    if row is None or row["championship_id"] is None:
        return None
    where = {"table_id": table_id, "match_id": row["match_id"]}
    if isinstance(decoded, RefereeCalled):
        return row["championship_id"], "referee.called", {**where, "call": decoded.call, "seat": decoded.seat,
                                                          "reason": decoded.reason}
    if isinstance(decoded, RulingMade):
        return row["championship_id"], "referee.ruled", {**where, "call": decoded.call, "ruling": decoded.ruling}
    return None


async def _item(conn, event: RecordedEvent) -> Item | None:
    if event.stream_id.startswith(TABLE):
        found = await _table_item(conn, event)
        if found is None:
            return None
        cid, kind, data = found
    elif event.stream_id.startswith(CHAMPIONSHIP):
        cid = event.stream_id[len(CHAMPIONSHIP):]
        decoded = CODEC.decode(event)
        await _keep(conn, cid, decoded)
        made = await _championship_item(conn, cid, decoded)
        if made is None:
            return None
        kind, data = made
    else:
        return None
    return Item(event, cid, kind, data)


_SUBSCRIBED = """
SELECT w.endpoint_id, w.kinds, w.from_position FROM webhook_endpoints w
 WHERE w.championship_id = $1
    OR (w.championship_id IS NULL AND EXISTS (SELECT 1 FROM grants g WHERE g.scope = 'championship'
        AND g.scope_id = $1 AND g.user_id = w.owner AND g.role = 'organiser'))"""


def payload(item: Item, name: str | None) -> str:
    """The body sent: the Standard Webhooks envelope (type, timestamp, data); ``sequence`` is the event's place
    in the log, increasing along each championship's deliveries."""
    return msgspec.json.encode({
        "type": item.kind, "timestamp": item.event.recorded_at.astimezone(timezone.utc).isoformat(),
        "data": {"championship_id": item.championship_id, "championship_name": name,
                 "sequence": item.event.position, **item.data}}).decode()


async def apply_webhooks_batch(conn: asyncpg.Connection, events: list[RecordedEvent]) -> None:
    items = [item for item in [await _item(conn, ev) for ev in events] if item is not None]
    if not items or not await conn.fetchval("SELECT EXISTS (SELECT 1 FROM webhook_endpoints)"):
        return
    rows = []
    for cid in dict.fromkeys(i.championship_id for i in items):
        endpoints = await conn.fetch(_SUBSCRIBED, cid)
        if not endpoints:
            continue
        name = await conn.fetchval("SELECT name FROM webhook_championships WHERE championship_id = $1", cid)
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
