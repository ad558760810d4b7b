"""A third game, defined here in a few lines and registered through the public registry (``domain.games.register``),
is played through the HTTP API like the two the platform ships: a table of it is proposed and accepted, each
seat sends its actions in the game's own wire form, reads its view (tagged with the game's name, its legal
actions in wire form), and the game reaches its end. Nothing in the services names it: what the API decodes
and shows comes from the game's ``GameInfo.wire``.

The game: two seats add 1 or 2 in turn to a count from 0; whoever brings it to 10 wins. Registering comes
before the services are imported (the event codec and the API's bodies take every game's types once), so the
server runs in a process of its own that registers the game first: this module, run as ``python -m``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
import msgspec

import services  # noqa: F401  (the rules' loader first, as in every door: this module is also the server's main)
from domain.errors import DomainError
from domain.seam import Decided, Format, GameInfo, GameResult, Wire

ROOT = Path(__file__).resolve().parents[2]
TARGET = 10


# ---- the game: its profile, commands, events, state and rules ----

class CountProfile(msgspec.Struct, frozen=True):
    name: str = "to-ten"


class Add(msgspec.Struct, frozen=True):
    seat: int
    by: int


class CountStarted(msgspec.Struct, frozen=True, tag="count_started"):
    first: int


class Added(msgspec.Struct, frozen=True, tag="count_added"):
    seat: int
    by: int


class CountEnded(msgspec.Struct, frozen=True, tag="count_ended"):
    winner: int


@dataclass(frozen=True)
class Count:
    phase: str = "waiting"            # waiting, playing, ended
    turn: int = 0
    total: int = 0
    winner: int | None = None


def decide(state: Count, command) -> list:
    if type(command) is not Add:
        raise DomainError("not_an_action", f"{command!r} is no action of the count")
    if state.phase != "playing" or command.seat != state.turn:
        raise DomainError("not_your_turn", f"it is seat {state.turn}'s turn")
    if command.by not in (1, 2) or state.total + command.by > TARGET:
        raise DomainError("bad_count", f"add 1 or 2, up to {TARGET}")
    added = Added(command.seat, command.by)
    return [added, CountEnded(command.seat)] if state.total + command.by == TARGET else [added]


def evolve(state: Count, e) -> Count:
    if type(e) is CountStarted:
        return Count("playing", e.first)
    if type(e) is Added:
        return Count("playing", 1 - e.seat, state.total + e.by)
    return Count("ended", state.turn, state.total, e.winner)


class Rules:
    decide, evolve, INITIAL = staticmethod(decide), staticmethod(evolve), Count()


def legal(state: Count, seat: int | None) -> list:
    if state.phase != "playing" or seat != state.turn:
        return []
    return [Add(seat, by) for by in (1, 2) if state.total + by <= TARGET]


# ---- its side of the HTTP API ----

class AddAction(msgspec.Struct, tag="add", forbid_unknown_fields=True):
    by: Literal[1, 2]


class CountView(msgspec.Struct, frozen=True, kw_only=True):
    phase: str
    turn: int
    total: int
    winner: int | None
    legal_actions: list


def to_wire(command):
    if type(command) is not Add:
        raise TypeError(f"not a player action: {command!r}")
    return AddAction(command.by)


WIRE = Wire(
    actions=(AddAction,), view=CountView,
    to_command=lambda action, seat: Add(seat, action.by), to_wire=to_wire,
    view_fields=lambda action: [("legal_actions", list[action])],
    on_wire=lambda state, view: msgspec.structs.replace(
        view, legal_actions=[to_wire(c) for c in view.legal_actions]),
    table_view="CountTableView", table_doc="A table of the count to ten, as one caller sees it.")


def _no_record(*_args):
    raise NotImplementedError("the count keeps no record")


class CountGame(Decided):
    """The count on ``Decided``'s defaults for all a game without hidden seeds, teams or referee commands
    leaves out."""

    rules = Rules
    profile_named = staticmethod(lambda name, switches=None: CountProfile(name))
    info = GameInfo(
        name="count", seat_counts=range(2, 3), profile_names=("to-ten",), default_profile="to-ten",
        bot_levels=("first",), default_bot="first", table_modes=("strict",), timeout_rules=("auto_play",),
        event_types=(CountStarted, Added, CountEnded), seeded_event=CountStarted, end_event=CountEnded,
        receipt_event=None, record_scope="game", wire=WIRE,
        record=Format("count/1", ValueError, *[_no_record] * 6))

    def open(self, seats, first_seat, profile, seed_of, table_mode="strict"):
        return [CountStarted(first_seat)]

    def to_act(self, state):
        return state.turn if state.phase == "playing" else None

    def view(self, state, seat, hands="after_deal"):
        return CountView(phase=state.phase, turn=state.turn, total=state.total, winner=state.winner,
                         legal_actions=legal(state, seat))

    def choose_from(self, level, seat_view):
        return seat_view.legal_actions[0]

    def auto_play(self, state, seat):
        return legal(state, seat)[0]

    def result(self, state):
        if state.phase != "ended":
            return None
        return GameResult(places=tuple(1 if s == state.winner else 2 for s in range(2)),
                          scores=tuple(int(s == state.winner) for s in range(2)), winners=(state.winner,),
                          reason="complete")

    def match_game(self, result):
        return None

    def places(self, end_event):
        return tuple(1 if s == end_event.winner else 2 for s in range(2))


# ---- the server with the count registered, and the test that plays it ----

def serve(url: str) -> None:
    """Register the count, then build the app and serve it on an ephemeral port, printed once the app has
    started (its database pool and services made): the test's cue."""
    import socket

    import uvicorn

    from domain import games

    games.register(CountGame())
    from services.api.app import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    app = create_app(url, rate_limit=("second", 100_000))
    app.on_startup.append(lambda: print(sock.getsockname()[1], flush=True))
    uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning")).run(sockets=[sock])


