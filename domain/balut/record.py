"""Game records (``balut-game/1``): one whole Balut game as a self-contained JSON document.

A record names the rules, the players and the first player, then each turn in order: who threw, the turn's
faces (``balut-dice/1``: throw t of die p shows the (5t+p)-th face), the commitment and the seed when the
turn was thrown from one, the positions kept before throws 2 and 3, and the row written. ``dice`` and
``points`` are what the scorer wrote down; the audit checks them against the replay. ``parse_record``
reads one (unknown fields are errors), ``record_commands`` gives the engine commands, ``export_record``
builds one from a game's events, ``game_record_schema`` is ``schemas/balut-game-1.schema.json``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.balut.dice import dice_text, faces_from_seed, faces_text, parse_faces
from domain.balut.events import (
    BalutStarted, CategoryScored, DiceDrawn, DiceRolled, Roll, Score, StartBalut, StartTurn, TurnSeedRevealed,
    TurnStarted,
)
from domain.balut.game import MAX_PLAYERS
from domain.balut.profiles import profile_named, profile_switches
from domain.records import decode_record

FORMAT = "balut-game/1"
Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_PLAYERS - 1)]
Position = Annotated[int, msgspec.Meta(ge=0, le=4)]
DiceText = Annotated[str, msgspec.Meta(pattern="^[1-6]{5}$")]
FacesText = Annotated[str, msgspec.Meta(pattern="^[1-6]{5}/[1-6]{5}/[1-6]{5}$")]
Row = Literal["fours", "fives", "sixes", "straight", "house", "choice", "balut"]


class RecordThrow(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One throw: the positions set aside before it (none for the first) and the dice it left."""

    keep: Annotated[list[Position], msgspec.Meta(max_length=4)] = []
    dice: DiceText | None = None


class RecordTurn(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    seat: Seat
    faces: FacesText
    throws: Annotated[list[RecordThrow], msgspec.Meta(max_length=3)]
    category: Row | None = None         # the row written; None only in the last turn of an unfinished game
    points: Annotated[int, msgspec.Meta(ge=0)] | None = None
    commitment: str | None = None       # sha256 commitment published when the turn started (dice.py)
    seed: str | None = None             # the seed revealed after it


class GameRecord(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    format: Literal["balut-game/1"]
    profile: str
    switches: dict[str, bool | int | str | None]
    players: Annotated[int, msgspec.Meta(ge=1, le=MAX_PLAYERS)]
    first_player: Seat
    turns: list[RecordTurn]


class MalformedRecord(ValueError):
    """The document is not a valid ``balut-game/1`` record; the message says what and where."""


def parse_record(data: bytes | str) -> GameRecord:
    """Decode and check a game record; MalformedRecord names the field at fault."""
    record = decode_record(data, GameRecord, MalformedRecord, FORMAT)
    try:
        profile_named(record.profile, record.switches)
    except ValueError as exc:
        raise MalformedRecord(f"at `$.profile`/`$.switches`: {exc}") from None
    if record.first_player >= record.players:
        raise MalformedRecord(f"at `$.first_player`: seat {record.first_player} does not exist "
                              f"({record.players} players)")
    for i, turn in enumerate(record.turns):
        if not turn.throws:
            raise MalformedRecord(f"at `$.turns[{i}].throws`: a turn has at least one throw")
        if turn.throws[0].keep:
            raise MalformedRecord(f"at `$.turns[{i}].throws[0].keep`: the first throw keeps no dice")
        if turn.category is None and i != len(record.turns) - 1:
            raise MalformedRecord(f"at `$.turns[{i}].category`: only the last turn may be unfinished")
    return record


def record_start(record: GameRecord) -> StartBalut:
    return StartBalut(players=record.players, first_player=record.first_player,
                      profile=profile_named(record.profile, record.switches))


def turn_commands(turn: RecordTurn) -> list:
    """The engine commands of one turn: its start (explicit faces), the throws, the row."""
    out: list = [StartTurn(faces=parse_faces(turn.faces))]
    out.extend(Roll(turn.seat, tuple(t.keep)) for t in turn.throws)
    if turn.category is not None:
        out.append(Score(turn.seat, turn.category))
    return out


def record_commands(record: GameRecord) -> list:
    return [record_start(record)] + [c for turn in record.turns for c in turn_commands(turn)]


def export_record(events) -> GameRecord:
    """The game record of one game, from its events (``balut_started`` on, private ones optional)."""
    header = None
    turns: list[dict] = []
    for e in events:
        match e:
            case BalutStarted():
                header = e
            case TurnStarted():
                turns.append({"seat": e.seat, "faces": e.faces, "throws": [], "commitment": e.commitment})
            case DiceDrawn():
                turns[-1]["faces"] = e.faces
            case DiceRolled():
                turns[-1]["throws"].append(RecordThrow(keep=list(e.keep), dice=dice_text(e.dice)))
            case CategoryScored():
                turns[-1] |= {"category": e.category, "points": e.points}
            case TurnSeedRevealed():
                turns[-1]["seed"] = e.seed
    if header is None:
        raise ValueError("no balut_started event: not a Balut game")
    out = []
    for i, t in enumerate(turns):
        faces = t["faces"]
        if faces is None:
            if t.get("seed") is None:
                raise ValueError(f"turn {i}'s dice are not known: its seed is not revealed")
            faces = faces_from_seed(t["seed"])
        out.append(RecordTurn(seat=t["seat"], faces=faces_text(faces), throws=t["throws"],
                              category=t.get("category"), points=t.get("points"), commitment=t["commitment"],
                              seed=t.get("seed")))
    return GameRecord(format=FORMAT, profile=header.profile.name, switches=profile_switches(header.profile),
                      players=header.players, first_player=header.first_player, turns=out)


def encode_record(record: GameRecord) -> bytes:
    return msgspec.json.format(msgspec.json.encode(record), indent=1)


def game_record_schema() -> dict:
    """The JSON Schema of ``balut-game/1`` (generated from the Structs)."""
    schema = msgspec.json.schema(GameRecord)
    for name in ("GameRecord", "RecordTurn", "RecordThrow"):
        schema["$defs"][name]["additionalProperties"] = False
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://baloot-arena.invalid/schemas/balut-game-1.schema.json"
    schema["title"] = "balut-game/1: one game of Balut (the dice game), replayable by the audit"
    return schema

