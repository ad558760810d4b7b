"""Make a database as a release of baloot-arena leaves it, through its public HTTP API only, and record
what that release answered about it (``answers.json``): ``tests/test_previous_release.py`` restores the
dump with the code under test and asks the same questions.

Run against a ``baloot serve`` of the release on a schema of its own (see README.md here):

    python tests/data/previous-release/make.py --api http://127.0.0.1:8765 --out tests/data/previous-release

Only HTTP is used, so the script runs against any release that has these endpoints.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import time
from pathlib import Path

import httpx

J = {"content-type": "application/json"}


class Api:
    def __init__(self, base: str):
        self.http = httpx.Client(base_url=base, timeout=30)
        self.users: dict[str, dict] = {}
        self.n = 0

    def user(self, name: str, kind: str = "human") -> dict:
        r = self.http.post("/users", json={"name": name, "kind": kind})
        r.raise_for_status()
        self.users[name] = r.json()
        return r.json()

    def auth(self, name: str) -> dict:
        return {"Authorization": f"Bearer {self.users[name]['token']}"}

    def cid(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}-{self.n}"

    def get(self, path: str, name: str, **params):
        r = self.http.get(path, headers=self.auth(name), params=params)
        return {"status": r.status_code, "body": r.json() if r.content else None}

    def post(self, path: str, name: str, body: dict | None = None):
        r = self.http.post(path, headers=self.auth(name), json=body if body is not None else {})
        if r.status_code >= 400:
            raise RuntimeError(f"POST {path}: {r.status_code} {r.text}")
        return r.json()

    def play(self, table_id: str, seats: list[str], until, last: bool = True, people=None) -> int:
        """Each seat to act (of ``people``, default all) sends the last (or first) of its legal actions until
        ``until(view)``."""
        moves = 0
        while True:
            v = self.get(f"/tables/{table_id}/view", seats[0])["body"]
            if until(v):
                return moves
            turn = v["deal"]["turn"] if "deal" in v else v["turn"]
            if turn is None or turn < 0 or (people is not None and turn not in people):
                time.sleep(0.05)          # a bot's turn or a review: the workers act
                continue
            mine = self.get(f"/tables/{table_id}/view", seats[turn])["body"]
            actions = mine["deal"]["legal_actions"] if "deal" in mine else mine["legal_actions"]
            self.post(f"/tables/{table_id}/commands", seats[turn],
                      {"command_id": self.cid("move"), "action": actions[-1 if last else 0]})
            moves += 1


def wait(what, check, timeout: float = 300.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise TimeoutError(what)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--api", required=True)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    api = Api(args.api)
    tables: dict[str, list[str]] = {}          # table id -> the names of its seats (who asks about it)
    championships: dict[str, str] = {}         # championship id -> its organiser's name

    for i in range(4):
        api.user(f"p{i}")
    humans = [f"p{i}" for i in range(4)]
    api.user("referee")
    api.user("spectator")

    def uid(name: str) -> str:
        return api.users[name]["user_id"]

    def table(owner: str, body: dict, seats: list[str]) -> str:
        t = api.post("/tables", owner, body)["table_id"]
        tables[t] = seats
        return t

    # A card game played to its end by four people.
    t = table("p0", {"seats": [uid(n) for n in humans]}, humans)
    for n in humans[1:]:
        api.post(f"/tables/{t}/accept", n)
    api.play(t, humans, lambda v: v["phase"] == "ended")

    # A recorded table (Qayd), a spectator delay and hands always shown, left in the middle of its second deal.
    t = table("p0", {"seats": [uid(n) for n in humans], "mode": "recorded", "hands_policy": "always",
                     "delay_seconds": 1.0}, humans)
    for n in humans[1:]:
        api.post(f"/tables/{t}/accept", n)
    api.play(t, humans, lambda v: v["deal_no"] >= 2 and len(v["deal"].get("tricks") or []) >= 2)

    # Bots at three seats, a person at the fourth, left in the middle of a deal: a live deal in the dump.
    for i in range(3):
        api.user(f"bot{i}", "bot")
    seated = ["p1", "bot0", "bot1", "bot2"]
    t = table("p1", {"seats": [uid(n) for n in seated], "bot_level": "hard"}, seated)
    wait("the person's turn", lambda: (lambda v: v["deal"]["turn"] == 0 and v["deal_no"] >= 1)(
        api.get(f"/tables/{t}/view", "p1")["body"]))
    api.play(t, seated, lambda v: len(v["deal"].get("tricks") or []) >= 3, last=False, people={0})

    # The dice game: three people to its end, and one left after a few turns.
    dice = humans[:3]
    t = table("p0", {"game": "balut", "seats": [uid(n) for n in dice]}, dice)
    for n in dice[1:]:
        api.post(f"/tables/{t}/accept", n)
    api.play(t, dice, lambda v: v["phase"] != "playing")
    t = table("p2", {"game": "balut", "profile": "ibf", "seats": [uid("p2"), uid("p3")]}, ["p2", "p3"])
    api.post(f"/tables/{t}/accept", "p3")
    api.play(t, ["p2", "p3"], lambda v: v["phase"] != "playing" or sum(
        len(row) for s in v["sheets"] for row in s["rows"].values()) >= 6)

    # An invitation still open, and one declined.
    table("p0", {"seats": [uid(n) for n in humans]}, humans)
    t = table("p1", {"seats": [uid(n) for n in ["p1", "p2", "p3", "p0"]]}, ["p1", "p2", "p3", "p0"])
    api.post(f"/tables/{t}/decline", "p2")

    # A daily board played to its end.
    board = api.post("/daily/saudi/play", "p3")
    tables[board["table_id"]] = ["p3"]
    wait("the daily board", lambda: _daily_done(api, board["table_id"]))

    # Championships run by the workers: a knock-out of bot teams with a schedule and a check-in window, a
    # duplicate event, and one with team invitations still open.
    api.user("organiser")
    bots = [api.user(f"kb{i}", "bot")["user_id"] for i in range(8)]
    now = dt.datetime.now(dt.timezone.utc)
    ko = api.post("/championships", "organiser", {
        "command_id": "ko", "name": "Knock-out", "check_in_seconds": 30, "game_target": 80,
        "schedule": [{"round": 1, "starts_at": (now + dt.timedelta(seconds=2)).isoformat()}]})["championship_id"]
    championships[ko] = "organiser"
    for i in range(4):
        api.post(f"/championships/{ko}/teams", "organiser",
                 {"command_id": f"team-{i}", "players": bots[2 * i:2 * i + 2], "team_id": f"ko-team-{i}"})
    dup_bots = [api.user(f"db{i}", "bot")["user_id"] for i in range(8)]
    dup = api.post("/championships", "organiser", {
        "command_id": "dup", "name": "Duplicate", "format": "duplicate", "duplicate_boards": 2,
        "swiss_rounds": 1,
        "schedule": [{"round": 1, "starts_at": (now + dt.timedelta(seconds=2)).isoformat()}]})["championship_id"]
    championships[dup] = "organiser"
    for i in range(2):
        api.post(f"/championships/{dup}/teams", "organiser",
                 {"command_id": f"team-{i}", "players": dup_bots[4 * i:4 * i + 4], "team_id": f"dup-team-{i}"})
    open_ = api.post("/championships", "organiser", {"command_id": "open", "name": "Still registering"}
                     )["championship_id"]
    championships[open_] = "organiser"
    api.post(f"/championships/{open_}/referees", "organiser", {"user_id": uid("referee")})
    api.post(f"/championships/{open_}/teams", "p0", {"command_id": "mine", "players": [uid("p0"), uid("p1")],
                                                     "team_id": "proposed"})
    api.post(f"/championships/{open_}/teams", "p2", {"command_id": "mine", "players": [uid("p2"), uid("p3")],
                                                     "team_id": "accepted"})
    api.post(f"/championships/{open_}/teams/accepted/accept", "p3", {"command_id": "yes"})
    for cid in (ko, dup):
        wait(f"championship {cid} finished", lambda cid=cid: api.get(
            f"/championships/{cid}", "organiser")["body"]["status"] == "finished")
        wait(f"championship {cid}'s standings", lambda cid=cid: api.get(          # the projection's lag
            f"/championships/{cid}/standings", "organiser")["body"])
    for cid in (ko, dup):
        for m in api.get(f"/championships/{cid}/matches", "organiser")["body"]:
            for tab in m.get("tables") or []:
                tid = tab["table_id"] if isinstance(tab, dict) else tab
                tables.setdefault(tid, [])

    wait("a checkpoint of the log", lambda: api.get("/log/checkpoints", "p0")["body"])
    time.sleep(1.5)                     # past the recorded table's spectator delay

    args.out.mkdir(parents=True, exist_ok=True)
    answers = {"users": api.users, "tables": {}, "championships": {}, "daily": {}}
    for tid, seats in tables.items():
        who = seats[0] if seats else "spectator"
        a = answers["tables"][tid] = {"asker": who, "seats": seats,
                                      "view": api.get(f"/tables/{tid}/view", who),
                                      "spectator": api.get(f"/tables/{tid}/view", "spectator"),
                                      "deals": api.get(f"/tables/{tid}/deals", who),
                                      "receipts": api.get(f"/tables/{tid}/receipts", who)}
        deals = a["deals"]["body"] if a["deals"]["status"] == 200 else []
        finished = [d["deal_no"] for d in deals if d["finished"]]
        some = sorted({finished[0], finished[-1]}) if finished else []       # the first and the last
        a["audits"] = {str(n): api.get(f"/tables/{tid}/deals/{n}/audit", who) for n in some}
        a["records"] = {str(n): api.get(f"/tables/{tid}/deals/{n}/record", who) for n in some}
        a["game_audit"] = api.get(f"/tables/{tid}/audit", who)
        a["game_record"] = api.get(f"/tables/{tid}/record", who)
    for cid, who in championships.items():
        answers["championships"][cid] = {
            what: api.get(f"/championships/{cid}{what}", who)
            for what in ("", "/standings", "/bracket", "/matches")}
    day = dt.datetime.now(dt.timezone.utc).date().isoformat()
    answers["daily"] = {"day": day, "set": api.get(f"/daily/{day}/saudi", "p3"),
                        "entry": api.get(f"/daily/{day}/saudi/entry", "p3")}
    answers["checkpoints"] = api.get("/log/checkpoints", "p0")
    answers["key"] = api.get("/log/key", "p0")
    (args.out / "answers.json").write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    print(f"{len(tables)} tables, {len(championships)} championships")


def _daily_done(api: Api, table_id: str) -> bool:
    """Play the daily board's person seat (seat 0) with its first legal action; True once it ended."""
    v = api.get(f"/tables/{table_id}/view", "p3")["body"]
    if v["phase"] == "ended":
        return True
    if v["deal"]["turn"] == 0:
        api.post(f"/tables/{table_id}/commands", "p3",
                 {"command_id": api.cid("daily"), "action": v["deal"]["legal_actions"][0]})
    return False


if __name__ == "__main__":
    main()
