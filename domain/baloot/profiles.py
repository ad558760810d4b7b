"""Rule profiles: every point where rule books disagree is a field here, one engine runs them all.

``saudi`` is the default (rules file §1-§8); ``belote_classic`` and ``belote_declarations`` are the French
games of §9. A hand record names a profile and may override single switches (``switches``).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.profiles import pick_profile, switches_of


Points = Annotated[int, msgspec.Meta(ge=1, le=100_000)]


class RuleProfile(msgspec.Struct, frozen=True, kw_only=True):
    name: str = "saudi"
    # Contracts and bidding (§3).
    sun_allowed: bool = True                   # Sun (صن) and Ashkal exist at all
    ashkal_allowed: bool = True                # Ashkal (أشكل) for the dealer and the seat before him
    ashkal_in_round_two: bool = True
    sun_priority_window: bool = True           # before-you (قبلك): an earlier Hokum bidder may claim the Sun
    kawesh: bool = True                        # Kawesh (كوش): five 7/8/9 void the deal
    # Doubling (§4).
    doubling: bool = True
    sun_double_threshold: Points | None = 100  # None: a Sun may always be doubled
    # Play (§5).
    # Who is freed from beating (trump led) or trumping (void) when the partner wins the trick: everyone,
    # only the last seat (or the third after the partner's Ace), or only a player void in the led suit.
    partner_winning_exemption: Literal["always", "fourth_seat_or_ace", "void_only"] = "always"
    undertrump_required: bool = True
    # Projects (§6.1) and scoring (§6.3).
    projects: Literal["saudi", "none", "belote"] = "saudi"
    baloot_absorbed_by_hundred: bool = False
    hokum_rounding: Literal["kammelna", "no_abnat"] = "kammelna"
    # Sun, equal GP and equal raw totals (§6.3 step 5): the deal is split (Kammelna), or the buyer fails
    # (seed 000: «فالفريق المشتري قد سقط»).
    sun_equal_raw: Literal["split", "buyer_fails"] = "split"
    kaboot_multiplied: bool = False
    project_multiplier_cap: Annotated[int, msgspec.Meta(ge=1, le=4)] | None = None
    baloot_on_failure: Literal["winner", "holder"] = "winner"
    scoring: Literal["game_points", "card_points"] = "game_points"
    capot_points: Points = 252                 # card-point scoring only
    dispute_carries: bool = True               # 81-81 (litige): takers' points go to the next deal's winner
    # The game (§7).
    target: Points = 152


SAUDI = RuleProfile()

BELOTE_CLASSIC = RuleProfile(
    name="belote_classic",
    sun_allowed=False,
    ashkal_allowed=False,
    ashkal_in_round_two=False,
    sun_priority_window=False,
    kawesh=False,
    doubling=False,
    sun_double_threshold=None,
    partner_winning_exemption="void_only",
    projects="none",
    baloot_on_failure="holder",
    scoring="card_points",
    target=1000,
)

BELOTE_DECLARATIONS = msgspec.structs.replace(BELOTE_CLASSIC, name="belote_declarations", projects="belote")

PROFILES: dict[str, RuleProfile] = {p.name: p for p in (SAUDI, BELOTE_CLASSIC, BELOTE_DECLARATIONS)}

SWITCH_NAMES = frozenset(f for f in RuleProfile.__struct_fields__ if f != "name")


def profile_named(name: str, switches: dict | None = None) -> RuleProfile:
    """The profile ``name`` with ``switches`` applied; unknown names and bad values raise ValueError."""
    return pick_profile(PROFILES, name, switches)


def profile_switches(profile: RuleProfile) -> dict:
    """The switches in which ``profile`` differs from its named base profile."""
    return switches_of(profile, PROFILES, SAUDI)
