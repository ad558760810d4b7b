"""Who may see and do what (docs/access.md), decided here and nowhere else, with no I/O.

Every answer is a function of two things: the caller's **relations** to a resource (``Relations``: his seats,
his roles on its championship and on the platform, whether he plays in it) and the resource's **facts**
(``TableFacts``: its seats, its phase, whether its boards are still played elsewhere, what it shows
spectators; ``ChampionshipFacts``). ``services/access/__init__.py`` gathers both and asks here; a door never
decides by itself. A refusal is a ``Forbidden`` naming its rule, in a referee's words.

Two rules run through the tables:

- **Shared boards stay hidden while they are played.** A table whose deals are boards played at other tables
  too (a duplicate round, a daily set) is refused, before anything else (``board_hidden``, which says nothing
  more about it), to everyone but its players and its officials, until every table of its boards is done;
  its finished deals' records wait as long, for its own players too (the view lays a deal open only once its
  seed is out, and the seed is held back as long).
- **An official who plays is not an official of his own round.** A championship's organiser or referee who
  is a member of a team paired in a round is, at that round's tables, a player of the event like any other
  until the round is decided: he sees no shared board (``board_hidden``), referees no table
  (``official_plays``), forfeits no match of his own team (``own_match``) and reads no fair-play report while
  the championship runs (``official_plays``). A private table's own referee is its proposer who does not sit
  at it, named in its terms (``domain.table.table_referee``), which every invitation shows.
- **The platform's referee referees everywhere he does not play.** An account with the platform's referee role
  (``baloot account grant LOGIN referee``) is a referee of every championship and an official of every table
  he neither sits at nor is invited to, as if named to each, under the same rules: at his own round's tables
  he is a player of the event (``board_hidden``, ``official_plays``), in his own team's match he records no
  forfeit (``own_match``). The daily deal's tables have no official: every account may play their boards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from services.errors import Forbidden

Phase = Literal["proposed", "live", "held", "closed"]
PHASES: tuple[Phase, ...] = ("proposed", "live", "held", "closed")


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What the policy needs of a table: who sits where, its phase, its shared boards, what it shows."""

    table_id: str
    seats: tuple[str, ...]
    phase: Phase
    hands_policy: str = "after_deal"          # what spectators see of the hands (never, after_deal, always)
    delay_seconds: float = 0.0                # how long after its players spectators see it
    referee: str | None = None                # its own referee, named in its terms
    boards_in_play: bool = False              # shared boards some table of which is not done
    why_hidden: str = ""                      # the words of board_hidden: whose boards, until when
    daily: bool = False                       # a table of the daily deal (no official: everyone plays its boards)


@dataclass(frozen=True, slots=True)
class Relations:
    """The caller's relations to a resource (a table's championship, or a championship)."""

    user_id: str
    organiser: bool = False                   # of the championship
    referee: bool = False                     # of the championship (or of the table, granted by the operator)
    member: bool = False                      # a player or substitute of a registered team of it
    plays_round: bool = False                 # a member of a team paired in the table's round, not decided yet
    own_match: bool = False                   # a member of one of the teams of the match asked about
    platform: frozenset[str] = field(default_factory=frozenset)   # the platform's roles


@dataclass(frozen=True, slots=True)
class Sight:
    """How much of a table the caller sees: ``seat`` (his own cards; None: none), ``live`` (as it is; else
    behind the table's delay, ``delay`` seconds), and whether he may read its finished deals' records."""

    seat: int | None
    live: bool
    delay: float = 0.0
    official: bool = False


@dataclass(frozen=True, slots=True)
class ChampionshipFacts:
    championship_id: str
    status: str                               # new, registration, closed, drawn, running, finished


# ---------------------------------------------------------------- tables

def seats_of(facts: TableFacts, user_id: str) -> list[int]:
    return [i for i, uid in enumerate(facts.seats) if uid == user_id]


def referees(rel: Relations) -> bool:
    """A referee of the championship (or of the table, granted by the operator), or the platform's."""
    return rel.referee or "referee" in rel.platform


def official(facts: TableFacts, rel: Relations) -> bool:
    """The table's referee (its terms'), or its championship's organiser or referee, or the platform's referee
    (of any table but the daily deal's), who neither sits at it (nor is invited to) nor plays its round."""
    if rel.user_id in facts.seats:
        return False
    if facts.referee == rel.user_id:
        return True
    if rel.plays_round:
        return False
    return rel.organiser or rel.referee or ("referee" in rel.platform and not facts.daily)


