"""What a game takes of a table's options, checked in one place for a table proposed on its own and for the
tables a championship will open: the number of seats, the rule profile and its switches, the table mode, the
turn-clock rule and the bot levels, each against what the game says it takes (``domain.games``)."""

from __future__ import annotations

from collections.abc import Iterable

from domain import games
from services.errors import Invalid


def game_profile(game: str, *, profile: str | None, switches: dict, table_mode: str, on_timeout: str,
                 bot_levels: Iterable[tuple[str, str | None]] = (), seats: int | None = None,
                 mode_field: str = "table_mode"):
    """The game's rule profile for these options, or ``Invalid`` naming the first option the game does not
    take. ``bot_levels``: (field, level) pairs, None for the game's default; ``seats``: how many (None: not
    known yet, a championship's tables); ``mode_field``: the table mode's name where the caller sent it."""
    info = games.get(game).info

    def refuse(field: str, what: str, value, allowed) -> Invalid:
        return Invalid("invalid_field", f"{info.name} takes {what} {', '.join(map(str, allowed))}, not {value}",
                       field=field)

    if seats is not None and seats not in info.seat_counts:
        raise refuse("seats", "a number of seats of", seats, list(info.seat_counts))
    if profile is not None and profile not in info.profile_names:
        raise refuse("profile", "the profiles", repr(profile), info.profile_names)
    if table_mode not in info.table_modes:
        raise refuse(mode_field, "the table modes", repr(table_mode), info.table_modes)
    if on_timeout not in info.timeout_rules:
        raise refuse("on_timeout", "the turn-clock rules", repr(on_timeout), info.timeout_rules)
    for field, level in bot_levels:
        if level not in (None, *info.bot_levels):
            raise refuse(field, "the bot levels", repr(level), info.bot_levels)
    try:
        return games.get(game).profile(profile, switches)
    except ValueError as exc:
        raise Invalid("invalid_field", str(exc), field="switches") from None
