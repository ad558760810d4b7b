"""`baloot championship create|import|close|draw|start-round|forfeit|status|export`: an organiser's commands
against a running server, for those who script. Each is one request to the HTTP API (the same consent and
rules as the console), signed in with a bearer token (``--token`` or ``BALOOT_TOKEN``) or a login whose
password is read from ``BALOOT_PASSWORD`` or asked for. ``--json`` prints the server's answer as it is; a
refusal prints its rule and words (and, for an import, every bad line) and exits 1; a server that cannot be
reached exits 2.
"""

from __future__ import annotations

import argparse
import getpass
import http.cookiejar
import json
import os
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

DEFAULT_SERVER = "http://127.0.0.1:8000"


class Refused(Exception):
    def __init__(self, status: int, problem: dict):
        super().__init__(problem.get("detail") or f"HTTP {status}")
        self.status, self.problem = status, problem


class Client:
    """The API as one organiser: a bearer token (given, or made by signing in with a login and password)."""

    def __init__(self, server: str, token: str | None = None):
        self.server = server.rstrip("/")
        self.token = token
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def request(self, method: str, path: str, body=None, content_type: str = "application/json",
                headers: dict | None = None) -> tuple[int, bytes, dict]:
        all_headers = {"Accept": "application/json", **(headers or {})}
        if body is not None:
            all_headers["Content-Type"] = content_type
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.server + path, data=body, method=method, headers=all_headers)
        try:
            with self.opener.open(req, timeout=600) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as err:
            data = err.read()
            try:
                problem = json.loads(data)
            except ValueError:
                problem = {"detail": data.decode(errors="replace")[:300] or err.reason}
            raise Refused(err.code, problem) from None

    def json(self, method: str, path: str, body=None):
        status, data, _ = self.request(method, path, None if body is None else json.dumps(body).encode())
        return json.loads(data) if data else None

    def sign_in(self, login: str, password: str) -> None:
        """A session (the CSRF cookie first, as a page does), then a bearer token of its own for the calls."""
        self.request("GET", "/health")
        headers = {"X-CSRF-Token": self._csrf() or ""}
        self.request("POST", "/session", json.dumps({"login": login, "password": password}).encode(),
                     headers=headers)
        _, data, _ = self.request("POST", "/tokens", b"{}", headers=headers)
        self.token = json.loads(data)["token"]

    def _csrf(self) -> str | None:
        for handler in self.opener.handlers:
            jar = getattr(handler, "cookiejar", None)
            if jar is not None:
                return next((c.value for c in jar if c.name == "baloot_csrf"), None)
        return None