def test_a_registered_third_game_is_played_through_the_api(database_url):
    from services.db import create_scratch_schema, drop_schema, schema_url

    schema = asyncio.run(create_scratch_schema(database_url, "test"))
    server = subprocess.Popen([sys.executable, "-m", "tests.api.test_third_game", schema_url(database_url, schema)],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        port = server.stdout.readline()
        assert port.strip().isdigit(), f"the server did not start (exit {server.poll()})"
        with httpx.Client(base_url=f"http://127.0.0.1:{int(port)}", timeout=30) as http:
            play(http)
    finally:
        server.terminate()
        server.wait(30)
        asyncio.run(drop_schema(database_url, schema))


def play(http: httpx.Client) -> None:
    users = [http.post("/users", json={"name": f"counter {i}"}).json() for i in range(3)]
    auth = [{"Authorization": f"Bearer {u['token']}"} for u in users]
    watcher = auth.pop()
    games = {g["name"] for g in http.get("/games").json()}
    assert "count" in games
    r = http.post("/tables", headers=auth[0], json={"game": "count", "seats": [u["user_id"] for u in users[:2]]})
    assert r.status_code == 201, r.text
    table_id = r.json()["table_id"]
    assert http.post(f"/tables/{table_id}/accept", headers=auth[1]).status_code == 200
    spectator = http.get(f"/tables/{table_id}/view", headers=watcher).json()
    assert (spectator["game"], spectator["total"], spectator["legal_actions"]) == ("count", 0, [])
    assert spectator["terms"]["game"] == "count" and spectator["terms"]["profile"] == "to-ten"

    # A refusal of the game's own rules, through the API's problem documents.
    turn = spectator["turn"]
    wrong = http.post(f"/tables/{table_id}/commands", headers=auth[1 - turn],
                      json={"command_id": "early", "action": {"type": "add", "by": 1}})
    assert wrong.status_code == 409 and wrong.json()["rule"] == "not_your_turn", wrong.text

    totals = []
    for n in range(TARGET):
        view = http.get(f"/tables/{table_id}/view", headers=auth[spectator["turn"]]).json()
        if view["phase"] == "ended":
            break
        assert view["status"] == "live" and view["seat"] == view["turn"]
        assert view["legal_actions"][0] == {"type": "add", "by": 1}
        action = view["legal_actions"][-1]          # 2 while it fits, so the first seat to act wins at 10
        done = http.post(f"/tables/{table_id}/commands", headers=auth[view["turn"]],
                         json={"command_id": f"add-{n}", "action": action})
        assert done.status_code == 200, done.text
        assert done.json()["view"]["game"] == "count"
        spectator = done.json()["view"]
        totals.append(spectator["total"])
    end = http.get(f"/tables/{table_id}/view", headers=watcher).json()
    assert totals == [2, 4, 6, 8, 10]
    assert (end["phase"], end["status"], end["total"], end["winner"]) == ("ended", "finished", 10, turn)
    # The replay's step back (the view as it was one event earlier) and the profiles, from the same seam.
    before = http.get(f"/tables/{table_id}/state", headers=watcher, params={"at": end["version"] - 2}).json()
    assert (before["game"], before["phase"], before["total"], before["winner"]) == ("count", "playing", 8, None)
    assert http.get("/profiles", headers=watcher).json()["count"] == [{"name": "to-ten", "switches": []}]


if __name__ == "__main__":
    serve(sys.argv[1])
