"""A championship's exports, for its organisers and referees: its teams, matches and standings as CSV, and
every finished deal's and game's record of its tables in one zip.

The CSV files say what the JSON routes say (``GET /championships/{id}``, ``/matches``, ``/standings``), built
from the same folds; the zip's records are made by the hand-record and game-record routes' own helpers
(``services/api/routes_tables.py``: the caller's part at each table, its hands policy, a deal or a game still
being played refused, the same exporters), so an export shows nothing ``GET /tables/{t}/deals/{n}/record`` and
``GET /tables/{t}/record`` would not. The zip is streamed: it is written table by table as it is sent, and
only one table's events, and a line per file for the zip's directory and the manifest, are held at once.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import re
import zipfile
from collections.abc import AsyncIterator, Iterable

import msgspec
from litestar import Response, Router, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath
from litestar.response import Stream

from domain.table import game_of
from domain.tournament.state import ChampionshipState, parse_match_id
from projections.standings import StandingRow
from services.accounts import user_names
from services.anchor import receipts_of
from services.api.deps import Championships, Gate, Pool, Tables, Who
from services.api.problems import Problem
from services.api.schemas_championships import summary
from services.championships.standings import named_standings
from services.records import deal_record, visible_events, whole_game
from services.championships import duplicate, team_names
from services.errors import ServiceError
from services.access import policy
from services.tables import deal_spans, stream_of
from services.api.schemas_exports import ExportedFile, LeftOutFile, ExportManifest

CSV_MEDIA = "text/csv"                  # Litestar adds "; charset=utf-8" (the response's encoding)
ZIP_MEDIA = "application/zip"
MANIFEST_FORMAT = "baloot-arena-records/1"
# Cells a spreadsheet would read as a formula (OWASP's list: =, +, -, @, and tab and carriage return): a text
# cell starting so is written with a leading apostrophe. Numbers the server counts are written as numbers.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# What an organiser may say of a team beside its players (GET /championships/{id}'s teams, where it has them;
# a team registered with none has empty cells).
TEAM_INFO = ("name", "club", "region", "rating")
SUBSTITUTE_COLUMNS = 4          # the substitutes a team registers with at most (more columns if one has more)

_CSV_RESPONSE = {200: ResponseSpec(data_container=str, media_type="text/csv", generate_examples=False,
                                   description="RFC 4180 CSV, UTF-8, with a header row")}
_ZIP_RESPONSE = {200: ResponseSpec(data_container=bytes, media_type=ZIP_MEDIA, generate_examples=False,
                                   description="a zip: one JSON record per finished deal (baloot-hand/1) or "
                                               "game (balut-game/1), and manifest.json with their SHA-256")}


# ---- who may export ----

async def _official(access: Gate, viewer: Who, championship_id: str):
    """The championship (404 when there is none), which the caller must organise or referee (403)."""
    return (await access.championship(viewer, championship_id, policy.exports))[0]


# ---- CSV ----

def cell(value) -> str | int | float:
    """A value as a CSV cell: None empty, booleans ``true``/``false``, numbers as they are, and text that a
    spreadsheet would take for a formula prefixed with ``'`` (team ids and names are the users' own)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _filename(championship_id: str, what: str) -> str:
    return f"{re.sub(r'[^A-Za-z0-9._-]', '_', championship_id)}-{what}"


def _attachment(championship_id: str, what: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{_filename(championship_id, what)}"',
            "Cache-Control": "no-store"}


def csv_response(championship_id: str, what: str, header: list[str], rows: Iterable[list]) -> Response:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")       # RFC 4180: CRLF, quotes doubled, minimal quoting
    writer.writerow(header)
    writer.writerows([cell(v) for v in row] for row in rows)
    return Response(out.getvalue().encode("utf-8"), media_type=CSV_MEDIA,
                    headers=_attachment(championship_id, what))


@get("/{championship_id:str}/export/teams.csv", operation_id="exportTeams", refuses=(403,), media_type=CSV_MEDIA,
     summary="Organisers and referees: the teams as CSV (name, players and substitutes with their public "
             "names, status, seed)", responses=_CSV_RESPONSE)
