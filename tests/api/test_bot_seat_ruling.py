"""A referee (or the championship's organiser) hands a seat to a bot: the seat whose turn it is when none is
named, at the table's timeout level unless one is given; stored as the table's event, and the bot then acts."""

from __future__ import annotations

import json

from tests.api.conftest import open_table


async def last_event(pool, tid: str) -> tuple[str, dict]:
    """The table's last event but the rulings' own record (``ruling_made``, stored after what a ruling does)."""
    row = await pool.fetchrow("SELECT event_type, data FROM events WHERE stream_id = $1 AND event_type <> 'ruling_made' "
                              "ORDER BY version DESC LIMIT 1", f"table-{tid}")
    return row["event_type"], json.loads(row["data"])


async def test_the_seat_to_act_is_handed_to_a_bot_by_the_referee_only(api, players, referee, pool):
    tid = await open_table(api, players, referee=referee)
    view = (await api.get(f"/tables/{tid}/view", headers=referee)).json()
    turn = view["deal"]["turn"]
    ruling = {"command_id": "bot-1", "ruling": {"type": "hand_seat_to_bot", "reason": "he left the table"}}
    # A player of the table may not, not even for his own seat.
    r = await api.post(f"/tables/{tid}/rulings", headers=players[turn][1], json=ruling)
    assert r.status_code == 403 and r.json()["rule"] == "not_referee"
    bad = {"command_id": "bot-0", "ruling": {"type": "hand_seat_to_bot", "reason": "x", "level": "strong"}}
    r = await api.post(f"/tables/{tid}/rulings", headers=referee, json=bad)       # a Balut bot at a card table
    assert r.status_code == 400 and r.json()["field"] == "ruling.level"
    assert (await last_event(pool, tid))[0] != "seat_handed_to_bot"
    r = await api.post(f"/tables/{tid}/rulings", headers=referee, json=ruling)
    assert r.status_code == 200, r.text
    assert r.json()["events"] == ["seat_handed_to_bot", "ruling_made"]
    kind, data = await last_event(pool, tid)
    assert kind == "seat_handed_to_bot" and data["seat"] == turn and data["level"] == "normal"
    assert data["reason"] == "he left the table"
    # A seat named, at a level named.
    named = {"command_id": "bot-2", "ruling": {"type": "hand_seat_to_bot", "reason": "asked to leave", "seat": (turn + 2) % 4,
                                               "level": "hard"}}
    r = await api.post(f"/tables/{tid}/rulings", headers=referee, json=named)
    assert r.status_code == 200
    kind, data = await last_event(pool, tid)
    assert (data["seat"], data["level"]) == ((turn + 2) % 4, "hard")