def register(commands) -> None:
    """The organiser's subcommands of ``baloot championship``."""
    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--server", default=os.environ.get("BALOOT_SERVER", DEFAULT_SERVER),
                       help=f"the server's address (BALOOT_SERVER; default {DEFAULT_SERVER})")
        p.add_argument("--token", default=os.environ.get("BALOOT_TOKEN"),
                       help="a bearer token of the organiser (BALOOT_TOKEN)")
        p.add_argument("--login", help="else sign in with this login; the password from BALOOT_PASSWORD or asked")
        p.add_argument("--json", action="store_true", help="print the server's answer as JSON")

    p = commands.add_parser("create", help="create a championship (you become its organiser)")
    common(p)
    p.add_argument("--name", required=True)
    p.add_argument("--format", default="single_elimination",
                   choices=["single_elimination", "groups_knockout", "double_elimination", "swiss", "round_robin",
                            "duplicate"])
    p.add_argument("--game", default="baloot", choices=["baloot", "balut"])
    p.add_argument("--profile", help="the rules profile (default: the game's)")
    p.add_argument("--match-games", type=int, default=1, help="best of N games (odd)")
    p.add_argument("--seeding", default="draw", choices=["draw", "rating", "manual"],
                   help="a random draw from a committed seed, by the teams' ratings, or in the organiser's order")
    p.add_argument("--turn-seconds", type=float, help="the turn clock (none: no clock)")
    p.add_argument("--check-in-seconds", type=float, help="a check-in window before each match (none: no check-in)")
    p.add_argument("--bot-pace", type=float, default=0.0, help="least seconds between bot actions (0: full speed)")
    p.add_argument("--settings", type=json.loads, default={},
                   help="more fields of POST /championships as JSON, e.g. '{\"swiss_rounds\": 5}'")
    p.set_defaults(func=run, action=create)

    p = commands.add_parser("import", help="register the teams of a CSV file, all or none (every bad line named)")
    common(p)
    p.add_argument("championship")
    p.add_argument("file", type=Path, help="CSV, UTF-8: team,player_1,player_2[,club,region,rating,...] (logins)")
    p.add_argument("--dry-run", action="store_true", help="check the file only")
    p.set_defaults(func=run, action=import_file)

    p = commands.add_parser("close", help="close registration and publish the draw's commitment")
    common(p)
    p.add_argument("championship")
    p.set_defaults(func=run, action=simple, path="registration/close")

    p = commands.add_parser("draw", help="make the draw (reveal the committed seed, seed by rating, or in your order)")
    common(p)
    p.add_argument("championship")
    p.add_argument("--order", type=lambda text: [t.strip() for t in text.split(",") if t.strip()], default=[],
                   help="a manual draw: the team ids, best seed first, comma-separated (default: their own order)")
    p.set_defaults(func=run, action=lambda a: simple(a, "draw", {"order": a.order} if a.order else {}))

    p = commands.add_parser("start-round", help="pair a round and open its tables")
    common(p)
    p.add_argument("championship")
    p.add_argument("round", type=int)
    p.set_defaults(func=run, action=lambda a: simple(a, f"rounds/{a.round}/start"))

    p = commands.add_parser("forfeit", help="a team did not play its match: the other wins it")
    common(p)
    p.add_argument("championship")
    p.add_argument("match")
    p.add_argument("--absent", required=True, help="the team that did not play")
    p.add_argument("--reason", default="no-show")
    p.set_defaults(func=run, action=forfeit)

    p = commands.add_parser("status", help="where a championship is: its teams, rounds and current matches")
    common(p)
    p.add_argument("championship")
    p.set_defaults(func=run, action=status)

    p = commands.add_parser("export", help="download the championship's teams, matches, standings (CSV) or "
                                           "hand records (a zip)")
    common(p)
    p.add_argument("championship")
    p.add_argument("what", choices=["teams", "matches", "standings", "records"])
    p.add_argument("--out", type=Path, help="the file to write (default: the server's file name here)")
    p.set_defaults(func=run, action=export)


def _client(args) -> Client:
    client = Client(args.server, args.token)
    if not args.token and args.login:
        password = os.environ.get("BALOOT_PASSWORD") or getpass.getpass(f"password for {args.login}: ")
        client.sign_in(args.login, password)
    elif not args.token:
        raise SystemExit("baloot: give --token (or BALOOT_TOKEN), or --login, to act as the organiser")
    return client


def run(args: argparse.Namespace) -> int:
    """Run one organiser command: its answer printed, a refusal said (exit 1), an unreachable server (exit 2)."""
    console = Console(stderr=True, highlight=False)
    try:
        answer = args.action(args)
    except Refused as refusal:
        if args.json:
            print(json.dumps(refusal.problem, indent=2, ensure_ascii=False))
        else:
            p = refusal.problem
            console.print(f"[red]refused[/red] ({refusal.status} {p.get('rule', '')}): {p.get('detail', '')}")
            for e in p.get("errors", []):
                where = f"line {e['line']}" + (f", {e['column']}" if e.get("column") else "")
                console.print(f"  {where}: {e['reason']}")
            if p.get("error_count", 0) > len(p.get("errors", [])):
                console.print(f"  … and {p['error_count'] - len(p['errors'])} more")
        return 1
    except urllib.error.URLError as err:
        console.print(f"[red]cannot reach the server[/red] {args.server}: {err.reason}")
        return 2
    if args.json and answer is not None:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
    return 0


def create(args) -> dict:
    body = {"command_id": f"cli-{uuid.uuid4().hex}", "name": args.name, "format": args.format, "game": args.game,
            "match_games": args.match_games, "seeding": args.seeding, "bot_pace_seconds": args.bot_pace,
            **({"profile": args.profile} if args.profile else {}),
            **({"turn_seconds": args.turn_seconds} if args.turn_seconds else {}),
            **({"check_in_seconds": args.check_in_seconds} if args.check_in_seconds else {}), **args.settings}
    answer = _client(args).json("POST", "/championships", body)
    if not args.json:
        print(f"created {answer['summary']['name']!r}: {answer['championship_id']}")
        print(f"  {args.server.rstrip('/')}/watch/championship.html?id={answer['championship_id']}")
    return answer


