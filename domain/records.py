"""What the records of every game share: reading a record document, and the violations block of its audit.

Each game has its record format (``domain.baloot.handrecord``: ``baloot-hand/1``, one deal;
``domain.balut.record``: ``balut-game/1``, a whole game); they are told apart by their ``format`` field
(``domain.games.record_format_of``).
"""

from __future__ import annotations

import msgspec


def decode_record(data: bytes | str, type_, malformed: type[ValueError], fmt: str):
    """``data`` decoded as ``type_``; ``malformed`` (any record format's error) names the field at fault."""
    try:
        return msgspec.json.decode(data, type=type_)
    except msgspec.ValidationError as exc:
        raise malformed(f"not a {fmt} record: {exc}") from None
    except msgspec.DecodeError as exc:
        raise malformed(f"not JSON: {exc}") from None


def violation_lines(violations, where) -> list[str]:
    """The violations block of a report: ``where(v)`` says where each one is (an action, a turn)."""
    if not violations:
        return ["Violations: none"]
    lines = ["Violations:"]
    for v in violations:
        seat = f"seat {v.seat}" if v.seat is not None else "record"
        lines.append(f"  {where(v)}, {seat}: {v.rule} — {v.message}")
    return lines
