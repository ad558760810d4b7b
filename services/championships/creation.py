"""A new championship's settings from what its organiser asked for: the tournament's settings (format, game,
profile and switches, schedule, seeding) and how the platform runs its matches (check-in, turn clock, bots,
what spectators see), each checked against what the game takes (``services.game_options``) and the table's
terms (``domain.table.terms_problem``), refusing as ``Invalid`` naming the field."""

from __future__ import annotations

from domain import games
from domain.table import terms_problem
from domain.tournament import RoundSlot, Settings
from services.championships import RunSettings, encode_switches
from services.errors import Invalid
from services.game_options import game_profile


def new_settings(asked) -> tuple[Settings, RunSettings]:
    """The settings and run settings of a championship ``asked`` for (anything with the fields of the API's
    ``NewChampionship``)."""
    switches = dict(asked.switches)
    if "target" in switches:
        raise Invalid("invalid_field", "set the game target with game_target, not as a switch", field="switches")
    naive = next((s for s in asked.schedule if s.starts_at.tzinfo is None), None)
    if naive is not None:
        raise Invalid("invalid_field", f"round {naive.round}'s time {naive.starts_at.isoformat()} has no time "
                                       "zone: say which, e.g. 2026-12-01T18:00:00+03:00", field="schedule")
    game = games.get(asked.game)
    problem = terms_problem(asked)                      # what its tables will show spectators, and how late
    if problem is not None:
        raise Invalid("invalid_field", problem[1], field=problem[0])
    if asked.format == "duplicate" and not game.info.shares_boards:
        raise Invalid("invalid_field", f"a duplicate event plays the same deals at every table: {asked.game} has "
                                       "no deals to share", field="format")
    profile = game_profile(asked.game, profile=asked.profile, switches=switches, table_mode=asked.table_mode,
                           on_timeout=asked.on_timeout, bot_levels=(("bot_level", asked.bot_level),))
    settings = Settings(
        name=asked.name, format=asked.format, profile=profile.name, switches=encode_switches(switches),
        match_games=asked.match_games, table_mode=asked.table_mode, game=game.info.name,
        # A game with no target (Balut) keeps the setting's default, which its tables never read.
        **({"game_target": target} if (target := asked.game_target or getattr(profile, "target", None)) else {}),
        schedule=tuple(RoundSlot(s.round, s.starts_at.isoformat()) for s in asked.schedule),
        seeding=asked.seeding, swiss_rounds=asked.swiss_rounds, group_size=asked.group_size,
        qualifiers_per_group=asked.qualifiers_per_group, grand_final_reset=asked.grand_final_reset,
        duplicate_boards=asked.duplicate_boards)
    run = RunSettings(check_in_seconds=asked.check_in_seconds, turn_seconds=asked.turn_seconds,
                      on_timeout=asked.on_timeout, bot_level=asked.bot_level or game.info.default_bot,
                      bot_pace_seconds=asked.bot_pace_seconds, hands_policy=asked.hands_policy,
                      delay_seconds=asked.delay_seconds)
    return settings, run