async def export_teams(championship_id: FromPath[str], access: Gate, viewer: Who, pool: Pool,
                       championships: Championships
                       ) -> Response:
    champ = await _official(access, viewer, championship_id)
    out = summary(championship_id, champ)          # the teams as GET /championships/{id} gives them
    seeds = {team: k for k, team in enumerate(out.draw_order, 1)}
    places = max([duplicate.team_size(out.settings.format), *(len(t.players) for t in out.teams)])
    subs = max([SUBSTITUTE_COLUMNS, *(len(t.substitutes) for t in out.teams)])
    names = await user_names(pool, sorted({u for t in out.teams for u in (*t.players, *t.substitutes)}))
    header = ["team_id", *TEAM_INFO, "status", "late", "seed",
              *(f"player_{k}_{what}" for k in range(1, places + 1) for what in ("id", "name")),
              *(f"substitute_{k}_{what}" for k in range(1, subs + 1) for what in ("id", "name"))]

    def people(ids: list[str], width: int) -> list:
        padded = [*ids, *[None] * (width - len(ids))]
        return [v for uid in padded for v in (uid, names.get(uid) if uid is not None else None)]

    rows = ([t.team_id, *(getattr(t, f) for f in TEAM_INFO), "withdrawn" if t.withdrawn else "registered",
             t.late, seeds.get(t.team_id),
             *people(t.players, places), *people(t.substitutes, subs)] for t in out.teams)
    return csv_response(championship_id, "teams.csv", header, rows)


MATCH_COLUMNS = ["round", "match_id", "stage", "note", "team_a", "team_a_name", "team_b", "team_b_name", "status",
                 "outcome", "winner", "winner_name", "team_a_games", "team_b_games", "team_a_points", "team_b_points", "game_scores", "game_ends",
                 "tables"]


def match_rows(state: ChampionshipState, tables_of: list, names: dict[str, str]) -> Iterable[list]:
    """Every match, round by round, as ``GET /championships/{id}/matches`` tells it (its status, outcome and
    winner, games won), with the points and each game's score the championship recorded, and its tables; each
    team named beside its id (``names``: what people call it), as a reader of the file looks for it."""
    tables: dict[str, list[str]] = {}
    for r in tables_of:
        tables.setdefault(r["match_id"], []).append(r["table_id"])
    for round_ in state.rounds:
        for m in round_.matches:
            its_tables = tables.get(m.match_id, [])
            o = round_.outcomes[m.index]
            status = "decided" if o is not None else "playing" if its_tables else "waiting"
            res = o.result if o is not None else None
            winner = o.winner if o else None
            yield [m.round, m.match_id, m.stage, m.note, m.team_a, names.get(m.team_a), m.team_b, names.get(m.team_b),
                   status, o.kind if o else None, winner, names.get(winner),
                   *((res.team_a_games, res.team_b_games, res.team_a_points, res.team_b_points,
                      " ".join(f"{a}:{b}" for a, b in res.final_scores), " ".join(res.game_ends))
                     if res is not None else (None,) * 6),
                   " ".join(its_tables)]


@get("/{championship_id:str}/export/matches.csv", operation_id="exportMatches", refuses=(403,), media_type=CSV_MEDIA,
     summary="Organisers and referees: every match as CSV (round, stage, teams by id and name, games and points, winner, how "
             "it was decided, its tables)", responses=_CSV_RESPONSE)
async def export_matches(championship_id: FromPath[str], access: Gate, viewer: Who, pool: Pool,
                       championships: Championships
                         ) -> Response:
    champ = await _official(access, viewer, championship_id)
    names = await team_names(pool, champ.state, list(champ.state.team_order))
    rows = match_rows(champ.state, await championships.matches.tables_of(championship_id), names)
    return csv_response(championship_id, "matches.csv", MATCH_COLUMNS, rows)


STANDING_COLUMNS = [f.encode_name for f in msgspec.structs.fields(StandingRow)]


@get("/{championship_id:str}/export/standings.csv", operation_id="exportStandings", refuses=(403,),
     media_type=CSV_MEDIA,
     summary="Organisers and referees: the standings as CSV, every column of GET /championships/{id}/standings",
     responses=_CSV_RESPONSE)
async def export_standings(championship_id: FromPath[str], access: Gate, viewer: Who, pool: Pool,
                           championships: Championships) -> Response:
    await _official(access, viewer, championship_id)
    standings = msgspec.to_builtins(await named_standings(championships, pool, championship_id))
    return csv_response(championship_id, "standings.csv", STANDING_COLUMNS,
                        ([row[c] for c in STANDING_COLUMNS] for row in standings))


# ---- the records ----

class _Sink:
    """Where the zip is written: an unseekable file (zipfile then writes data descriptors) whose bytes are
    taken away after each file."""

    def __init__(self):
        self._chunks: list[bytes] = []

    def write(self, data) -> int:
        self._chunks.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        out = b"".join(self._chunks)
        self._chunks.clear()
        return out


