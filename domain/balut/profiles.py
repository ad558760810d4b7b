"""Balut rule profiles: where the published rules differ, a switch; one engine runs them all.

``stc`` (default) is the Singapore Town Club rules of 30 October 1978, the rules of seed 004: seven rows,
each filled once, a Balut scores 30, the score is the sum (at most 183). ``ibf`` is the 28-turn game of the
International Balut Federation as public descriptions give it: each row filled four times, a Balut scores 20
plus its pips, and the final points come from thresholds per row and bands of the total (docs/balut.md).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.profiles import pick_profile, switches_of


class BalutProfile(msgspec.Struct, frozen=True, kw_only=True):
    name: str = "stc"
    fills: Annotated[int, msgspec.Meta(ge=1, le=4)] = 1      # times each row is filled (STC 1, IBF 4)
    balut_score: Literal["thirty", "twenty_plus_pips"] = "thirty"
    points: Literal["total", "ibf"] = "total"                   # the final points: the total, or IBF points
    # Who throws first in a round: the best score of the round before (STC rule 7), or always the first player.
    round_order: Literal["best_previous", "fixed"] = "best_previous"


STC = BalutProfile()
IBF = BalutProfile(name="ibf", fills=4, balut_score="twenty_plus_pips", points="ibf", round_order="fixed")

PROFILES: dict[str, BalutProfile] = {p.name: p for p in (STC, IBF)}
SWITCH_NAMES = frozenset(f for f in BalutProfile.__struct_fields__ if f != "name")


def profile_named(name: str, switches: dict | None = None) -> BalutProfile:
    """The profile ``name`` with ``switches`` applied; unknown names and bad values raise ValueError."""
    return pick_profile(PROFILES, name, switches, "Balut ")


def profile_switches(profile: BalutProfile) -> dict:
    """The switches in which ``profile`` differs from its named base profile."""
    return switches_of(profile, PROFILES, STC)