def check_boards(facts: TableFacts, rel: Relations) -> None:
    """``board_hidden``, before any other refusal, for anyone but the players and officials of a table whose
    boards are still played elsewhere."""
    if facts.boards_in_play and rel.user_id not in facts.seats and not official(facts, rel):
        raise Forbidden("board_hidden", facts.why_hidden)


def sight(facts: TableFacts, rel: Relations, wanted: int | None = None, turn: int | None = None) -> Sight:
    """What the caller sees of the table: a player his own seat (``wanted``, his only one, or the one whose
    turn it is), live; an official no seat, live; anyone else no seat, behind the table's delay."""
    mine = seats_of(facts, rel.user_id)
    if not mine:
        check_boards(facts, rel)
    if wanted is not None and wanted not in mine:
        raise Forbidden("not_your_seat", f"seat {wanted} is not yours; you may see only your own cards")
    if mine:
        seat = wanted if wanted is not None else mine[0] if len(mine) == 1 or turn not in mine else turn
        return Sight(seat, True)
    if official(facts, rel):
        return Sight(None, True, official=True)
    return Sight(None, False, facts.delay_seconds)


def records(facts: TableFacts, rel: Relations, seen: Sight) -> None:
    """Hand records, audits and deal reviews (services/review.py: every seat's choices valued on the true
    hands) show every hand of a finished deal: a shared board's only once every table of it is done (but to
    its officials); to spectators only where the table shows hands."""
    if facts.boards_in_play and not seen.official:
        raise Forbidden("board_hidden", "a shared board's record shows every hand: it is laid open when every "
                                        "table of the board is done. " + facts.why_hidden)
    if not seen.live and facts.hands_policy == "never":
        raise Forbidden("hands_hidden", "this table never shows hands to spectators; its players and referees "
                                        "may read its hand records")


def evaluation(facts: TableFacts, rel: Relations, seen: Sight, finished: bool) -> str:
    """The evaluation bar's basis for the caller (services/evaluation.py): "open" (the true hands' values)
    where he may see every hand of the deal, "public" (what anyone watching may know) otherwise. A seated
    player gets none while his deal is in play (an engine's opinion of his own position is help); a finished
    deal's curve goes where its hand record does (``records``), else the public one."""
    if seen.seat is not None and not finished:
        raise Forbidden("engine_help", "a player sees no evaluation of a deal he is playing: its review and "
                                       "curve are his once it is over")
    if seen.official:
        return "open"
    if finished:
        try:
            records(facts, rel, seen)
        except Forbidden as refusal:
            if refusal.rule == "board_hidden":
                raise
            return "public"
        return "open"
    return "open" if facts.hands_policy == "always" else "public"


def acting_seat(facts: TableFacts, rel: Relations, wanted: int | None, turn: int | None) -> int:
    """The seat a player acts for (``wanted``, his only one, or the one whose turn it is): only the players
    seated at a table act at it."""
    mine = seats_of(facts, rel.user_id)
    if not mine:
        check_boards(facts, rel)
        raise Forbidden("not_seated", "only the players seated at this table act at it")
    if wanted is not None:
        if wanted not in mine:
            raise Forbidden("not_your_seat", f"seat {wanted} is not yours; a player acts only for its own seat")
        return wanted
    if len(mine) == 1:
        return mine[0]
    return turn if turn in mine else mine[0]


def invitee(facts: TableFacts, rel: Relations) -> None:
    """Only a user the table invited to a seat answers its invitation."""
    if rel.user_id not in facts.seats:
        check_boards(facts, rel)
        raise Forbidden("not_invited", f"you are not invited to table {facts.table_id}")


def referee(facts: TableFacts, rel: Relations) -> None:
    """Ruling, claiming a call and the desk (every hand, live) are an official's."""
    check_boards(facts, rel)
    if official(facts, rel):
        return
    if (rel.organiser or referees(rel)) and rel.plays_round and rel.user_id not in facts.seats:
        raise Forbidden("official_plays", "you play in this round of the championship: you referee its tables "
                                          "once the round is decided; until then its other officials do")
    raise Forbidden("not_referee", "only this table's referee, its championship's organiser or referees, or the "
                                   "platform's referees see its desk and rule, and never one of its players")


