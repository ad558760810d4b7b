"""A table: the seats around one game, and the rules of running it that are not rules of the game.

The game is any of ``domain.games.GAMES`` (``table_opened.game``; the first game when absent): its events go
to that game's decider through the seam (``domain.seam``), and nothing here asks which game it is.

Its events open the stream: ``table_proposed`` and the invitations' answers (seats need consent),
``table_opened`` (who sits where, the rules, what spectators may see), then the game's own events, with
``seat_handed_to_bot`` when a seat's player is replaced. The pure rules here: a command decided with what
follows it by itself (``decide_followed``), a run of bot turns (``bot_run``), and the turn clock's policy
(``timeout_command``: a bot takes the seat, the game is forfeited or abandoned, or the game plays the turn).
Seeds arrive as data (``seed_of(deal_no)``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from domain.errors import DomainError
from domain.events import HandsPolicy, TableMode
from domain.games import FIRST, GAMES

# The first game's profile is kept in ``profile``, where every table_opened stored it before the seam;
# another game's is ``game_profile`` (``Game.profile_of`` reads the one of its game).
_FIRST = GAMES[FIRST]
FirstProfile = type(_FIRST.profile(None))
# What each single timeout of a seat's turn clock does (``timeout_command``).
OnTimeout = Literal["auto_play", "bot", "forfeit"]
# Spectators shown every hand during play ("always") see the table at least this long after its players
# (seconds): half an hour, several times what a deal takes at a human pace (4 to 6 minutes), so that a
# watcher cannot tell a player the hands of the deal being played.
ALWAYS_MIN_DELAY = 1800.0


class Boards(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A table's deals are boards shared with other tables: deal ``n`` (up to ``count``) is board
    ``first + n - 1`` of the board set ``set`` (a day's daily deal, a round of a duplicate event), the same
    deal at every table that plays it. The server derives the set's seed from its name; a deal after the
    last board (one annulled and dealt again) is the table's own."""

    set: str                                              # e.g. "daily/2026-12-01/saudi", "duplicate/<id>/round-1"
    first: int = 1
    count: int = 1


class TableOpened(msgspec.Struct, frozen=True, tag="table_opened", kw_only=True):
    """The first event of a table's stream: who sits where, the rules, what spectators may see.

    Version 2: ``boards`` (version 1 named a daily board's or duplicate table's set in its table id only)."""

    schema_version: ClassVar[int] = 2
    table_id: str
    seats: tuple[str, ...]                                # user ids, by seat (the card game: four)
    profile: FirstProfile = msgspec.field(default_factory=lambda: _FIRST.profile(None))
    table_mode: TableMode = msgspec.field(default="strict", name="mode")
    hands_policy: HandsPolicy = "after_deal"
    delay_seconds: float = 0.0
    opened_by: str = ""
    championship_id: str | None = None
    match_id: str | None = None
    game_no: int = 1
    bots: tuple[str | None, ...] = (None, None, None, None)  # bot levels, by seat
    turn_seconds: float | None = None                     # the turn clock; None: no clock
    on_timeout: OnTimeout = "auto_play"
    timeout_bot_level: str = "normal"                     # on_timeout "bot": the level that takes the seat
    review_seconds: float = 30.0                          # recorded tables: time for Qayd after the last trick
    # After this many turns in a row run out with no player acting, the table is abandoned: the teams
    # whose seats timed out lose the game (both: nobody wins it). Without it an empty table auto-passes
    # void deal after void deal for ever.
    max_timeouts: int = 8
    game: str = FIRST                                     # the game played: a key of domain.games.GAMES
    game_profile: dict | None = None                      # another game's profile, as builtins
    # The game is this many deals (a board of the daily deal is one), then ends: the higher score wins, equal
    # scores nobody. None: the game goes to the target.
    deals: int | None = None
    boards: Boards | None = None                          # None: every deal dealt for this table alone
    # The least time between one bot action and the next (seconds), so that people can watch the bots play:
    # each bot turn is then its own append, due this long after the table's last stored event (a person's
    # action included; a person's own turn is never delayed). 0: bots act as fast as they decide, a run of
    # bot turns stored at once (``bot_run``).
    bot_pace: float = 0.0


def terms_problem(opened) -> tuple[str, str] | None:
    """What is wrong with a table's terms, as (field, reason), or None: a table that shows spectators every
    hand during play shows them late. ``opened`` is a ``TableOpened``, or anything with its ``hands_policy``
    and ``delay_seconds`` (a championship's run settings, which its tables take)."""
    if opened.hands_policy == "always" and opened.delay_seconds < ALWAYS_MIN_DELAY:
        return "delay_seconds", (f"a table that shows spectators every hand during play shows them at least "
                                 f"{ALWAYS_MIN_DELAY:g} s late, not {opened.delay_seconds:g} s: a watcher could "
                                 "tell a player the hands of the deal being played")
    return None


