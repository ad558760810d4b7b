"""The turn clock in a table's view: whose clock runs and when it runs out, from the last stored event and the
table's terms, so that a page can count it down; nothing for a table without a clock."""

from __future__ import annotations

import datetime as dt

from tests.api.conftest import open_table


async def last_recorded(pool, tid: str) -> dt.datetime:
    return await pool.fetchval("SELECT recorded_at FROM events WHERE stream_id = $1 ORDER BY version DESC LIMIT 1",
                               f"table-{tid}")


async def test_the_view_shows_whose_clock_runs_and_its_deadline(api, players, pool):
    tid = await open_table(api, players, turn_seconds=45)
    view = (await api.get(f"/tables/{tid}/view", headers=players[2][1])).json()
    first = view["deal"]["turn"]
    assert view["clock_seat"] == first
    deadline = dt.datetime.fromisoformat(view["turn_deadline"])
    assert deadline == await last_recorded(pool, tid) + dt.timedelta(seconds=45)
    # The first speaker passes: the clock is the next seat's, restarted from that event.
    r = await api.post(f"/tables/{tid}/commands", headers=players[first][1],
                       json={"command_id": "p1", "expected_version": view["version"],
                             "action": {"type": "bid", "bid": "pass"}})
    assert r.status_code == 200, r.text
    after = (await api.get(f"/tables/{tid}/view", headers=players[0][1])).json()
    assert after["clock_seat"] == after["deal"]["turn"] == (first + 1) % 4
    assert dt.datetime.fromisoformat(after["turn_deadline"]) == await last_recorded(pool, tid) + dt.timedelta(
        seconds=45)


async def test_a_table_without_a_clock_shows_none(api, players):
    tid = await open_table(api, players)
    view = (await api.get(f"/tables/{tid}/view", headers=players[0][1])).json()
    assert view["clock_seat"] is None and view["turn_deadline"] is None