def import_file(args) -> dict:
    text = args.file.read_bytes()
    client = _client(args)
    command_id = "cli-import-" + uuid.uuid5(uuid.NAMESPACE_URL, text.decode("utf-8", "replace")).hex
    path = (f"/championships/{urllib.parse.quote(args.championship)}/teams/import?command_id={command_id}"
            + ("&dry_run=true" if args.dry_run else ""))
    lines = text.count(b"\n")
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as progress:
        sending = progress.add_task(f"sending {args.file.name} ({lines:,} lines)", total=len(text))

        def chunks(size: int = 64 * 1024):
            for start in range(0, len(text), size):
                yield text[start:start + size]
                progress.advance(sending, min(size, len(text) - start))
            progress.update(sending, description=f"the server {'checks' if args.dry_run else 'checks and stores'} "
                                                 f"{lines:,} lines, all or none")

        _, data, _ = client.request("POST", path, chunks(), content_type="text/csv; charset=utf-8",
                                    headers={"Content-Length": str(len(text))})
    answer = json.loads(data)
    if not args.json:
        if answer.get("replayed"):
            print(f"{args.file.name} was imported already (the same file): nothing more to do")
        else:
            print(f"{answer['teams']:,} teams {'would be imported' if args.dry_run else 'imported'} "
                  f"into {args.championship}")
            invited = answer.get("invited", [])
            if invited and args.dry_run:
                print(f"{len(invited)} accounts would be made: {', '.join(i['login'] for i in invited)}")
            elif invited:
                print(f"{len(invited)} accounts made: give each player his code, to claim his account at /play/ "
                      "(shown this once):")
                for i in invited:
                    print(f"  {i['login']:<32} {i['code']}")
    return answer


def simple(args, path: str | None = None, body: dict | None = None) -> dict:
    path = path or args.path
    answer = _client(args).json("POST", f"/championships/{urllib.parse.quote(args.championship)}/{path}",
                                {"command_id": f"cli-{uuid.uuid4().hex}", **(body or {})})
    if not args.json:
        s = answer["summary"]
        print(f"{s['name']}: {s['status']}" + (f" · draw commitment {s['draw_commitment']}"
                                              if s.get("draw_commitment") and not s.get("draw_seed") else "")
              + (f" · seed {s['draw_seed']}" if s.get("draw_seed") else "")
              + (f" · {len(answer.get('tables', []))} tables opened" if "tables" in answer else ""))
    return answer


def forfeit(args) -> dict:
    answer = _client(args).json(
        "POST", f"/championships/{urllib.parse.quote(args.championship)}/matches/{urllib.parse.quote(args.match)}"
                "/forfeit", {"command_id": f"cli-{uuid.uuid4().hex}", "absent": args.absent, "reason": args.reason})
    if not args.json:
        print(f"match {args.match}: {args.absent} forfeits ({args.reason})")
    return answer


def status(args) -> dict:
    client = _client(args)
    cid = urllib.parse.quote(args.championship)
    summary = client.json("GET", f"/championships/{cid}")
    matches = client.json("GET", f"/championships/{cid}/matches") if summary["rounds"] else []
    current = [m for m in matches if m.get("round") == summary["rounds"]]
    answer = {"championship": summary, "current_round": summary["rounds"], "matches": current}
    if not args.json:
        teams = summary["teams"]
        print(f"{summary['name']} ({summary['championship_id']}): {summary['status']}, {len(teams):,} teams"
              f" ({sum(t['withdrawn'] for t in teams)} withdrawn), round {summary['rounds'] or '—'}")
        if summary.get("champion"):
            print(f"  champion: {summary['champion']}")
        states: dict[str, int] = {}
        for m in current:
            states[m.get("status", "?")] = states.get(m.get("status", "?"), 0) + 1
        if states:
            print("  matches: " + ", ".join(f"{n} {s}" for s, n in sorted(states.items())))
    return answer


def export(args) -> None:
    name = {"teams": "teams.csv", "matches": "matches.csv", "standings": "standings.csv", "records": "records.zip"}
    client = _client(args)
    _, data, _ = client.request("GET", f"/championships/{urllib.parse.quote(args.championship)}/export/"
                                       f"{name[args.what]}")
    out = args.out or Path(f"{args.championship}-{name[args.what]}")
    out.write_bytes(data)
    if args.json:
        print(json.dumps({"file": str(out), "bytes": len(data)}))
    else:
        print(f"wrote {out} ({len(data):,} bytes)")
    return None