def table_referee(opened: TableOpened) -> str | None:
    """The table's own referee, a term of the table that every invitation shows: the proposer of a table of
    its own (no championship, no shared boards) who does not sit at it; he sees every hand as it is played.
    None: the table's referees are its championship's, or it has none."""
    if opened.championship_id is not None or opened.boards is not None or not opened.opened_by:
        return None
    return None if opened.opened_by in opened.seats else opened.opened_by


class TableProposed(msgspec.Struct, frozen=True, tag="table_proposed", kw_only=True):
    """A user proposes a table: the seated users it names are invited and the game waits for them."""

    schema_version: ClassVar[int] = 1
    table: TableOpened                                    # the table as it will open
    waiting: tuple[str, ...]                              # invited users who have not accepted yet


class InvitationAccepted(msgspec.Struct, frozen=True, tag="invitation_accepted", kw_only=True):
    schema_version: ClassVar[int] = 1
    user: str


class InvitationDeclined(msgspec.Struct, frozen=True, tag="invitation_declined", kw_only=True):
    """An invited user says no: the table is cancelled."""

    schema_version: ClassVar[int] = 1
    user: str


class SeatHandedToBot(msgspec.Struct, frozen=True, tag="seat_handed_to_bot", kw_only=True):
    """A seat is played by a bot from now on (its player timed out, or left)."""

    schema_version: ClassVar[int] = 1
    seat: int
    level: str
    reason: str


# Why a player calls the referee to his table. "qayd" accuses an action of the deal, as Qayd (قيد) does at a
# recorded table, but for the referee to rule: the deal's result waits for his ruling.
CallReason = Literal["claim_dispute", "misclick", "connection_loss", "collusion", "qayd", "other"]
CALL_REASONS: tuple[str, ...] = CallReason.__args__
# What a referee rules. On a call: "uphold" (an accusation: the engine's verdict with its penalty), "reject"
# (nothing changes: the call is closed), or one of the others, which change the game.
RulingKind = Literal["uphold", "reject", "annul_deal", "replay_deal", "award_deal", "end_game", "hand_seat_to_bot",
                     "record_result", "qayd"]


class RefereeCalled(msgspec.Struct, frozen=True, tag="referee_called", kw_only=True):
    """A player calls the referee to the table: call number ``call`` (1, 2, … at this table), from ``seat``,
    during deal (turn) ``part_no``, for ``reason`` in his own words (``note``); ``index``: the accused action of
    that deal (reason "qayd")."""

    schema_version: ClassVar[int] = 1
    call: int
    seat: int
    user: str
    reason: CallReason
    note: str = ""
    part_no: int = 0
    index: int | None = None


class CallClaimed(msgspec.Struct, frozen=True, tag="referee_call_claimed", kw_only=True):
    """A referee takes call ``call``: the other referees see it is his."""

    schema_version: ClassVar[int] = 1
    call: int
    referee: str


class RulingMade(msgspec.Struct, frozen=True, tag="ruling_made", kw_only=True):
    """A referee's ruling, with his written reason; ``call``: the call it answers (closed by it), if any. It
    is stored with what the ruling does to the game (in the same append), and the stream's head after it is
    signed (a receipt of kind "ruling")."""

    schema_version: ClassVar[int] = 1
    ruling: RulingKind
    reason: str
    referee: str
    call: int | None = None
    part_no: int = 0


TABLE_EVENTS = (TableOpened, SeatHandedToBot, TableProposed, InvitationAccepted, InvitationDeclined, RefereeCalled,
                CallClaimed, RulingMade)


class HandSeatToBot(msgspec.Struct, frozen=True, tag="hand_seat_to_bot", kw_only=True):
    """A table's ruling: a bot plays ``seat`` from now on (its player's clock ran out, or he left)."""

    seat: int
    level: str
    reason: str


class CallReferee(msgspec.Struct, frozen=True, tag="call_referee", kw_only=True):
    """A seated player calls the referee (``RefereeCalled``)."""

    seat: int
    user: str
    reason: str
    note: str = ""
    index: int | None = None


class ClaimCall(msgspec.Struct, frozen=True, tag="claim_call", kw_only=True):
    call: int
    referee: str


