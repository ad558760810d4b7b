"""What the events and commands of every game share, as frozen tagged msgspec Structs.

Tags are stable names stored in the log; never derive them from Python class paths. Every event class
carries a ``schema_version`` so that old stored events can be upcast on read, and says whether it is
``private`` (known to the server only: re-derived from a committed seed, never stored, never sent).
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

# How a table treats an illegal action (rules file §10): ``strict`` refuses it and stores nothing;
# ``recorded`` stores it with the offence noted, for an opponent's Qayd. Each game says which it supports.
TableMode = Literal["strict", "recorded"]
# What a table shows its spectators of the hands: none, each deal's once it has ended, or every hand during
# play (behind the table's delay).
HandsPolicy = Literal["never", "after_deal", "always"]


class Event(msgspec.Struct, frozen=True):
    schema_version: ClassVar[int] = 1
    private: ClassVar[bool] = False            # known to the server only: never stored, never sent


class RevealSeed(msgspec.Struct, frozen=True, tag="reveal_seed"):
    """Reveal the seed a deal (a turn) was dealt from: the game checks it against its commitment."""

    seed: str
