"""Teams imported from a CSV file, checked as a whole: every bad line named (its line, its column, why), so that
an organiser fixes them all at once, and nothing is registered while any line is bad.

The file (UTF-8, RFC 4180, a header row; the columns in any order, names in any case):

    team,player_1,player_2,club,region,rating
    Riyadh Falcons,saad,noura,Al-Hilal,Riyadh,1612
    Jeddah Pearls,fahad,bot,,Makkah,

``team`` (the team's name, 1-80 characters, unique in the file whatever its case) and ``player_1`` ..
``player_N`` (N is the championship's team size: two, four in a duplicate event) are required; ``team_id``,
``substitute_1``, ``substitute_2``, ``club``, ``region`` and ``rating`` (a number) may be given. A player is
named by his account's login, or ``bot``; ``+login`` names a person who has no account yet (one is made
for him with that login, and he claims it with the code the import gives). Which logins exist, and whether a team or a player is registered
already, is the championship's and the accounts' to say: this module checks what the file alone can tell.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re

import msgspec

MAX_NAME = 80
MAX_TEXT = 80
MAX_ROWS = 20_000
BOT = "bot"
INVITE = "+"                 # "+login": the player has no account yet; one is made, and he claims it
ID_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
OPTIONAL = ("team_id", "substitute_1", "substitute_2", "club", "region", "rating")


class LineError(msgspec.Struct, frozen=True):
    line: int                    # the file's line (1: the header)
    column: str | None           # the header's name of the cell, or None for the line as a whole
    reason: str


class TeamRow(msgspec.Struct, frozen=True):
    line: int
    team_id: str
    name: str
    players: tuple[str, ...]     # logins (normalised by the caller) or "bot"
    substitutes: tuple[str, ...]
    club: str = ""
    region: str = ""
    rating: float | None = None


def team_id_for(championship_id: str, name: str) -> str:
    """A stable id for a team named ``name`` in this championship (the same name in any case: the same id)."""
    return "T" + hashlib.sha256(f"{championship_id}\x00{name.casefold()}".encode()).hexdigest()[:11]


def parse_teams(text: str, championship_id: str, team_size: int) -> tuple[list[TeamRow], list[LineError]]:
    """The rows of a teams file, and every problem the file alone shows (none: it may be imported). A row is
    kept even with problems of its own, so that the accounts it names are checked too."""
    errors: list[LineError] = []
    if text.startswith("\ufeff"):
        text = text[1:]                               # a spreadsheet's byte-order mark
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        return [], [LineError(1, None, f"not CSV: {exc}")]
    if not header or not any(h.strip() for h in header):
        return [], [LineError(1, None, "the file is empty: it needs a header row, e.g. "
                                       "team," + ",".join(f"player_{i + 1}" for i in range(team_size)))]
    names = [h.strip().casefold() for h in header]
    players = [f"player_{i + 1}" for i in range(team_size)]
    known = {"team", *players, *OPTIONAL}
    for k, name in enumerate(names):
        if name not in known:
            errors.append(LineError(1, header[k].strip() or f"column {k + 1}",
                                    f"unknown column {header[k].strip()!r}: the columns are "
                                    f"{', '.join(['team', *players, *OPTIONAL])}"))
        elif names.index(name) != k:
            errors.append(LineError(1, name, f"the column {name} appears twice"))
    for required in ("team", *players):
        if required not in names:
            errors.append(LineError(1, required, f"the column {required} is missing"))
    if errors:
        return [], errors
    where = {name: k for k, name in enumerate(names)}
    rows: list[TeamRow] = []
    seen_names: dict[str, int] = {}
    seen_ids: dict[str, int] = {}
    seen_people: dict[str, tuple[int, str]] = {}
    line = 1
    try:
        for cells in reader:
            line = reader.line_num
            if not any(c.strip() for c in cells):
                continue                               # blank lines are passed over
            if len(rows) + 1 > MAX_ROWS:
                errors.append(LineError(line, None, f"a file holds at most {MAX_ROWS:,} teams"))
                break
            if len(cells) != len(names):
                errors.append(LineError(line, None, f"{len(cells)} cells where the header has {len(names)}"))
                continue
            row = _row(line, cells, where, championship_id, players, errors)
            if row is None:
                continue
            if row.name.casefold() in seen_names:
                errors.append(LineError(line, "team", f"the team name {row.name!r} is on line "
                                                      f"{seen_names[row.name.casefold()]} already"))
            elif row.team_id in seen_ids:
                errors.append(LineError(line, "team_id", f"the team id {row.team_id} is on line "
                                                         f"{seen_ids[row.team_id]} already"))
            seen_names.setdefault(row.name.casefold(), line)
            seen_ids.setdefault(row.team_id, line)
            for column, person in _people(row, players):
                if person == BOT:
                    continue
                key = person.removeprefix(INVITE).casefold()
                if key in seen_people:
                    first, first_column = seen_people[key]
                    errors.append(LineError(line, column, f"{person} is in the file already (line {first}, "
                                                          f"{first_column}): a player plays in one team"))
                else:
                    seen_people[key] = (line, column)
            rows.append(row)
    except csv.Error as exc:
        errors.append(LineError(reader.line_num or line, None, f"not CSV from here on: {exc}"))
    if not rows and not errors:
        errors.append(LineError(1, None, "the file has a header and no team"))
    return rows, errors


def _people(row: TeamRow, players: list[str]) -> list[tuple[str, str]]:
    return [*zip(players, row.players), *((f"substitute_{i + 1}", s) for i, s in enumerate(row.substitutes))]


def _row(line: int, cells: list[str], where: dict[str, int], championship_id: str, players: list[str],
         errors: list[LineError]) -> TeamRow | None:
    def cell(name: str) -> str:
        return cells[where[name]].strip() if name in where else ""
    name = cell("team")
    if not name:
        errors.append(LineError(line, "team", "the team has no name"))
    elif len(name) > MAX_NAME:
        errors.append(LineError(line, "team", f"a team name is at most {MAX_NAME} characters, not {len(name)}"))
    team_id = cell("team_id") or (team_id_for(championship_id, name) if name else "")
    if name and not ID_PATTERN.match(team_id):
        errors.append(LineError(line, "team_id", f"a team id is 1 to 64 letters, digits, '.', '_', ':' or '-', "
                                                 f"not {team_id!r}"))
    people = []
    for column in players:
        value = cell(column)
        if not value:
            errors.append(LineError(line, column, f"{column} is empty: a login, or bot"))
        people.append(value.casefold() if value.casefold() == BOT else value)
    substitutes = []
    for column in ("substitute_1", "substitute_2"):
        value = cell(column)
        if value.casefold() == BOT:
            errors.append(LineError(line, column, "a substitute is a person, not a bot"))
        elif value:
            substitutes.append(value)
    named = [p for p in people if p and p != BOT] + substitutes
    if len(set(p.removeprefix(INVITE).casefold() for p in named)) != len(named):
        errors.append(LineError(line, None, "the same player is named twice in the team"))
    for column in ("club", "region"):
        if len(cell(column)) > MAX_TEXT:
            errors.append(LineError(line, column, f"at most {MAX_TEXT} characters"))
    rating = None
    if cell("rating"):
        try:
            rating = float(cell("rating"))
        except ValueError:
            rating = math.nan
        if not math.isfinite(rating):
            errors.append(LineError(line, "rating", f"a rating is a number, not {cell('rating')!r}"))
            rating = None
    if not name:
        return None                 # a line with no team: nothing more to check against the others
    return TeamRow(line, team_id, name, tuple(people), tuple(substitutes), cell("club"), cell("region"), rating)