class Rule(msgspec.Struct, frozen=True, tag="rule", kw_only=True):
    """A referee's ruling: ``command`` (the game's or the table's: what the ruling does; None for "reject"),
    decided as if sent alone, then ``RulingMade``. On a call (``call``), closing it: an accusation's "uphold"
    is the game's own accusation command, decided by the engine from the log."""

    ruling: str
    reason: str
    referee: str
    command: Any = None
    call: int | None = None


class Call(msgspec.Struct, frozen=True):
    """A call as the table's events make it."""

    call: int
    seat: int
    user: str
    reason: str
    note: str
    part_no: int
    index: int | None
    claimed_by: str | None = None
    ruling: str | None = None
    ruling_reason: str = ""
    ruled_by: str | None = None

    @property
    def open(self) -> bool:
        return self.ruling is None

    @property
    def status(self) -> str:
        return "ruled" if not self.open else "claimed" if self.claimed_by is not None else "open"


class AnswerInvitation(msgspec.Struct, frozen=True, tag="answer_invitation", kw_only=True):
    """An invited user takes his seat (``accept``) or refuses it, which cancels the table."""

    user: str
    accept: bool


class TableState(msgspec.Struct, frozen=True):
    """A table as its events make it: the invitation, the opening, who plays each seat, and the game."""

    opened: TableOpened | None = None
    game: Any = _FIRST.initial
    bots: tuple[str | None, ...] = (None, None, None, None)          # who plays each seat now
    proposed: TableOpened | None = None                              # a table waiting for its invitees
    waiting: tuple[str, ...] = ()                                    # invitees who have not accepted
    cancelled: bool = False                                          # an invitee declined
    calls: tuple[Call, ...] = ()                                     # the referee's calls, by number

    @property
    def table_id(self) -> str | None:
        o = self.opened or self.proposed
        return o.table_id if o else None

    @property
    def seats(self) -> tuple[str, ...]:
        o = self.opened or self.proposed
        return o.seats if o else ()


def game_of(table: TableState):
    """The game the table plays (``domain.games``), from its opening or its proposal."""
    o = table.opened or table.proposed
    return GAMES[o.game if o is not None else FIRST]


def evolve(table: TableState, e) -> TableState:
    """One event into the table: the table's own events here, the game's to the game (``table`` may be a
    subclass carrying more, e.g. the service's version and command ids: it is kept)."""
    replace = msgspec.structs.replace
    match e:
        case TableOpened():
            return replace(table, opened=e, bots=e.bots, waiting=(), game=GAMES[e.game].initial)
        case SeatHandedToBot():
            return replace(table, bots=table.bots[:e.seat] + (e.level,) + table.bots[e.seat + 1:])
        case TableProposed():
            return replace(table, proposed=e.table, waiting=e.waiting, game=GAMES[e.table.game].initial)
        case InvitationAccepted():
            return replace(table, waiting=tuple(u for u in table.waiting if u != e.user))
        case InvitationDeclined():
            return replace(table, cancelled=True)
        case RefereeCalled():
            return replace(table, calls=table.calls + (Call(e.call, e.seat, e.user, e.reason, e.note, e.part_no,
                                                            e.index),))
        case CallClaimed():
            return replace(table, calls=_with_call(table.calls, e.call, claimed_by=e.referee))
        case RulingMade():
            if e.call is None:
                return table
            return replace(table, calls=_with_call(table.calls, e.call, claimed_by=e.referee, ruling=e.ruling,
                                                   ruling_reason=e.reason, ruled_by=e.referee))
    return replace(table, game=GAMES[table.opened.game].evolve(table.game, e))


def _with_call(calls: tuple[Call, ...], number: int, **changes) -> tuple[Call, ...]:
    return tuple(msgspec.structs.replace(c, **changes) if c.call == number else c for c in calls)


def awaiting_referee(table: TableState) -> Call | None:
    """The open accusation (a call for "qayd") on the deal being played, if any: while it is open the deal's
    result waits for the referee (no review closes it, nothing else is played in its review)."""
    if table.opened is None:
        return None
    part = game_of(table).part_no(table.game)
    return next((c for c in table.calls if c.open and c.reason == "qayd" and c.part_no == part), None)


def _call(table: TableState, number: int) -> Call:
    call = next((c for c in table.calls if c.call == number), None)
    if call is None:
        raise DomainError("unknown_call", f"there is no call {number} at this table")
    return call


