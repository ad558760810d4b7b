"""A duplicate match at the tables: two tables of the round's boards with the seats swapped, teams of four.

A duplicate team is two pairs (``players[0:2]`` and ``players[2:4]``), so nobody plays a board twice. Table 1
seats A's pair 1 at 0+2 against B's pair 2 at 1+3; table 2 seats B's pair 1 at 0+2 against A's pair 2 at 1+3:
team A holds seats 0+2's cards at table 1 and seats 1+3's at table 2 (``domain.tournament.duplicate``). Each
table is ``duplicate_boards`` deals of the round's board set (``duplicate/<championship>/round-<r>``: every
match of the round plays the same deals, ``services/tables/seeds.py``); the game goes to no target, so only
the boards (or a Gahwa, or an abandonment) end it. When both have ended, each board's (A's GP, B's GP) makes
the match result, which the decider checks again. The tables are ``dup.<championship>.<match>.t1`` and
``.t2``.

Until the round is decided, a duplicate table's boards are hidden from everyone not seated at it but the
event's officials (``services/access/policy.py``): the other table of the match, and every other match
of the round, play the same cards.
"""

from __future__ import annotations

from domain.baloot.profiles import RuleProfile, profile_named
from domain.tournament import Settings
from domain.tournament import duplicate as rules
from domain.tournament.events import Match
from domain.tournament.results import MatchResult
from domain.tournament.state import ChampionshipState
from domain.table import Boards
from domain.tournament.state import parse_match_id
from services.tables import Table, TableOpened

NO_TARGET = 100_000        # the profile's highest target: a duplicate table ends after its boards


def team_size(fmt: str) -> int:
    """Players in a team: four in a duplicate event (a pair at each table), two otherwise."""
    return 4 if fmt == "duplicate" else 2


def profile(settings: Settings, switches: dict) -> RuleProfile:
    return profile_named(settings.profile, {**switches, "target": NO_TARGET})


def seats(state: ChampionshipState, match: Match) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The seats of table 1 and table 2 of ``match`` (team A holds 0+2 at table 1, 1+3 at table 2)."""
    a, b = state.teams[match.team_a].players, state.teams[match.team_b].players
    if len(a) != 4 or len(b) != 4:
        raise ValueError(f"match {match.match_id}: a duplicate team is four players (two pairs)")
    return (a[0], b[2], a[1], b[3]), (b[0], a[2], b[1], a[3])


def table_id(championship_id: str, match_id: str, table_no: int) -> str:
    return f"dup.{championship_id}.{match_id}.t{table_no}"


def board_set(championship_id: str, round_no: int) -> str:
    """The name of a round's board set (its seed is the server's: ``Seeds.set_seed``)."""
    return f"duplicate/{championship_id}/round-{round_no}"


def tables(championship_id: str, state: ChampionshipState, match: Match, template: TableOpened,
           bots: set[str], bot_level: str) -> list[TableOpened]:
    """The match's two tables, as ``template`` (the championship's table settings) with their seats."""
    out = []
    boards = Boards(set=board_set(championship_id, parse_match_id(match.match_id)[0]),
                    count=state.settings.duplicate_boards)
    for n, seated in enumerate(seats(state, match), start=1):
        out.append(TableOpened(
            table_id=table_id(championship_id, match.match_id, n), seats=seated, boards=boards,
            profile=template.profile, table_mode=template.table_mode, opened_by=template.opened_by,
            championship_id=championship_id, match_id=match.match_id, game_no=n,
            bots=tuple(bot_level if p in bots else None for p in seated), turn_seconds=template.turn_seconds,
            on_timeout=template.on_timeout, timeout_bot_level=template.timeout_bot_level,
            bot_pace=template.bot_pace, deals=state.settings.duplicate_boards, hands_policy=template.hands_policy,
            delay_seconds=template.delay_seconds))
    return out


def board_points(table: Table, boards: int) -> list[tuple[int, int]]:
    """(seats 0+2's GP, seats 1+3's GP) on each board at ``table``; a board not played (the game ended
    first) scores nothing."""
    played = [tuple(r) for r in table.game.results[:boards]]
    return played + [(0, 0)] * (boards - len(played))


def match_result(table_1: Table, table_2: Table, boards: int) -> MatchResult:
    """The match result from both tables' boards (``domain.tournament.duplicate``)."""
    return rules.duplicate_result([rules.board_score(p1, p2) for p1, p2 in
                                   zip(board_points(table_1, boards), board_points(table_2, boards))])