# ---------------------------------------------------------------- championships

def organiser(c: ChampionshipFacts, rel: Relations) -> None:
    """Running a championship (registration, the draw, rounds, referees, imports, check-in windows) is its
    organisers'."""
    if not rel.organiser:
        raise Forbidden("not_organiser", f"only the organisers of championship {c.championship_id} do this")


def championship_official(c: ChampionshipFacts, rel: Relations) -> None:
    """The monitor and the team proposals: its organisers and referees (the platform's among them)."""
    if not (rel.organiser or referees(rel)):
        raise Forbidden("not_referee", f"only the referees and organisers of championship {c.championship_id} "
                                       "rule on its matches")


def forfeit(c: ChampionshipFacts, rel: Relations) -> None:
    """A forfeit is an official's ruling, never on a match of his own team."""
    championship_official(c, rel)
    if rel.own_match:
        raise Forbidden("own_match", "you play in this match: its forfeit is for the championship's other "
                                     "officials to record")


def check_in(c: ChampionshipFacts, rel: Relations) -> None:
    """A player checks in for his own team's match, nobody else (asked before the round's state is)."""
    if not rel.own_match:
        raise Forbidden("not_in_match", "you do not play in this match: a player checks in for his own team's "
                                        "match")


def exports(c: ChampionshipFacts, rel: Relations) -> None:
    """The exports are its organisers' and referees' (the platform's among them; the records in them each as
    its table allows)."""
    if not (rel.organiser or referees(rel)):
        raise Forbidden("not_organiser", f"only the organisers and referees of championship {c.championship_id} "
                                         "export it")


def fair_play(c: ChampionshipFacts, rel: Relations) -> None:
    """Fair-play reports name its players and show their hands' choices: its officials', and a playing
    official's only once it is finished."""
    exports(c, rel)
    if rel.member and c.status != "finished":
        raise Forbidden("official_plays", f"you play in championship {c.championship_id}: its fair-play reports "
                                          "judge your opponents, and are read by its officials who do not play "
                                          "until it is finished")


def team_member_or_organiser(c: ChampionshipFacts, rel: Relations, team_id: str, in_team: bool) -> None:
    """Withdrawing a team or bringing in a substitute: its own players, or an organiser."""
    if not in_team and not rel.organiser:
        raise Forbidden("not_organiser", f"only team {team_id}'s players or the organisers do this")


def register_team(c: ChampionshipFacts, rel: Relations, in_team: bool, bots: bool) -> None:
    """A player registers his own team (others accept their places); an organiser any, bots included."""
    if rel.organiser:
        return
    if not in_team:
        raise Forbidden("not_in_team", "a player registers their own team; the organiser registers any")
    if bots:
        raise Forbidden("not_organiser", "only the organiser registers bots (\"bot\" players) in a team",
                        field="players")


# ---------------------------------------------------------------- the platform

def platform_official(rel: Relations) -> None:
    """A player's fair play across everything he played is the platform's officials'."""
    if not rel.platform & {"organiser", "referee"}:
        raise Forbidden("not_platform_official", "only the platform's organisers and referees read a player's "
                                                 "fair play across everything he played")


def organiser_console(rel: Relations, organises_any: bool) -> None:
    if not (organises_any or "organiser" in rel.platform):
        raise Forbidden("not_organiser", "the organiser console is for accounts with the organiser role: ask "
                                         "whoever runs the platform (baloot account grant LOGIN organiser)")


# ---------------------------------------------------------------- the daily deal

def daily_leaderboard(closed: bool, finished: int, boards: int, closes: str) -> None:
    """An open day's leaderboard shows how others did on its boards: to those who played them all."""
    if not closed and finished < boards:
        raise Forbidden("board_hidden", f"the live leaderboard shows how others did on boards you have not "
                                        f"finished: it is shown to those who have played all {boards} boards, "
                                        f"and to everyone when the set closes at {closes}")


def daily_field(closed: bool, finished: bool, board: int, closes: str) -> None:
    """A board's field of results shows its scores: to its finishers before the close."""
    if not closed and not finished:
        raise Forbidden("board_hidden", f"board {board}'s results are shown to those who finished it until the "
                                        f"set closes at {closes}")


def daily_history_open_days(own: bool) -> bool:
    """Whether a player's daily history shows days still open: his own does; another's only closed ones (an
    open day's scores show its boards' results)."""
    return own