def _decide_call(table: TableState, command: CallReferee) -> list:
    game = game_of(table)
    if table.opened is None or table.game.phase != "playing":
        raise DomainError("game_not_playing", "the referee is called while the game is played")
    if not 0 <= command.seat < len(table.seats):
        raise DomainError("bad_seat", f"seat {command.seat} does not exist (seats are 0-{len(table.seats) - 1})")
    if command.reason not in CALL_REASONS:
        raise DomainError("bad_reason", f"a call's reason is one of {', '.join(CALL_REASONS)}")
    waiting = next((c for c in table.calls if c.open and c.seat == command.seat), None)
    if waiting is not None:
        raise DomainError("call_open", f"seat {command.seat}'s call {waiting.call} waits for the referee: one call "
                                       "at a time")
    if command.reason == "qayd":
        accusation = None if command.index is None else game.accusation(command.seat, command.index)
        if accusation is None:
            raise DomainError("no_accusation", "an accusation names the accused action (index) of a game that "
                                               "has them")
        game.decide(table.game, accusation)         # the engine's own checks (a recorded table, a real action,
                                                    # the other team's); its verdict is the referee's to apply
    elif command.index is not None:
        raise DomainError("bad_index", "only an accusation (reason \"qayd\") names an action")
    return [RefereeCalled(call=len(table.calls) + 1, seat=command.seat, user=command.user, reason=command.reason,
                          note=command.note, part_no=game.part_no(table.game), index=command.index)]


def _decide_claim(table: TableState, command: ClaimCall) -> list:
    call = _call(table, command.call)
    if not call.open:
        raise DomainError("call_ruled", f"call {call.call} was ruled already ({call.ruling})")
    if call.claimed_by is not None:
        raise DomainError("call_taken", f"call {call.call} is taken by another referee")
    return [CallClaimed(call=call.call, referee=command.referee)]


def _decide_rule(table: TableState, command: Rule, open_game) -> list:
    if not command.reason.strip() and (command.call is not None or command.ruling in ("reject", "uphold")):
        raise DomainError("ruling_reason", "a ruling on a call gives its reason")
    if command.call is not None:
        call = _call(table, command.call)
        if not call.open:
            raise DomainError("call_ruled", f"call {call.call} was ruled already ({call.ruling})")
        if call.claimed_by not in (None, command.referee):
            raise DomainError("call_taken", f"call {call.call} is taken by another referee")
        if command.ruling == "uphold":
            accusation = game_of(table).accusation(call.seat, call.index) if call.index is not None else None
            if call.reason != "qayd" or accusation is None:
                raise DomainError("nothing_to_uphold", f"call {call.call} accuses no action: rule on it otherwise")
            command = msgspec.structs.replace(command, command=accusation)
    elif command.ruling in ("uphold", "reject"):
        raise DomainError("no_call", f"a ruling to {command.ruling} answers a call: name it")
    # What the ruling does is decided as if no call waited (the referee is the one it waited for).
    events = [] if command.command is None else decide(msgspec.structs.replace(table, calls=()), command.command,
                                                       open_game)
    part = game_of(table).part_no(table.game) if table.opened is not None else 0
    return [*events, RulingMade(ruling=command.ruling, reason=command.reason.strip(), referee=command.referee,
                                call=command.call, part_no=part)]


def decide(table: TableState, command, open_game=None) -> list:
    """The events of a command at ``table``: the table's own commands, else the game's; DomainError naming
    the rule if refused.
    ``open_game(table_opened)`` gives the events that start the game (they need the server's seeds)."""
    match command:
        case CallReferee():
            return _decide_call(table, command)
        case ClaimCall():
            return _decide_claim(table, command)
        case Rule():
            return _decide_rule(table, command, open_game)
        case AnswerInvitation():
            return _decide_answer(table, command, open_game)
        case HandSeatToBot():
            return _decide_hand_to_bot(table, command)
    return _decide_game(table, command)


def _decide_answer(table: TableState, command: AnswerInvitation, open_game) -> list:
    """A decline cancels the table; the last acceptance opens its game."""
    if table.cancelled:
        raise DomainError("table_cancelled", "an invited player declined: this table will not open")
    if table.opened is not None or command.user not in table.waiting:
        raise DomainError("not_invited", f"{command.user} has no open invitation at this table")
    if not command.accept:
        return [InvitationDeclined(user=command.user)]
    last = table.waiting == (command.user,)
    return [InvitationAccepted(user=command.user), *(open_game(table.proposed) if last else ())]


def _decide_hand_to_bot(table: TableState, command: HandSeatToBot) -> list:
    if table.game.phase != "playing":
        raise DomainError("game_not_playing", f"the game is {table.game.phase}")
    if not 0 <= command.seat < len(table.seats):
        raise DomainError("bad_seat", f"seat {command.seat} does not exist "
                                      f"(seats are 0-{len(table.seats) - 1})")
    return [SeatHandedToBot(seat=command.seat, level=command.level, reason=command.reason)]


