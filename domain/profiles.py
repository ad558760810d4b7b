"""Rule profiles of any game: frozen Structs with a ``name``, every point where rule books disagree a field.

Each game keeps its own profiles (``domain.baloot.profiles``, ``domain.balut.profiles``); choosing one by
name with single switches overridden, and saying how a profile differs from its base, are the same for all.
"""

from __future__ import annotations

import msgspec


def pick_profile(profiles: dict, name: str, switches: dict | None = None, game: str = ""):
    """``profiles[name]`` with ``switches`` applied (any game's profiles: frozen Structs with a ``name``);
    unknown names and switches, and bad values, raise ValueError."""
    if name not in profiles:
        raise ValueError(f"unknown {game}profile {name!r} (known: {', '.join(sorted(profiles))})")
    profile = profiles[name]
    if not switches:
        return profile
    known = sorted(f for f in type(profile).__struct_fields__ if f != "name")
    unknown = sorted(set(switches) - set(known))
    if unknown:
        raise ValueError(f"unknown switch {unknown[0]!r} (known: {', '.join(known)})")
    merged = msgspec.structs.asdict(profile) | dict(switches)
    try:
        return msgspec.convert(merged, type(profile))
    except msgspec.ValidationError as exc:
        raise ValueError(f"bad switch value: {exc}") from None


def switches_of(profile, profiles: dict, default) -> dict:
    """The switches in which ``profile`` differs from its named base profile (``default`` if unnamed)."""
    base = profiles.get(profile.name, default)
    return {
        f: getattr(profile, f)
        for f in type(profile).__struct_fields__
        if f != "name" and getattr(profile, f) != getattr(base, f)
    }