async def _table_records(row, pool: Pool, tables: Tables, access: Gate, viewer: Who
                         ) -> tuple[list[tuple[int | None, str, bytes]], list[tuple[int | None, str, str]]]:
    """One table's records as the record routes give them: (deal_no or None for a game record, format, JSON),
    and what the caller may not have yet, as (deal_no, rule, detail)."""
    table_id = row["table_id"]
    try:
        events = await visible_events(tables, access, table_id, viewer, hands=True)
        table = await tables.load(table_id)
    except (Problem, ServiceError) as refused:       # a table the caller may not read the hands of
        return [], [(None, refused.rule, refused.detail)]
    game = game_of(table)
    if game.info.record_scope == "game":              # GET /tables/{t}/record
        try:
            game, played = whole_game(table, events)
        except ServiceError as refused:
            return [], [(None, refused.rule, refused.detail)]
        record = msgspec.to_builtins(game.info.record.export(played))
        return [(None, game.info.record.name, msgspec.json.encode(record))], []
    # GET /tables/{t}/deals/{n}/record for each deal, on the table's events read once (that route reads them
    # for each deal): its refusal of a deal still being played, its exporter, its receipt attached alike.
    records, left = [], []
    receipts = await receipts_of(pool, stream_of(table_id))
    for deal_no in range(1, len(deal_spans(events)) + 1):
        try:
            record = deal_record(events, deal_no, receipts)
        except ServiceError as refused:
            left.append((deal_no, refused.rule, refused.detail))
            continue
        records.append((deal_no, game.info.record.name, msgspec.json.encode(record)))
    return records, left


def record_path(round_no: int | None, match_id: str, table_id: str, deal_no: int | None) -> str:
    head = f"round-{round_no:02d}" if round_no is not None else "round-00"
    return f"{head}/{match_id}/{table_id}/" + (f"deal-{deal_no:03d}.json" if deal_no is not None else "game.json")


async def _zip(championship_id: str, name: str, rows: list, rounds: dict[str, int], pool: Pool, tables: Tables,
               access: Gate, viewer: Who, state: ChampionshipState) -> AsyncIterator[bytes]:
    now = dt.datetime.now(dt.timezone.utc)
    stamp = now.timetuple()[:6]
    sink = _Sink()
    files: list[ExportedFile] = []
    left_out: list[LeftOutFile] = []
    names = await team_names(pool, state, list(state.team_order))
    sides = {m.match_id: (m.team_a, m.team_b) for round_ in state.rounds for m in round_.matches}

    def add(zf: zipfile.ZipFile, path: str, data: bytes) -> None:
        info = zipfile.ZipInfo(path, date_time=stamp)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        zf.writestr(info, data)

    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for row in rows:
            match_id, table_id = row["match_id"], row["table_id"]
            round_no = rounds.get(match_id)
            records, left = await _table_records(row, pool, tables, access, viewer)
            for deal_no, fmt, data in records:
                path = record_path(round_no, match_id, table_id, deal_no)
                add(zf, path, data)
                files.append(ExportedFile(path, hashlib.sha256(data).hexdigest(), len(data), fmt, table_id, match_id,
                                    round_no, row["game_no"], deal_no,
                                    [names.get(t) if t else None for t in sides.get(match_id, (None, None))]))
            left_out.extend(LeftOutFile(table_id, match_id, deal_no, rule, detail) for deal_no, rule, detail in left)
            if chunk := sink.take():
                yield chunk
        add(zf, "manifest.json", msgspec.json.encode(ExportManifest(
            MANIFEST_FORMAT, championship_id, name, now.isoformat(), names, files, left_out)))
    yield sink.take()                                 # the last file and the zip's central directory


def _match_order(state: ChampionshipState, rows: list) -> tuple[list, dict[str, int]]:
    """The tables by round, match (in pairing order) and game; each match's round."""
    place: dict[str, tuple[int, int]] = {}
    for round_ in state.rounds:
        for m in round_.matches:
            place[m.match_id] = (m.round, m.index)

    def key(row):
        where = place.get(row["match_id"]) or parse_match_id(row["match_id"] or "") or (0, 0)
        return (*where, row["game_no"] or 0, row["table_id"])

    return sorted(rows, key=key), {m: r for m, (r, _) in place.items()}


@get("/{championship_id:str}/export/records.zip", operation_id="exportRecords", refuses=(403,), media_type=ZIP_MEDIA,
     summary="Organisers and referees: every finished deal's hand record and every finished game's record of "
             "the championship's tables, in a zip with a manifest of their SHA-256 (streamed)",
     responses=_ZIP_RESPONSE)
async def export_records(championship_id: FromPath[str], pool: Pool, championships: Championships,
                         tables: Tables, access: Gate, viewer: Who) -> Stream:
    champ = await _official(access, viewer, championship_id)
    rows, rounds = _match_order(champ.state, list(await championships.matches.tables_of(championship_id)))
    return Stream(_zip(championship_id, champ.state.settings.name, rows, rounds, pool, tables, access, viewer,
                       champ.state),
                  media_type=ZIP_MEDIA, headers=_attachment(championship_id, "records.zip"))


export_router = Router(tags=["championships"], path="/championships", route_handlers=[
    export_teams, export_matches, export_standings, export_records,
])
