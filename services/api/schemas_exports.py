"""A championship's exports: the manifest of the records' zip (``manifest.json``: each file with its hash, and
what was left out and why), written by ``routes_exports``."""

from __future__ import annotations

import msgspec


class ExportedFile(msgspec.Struct):
    path: str
    sha256: str
    size: int = msgspec.field(name="bytes")
    format: str
    table_id: str
    match_id: str
    round: int | None
    game_no: int
    deal_no: int | None              # None: the record is the whole game's
    teams: list[str | None]          # the names of the match's two teams (None: a bye's empty slot)


class LeftOutFile(msgspec.Struct):
    table_id: str
    match_id: str
    deal_no: int | None
    rule: str                        # deal_in_progress, game_in_progress, or the table's refusal
    detail: str


class ExportManifest(msgspec.Struct):
    format: str
    championship_id: str
    name: str
    exported_at: str
    teams: dict[str, str]            # every team's id -> its name
    files: list[ExportedFile]
    left_out: list[LeftOutFile]