def _decide_game(table: TableState, command) -> list:
    """A command of the game's own, to its decider; none while a deal's result waits for the referee."""
    waiting = awaiting_referee(table)
    if waiting is not None and game_of(table).in_review(table.game):
        raise DomainError("awaiting_referee", f"the deal's result waits for the referee's ruling on call "
                                              f"{waiting.call}")
    return game_of(table).decide(table.game, command)


def timeout_command(opened: TableOpened, state, timeouts: tuple[int, ...], seat: int):
    """What the table does when ``seat``'s clock runs out (``timeouts``: the seats timed out in a row so far,
    with no player acting): under ``on_timeout`` "forfeit" the seat's side forfeits the game; once
    ``max_timeouts`` turns in a row have run out, the game is abandoned by the sides that timed out (where
    the game has such an end: a game of each for himself is played out); else a bot of the table's
    ``timeout_bot_level`` takes the seat ("bot") or the game plays the turn for it ("auto_play")."""
    game = GAMES[opened.game]
    run = timeouts + (seat,)
    if opened.on_timeout == "forfeit":
        return game.forfeit(state, seat, f"seat {seat}'s turn clock ran out")
    if len(run) >= opened.max_timeouts:
        abandon = game.abandon(state, run, f"{len(run)} turns in a row ran out with no player acting")
        if abandon is not None:
            return abandon
    if opened.on_timeout == "bot":
        return HandSeatToBot(seat=seat, level=opened.timeout_bot_level, reason="the turn clock ran out")
    return game.auto_play(state, seat)


class BotTurn(msgspec.Struct, frozen=True):
    """One bot turn of a run: the seat, its level, what it chose from its seat's view, and the events
    (its command's and what followed by itself); ``failure``: the bot failed (raised, or chose what the rules
    refuse), this is what the game plays for a seat whose clock ran out instead, and why."""

    seat: int
    level: str
    command: object
    events: list
    failure: str | None = None


def bot_seat(table: TableState) -> int | None:
    """The seat whose bot is to act now, or None (a person's turn, a review, nobody's turn, the game over)."""
    if table.opened is None:
        return None
    game = game_of(table)
    if game.in_review(table.game):
        return None
    seat = game.to_act(table.game)
    if seat is None or table.bots[seat] is None:
        return None
    return seat


def bot_run(table: TableState, choose, seed_of, limit: int = 512) -> tuple[list[BotTurn], TableState]:
    """The run of consecutive bot turns from ``table``, and the table after it: each bot chooses from
    exactly its seat's view (``choose(level, view)``, the view its game gives the seat), its command is
    decided and followed up as if it came alone, and the run stops at a person's turn, a review, the game's
    end, or once something followed by itself (a deal's or turn's seed revealed, the next one dealt), so
    that one append never spans two deals. At a table with a ``bot_pace`` the run is one turn: the next is
    due the pace after it is stored, a time that is not the rules' to know (the workers wait for it). A bot
    that fails plays what the table's clock would (``auto_play``), the failure kept in its turn. No turns if
    no bot is to act. (``table`` may be a subclass carrying more, e.g. the service's fold: the state after is
    the same type.)"""
    game = game_of(table)
    if table.opened is not None and table.opened.bot_pace > 0:
        limit = 1
    turns: list[BotTurn] = []
    while len(turns) < limit:
        seat = bot_seat(table)
        if seat is None:
            break
        level = table.bots[seat]
        failure = None
        try:
            command = choose(level, game.seat_view(table.game, seat))
            events, more, after = decide_followed(table, command, seed_of)
        except Exception as error:      # noqa: BLE001 - a failing bot never stalls its table
            failure = f"{type(error).__name__}: {error}"
            command = game.auto_play(table.game, seat)
            events, more, after = decide_followed(table, command, seed_of)
        table = after
        turns.append(BotTurn(seat, level, command, events + more, failure))
        if more:
            break
    return turns, table


def decide_followed(table: TableState, command, seed_of, open_game=None) -> tuple[list, list, TableState]:
    """``command`` decided at ``table`` (``decide``), what follows it by itself (its game's ``follow_on``:
    a deal's seed revealed, the next deal dealt), and the table after both, each event evolved once."""
    events = decide(table, command, open_game)
    for e in events:
        table = evolve(table, e)
    more = game_of(table).follow_on(table.game, seed_of, table.opened)
    for e in more:
        table = evolve(table, e)
    return events, more, table
