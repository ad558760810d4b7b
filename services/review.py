"""Deal reviews for players and spectators, and a player's accuracy over time (domain/baloot/review.py).

A review is made from what the analysers store for every finished deal: the fair-play analysis
(``fairplay_deals.decisions``: every choice's options valued on the true hands, and the bids and doubles from
the chooser's view) and the review's own values of the card choices (``view_values``: from the chooser's view,
the hidden cards sampled and each sample solved exactly; domain/baloot/viewvalues.py), which the analysers
compute for a deal whose review is asked for before anything else and for the others when idle. Where they are
not there yet, asking puts the deal at the head of the analysers' queue (``requested_at``) and answers
"analysing": the page asks again. Nothing is computed on the API's event loop.

**Who may read a review** is the policy's ``records`` rule (services/access/policy.py), the rule of the hand
record, because a review shows every seat's choices with the true hands' values: its players once the deal
is over (a shared board's only once every table of it is done: the review of a duplicate board would tell
the other tables what the cards said), spectators behind the table's delay where the table shows hands, the
officials. It never holds the fair-play analysis' flags, evidence or telling counts: those are the officials'
reports'.

A player's accuracy by phase (``accuracy``) sums ``review_seats``, which the analysers write with each deal:
his own choices (``by`` 'player': not a bot's seat, not a card the turn clock played for him), at tables of
his own only — a shared board's choices would show how a board still in play went (each deal's review shows
them once its boards are done).
"""

from __future__ import annotations

import datetime as dt

import msgspec

from domain.baloot.review import MARKS, PHASES, Reviewed, SeatSummary, review, summaries
from domain.table import game_of
from services.errors import Conflict
from services.fairplay.analyser import StoredDecision
from services.records import finished_deal, visible_events

WEEKS = 12            # the accuracy's weekly series goes this far back


class Mark(msgspec.Struct, frozen=True):
    mark: str
    least: float                 # GP of expected cost from which a choice is given this mark


class ReviewedChoice(msgspec.Struct, frozen=True):
    version: int                 # the stream version of the choice (the replay: /watch/table.html?id=…&at=…)
    choice: Reviewed


class DealReview(msgspec.Struct, frozen=True):
    table_id: str
    deal_no: int
    status: str                  # "done", "analysing" (asked again shortly) or "failed"
    seat: int | None             # the caller's seat at the table (None: not a player of it)
    seats: list[str]             # the table's seats (user ids)
    marks: list[Mark]
    choices: list[ReviewedChoice]
    seat_lines: list[SeatSummary]
    error: str | None = None


MARK_LINES = [Mark(m, least) for m, least in MARKS]


async def deal_review(pool, tables, access, viewer, table_id: str, deal_no: int) -> DealReview:
    """Deal ``deal_no`` of ``table_id`` reviewed, as ``viewer`` may read it (``records``: refused with
    ``board_hidden``/``hands_hidden`` as the hand record is; ``deal_in_progress`` before its end)."""
    rows = await visible_events(tables, access, table_id, viewer, hands=True)
    events = finished_deal(rows, deal_no)
    table = await tables.load(table_id)
    seats = list((table.opened or table.proposed).seats)
    mine = seats.index(viewer.user_id) if viewer.user_id in seats else None
    row = await pool.fetchrow("SELECT status, decisions, error, reviewed, view_values FROM fairplay_deals WHERE "
                              "table_id = $1 AND deal_no = $2", table_id, deal_no)
    if row is None and table.opened is not None and not _analysed_game(table):
        raise Conflict("no_review", f"table {table_id}'s game has no analysis to review its deals by")
    if row is not None and row["status"] == "failed":
        return DealReview(table_id, deal_no, "failed", mine, seats, MARK_LINES, [], [], row["error"])
    if row is None or not row["reviewed"]:
        # Not reviewed yet: to the head of the analysers' queue, or, not queued yet, to be put there when the
        # projection queues it.
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("INSERT INTO review_requests (table_id, deal_no) VALUES ($1, $2) ON CONFLICT DO "
                               "NOTHING", table_id, deal_no)
            await conn.execute("UPDATE fairplay_deals SET requested_at = coalesce(requested_at, now()) WHERE "
                               "table_id = $1 AND deal_no = $2 AND NOT reviewed", table_id, deal_no)
        return DealReview(table_id, deal_no, "analysing", mine, seats, MARK_LINES, [], [])
    stored = msgspec.json.decode(row["decisions"], type=list[StoredDecision])
    values = {int(k): tuple(v) for k, v in msgspec.json.decode(row["view_values"] or "{}").items()}
    reviewed = review(events, [s.decision for s in stored], [s.by for s in stored], values)
    choices = [ReviewedChoice(s.version, r) for s, r in zip(stored, reviewed)]
    return DealReview(table_id, deal_no, "done", mine, seats, MARK_LINES, choices, summaries(reviewed))


def _analysed_game(table) -> bool:
    return game_of(table).info.fair_play is not None


class PhaseAccuracy(msgspec.Struct, frozen=True):
    phase: str
    decisions: int
    accuracy: float              # the share of choices with no mark (cost under the first mark's threshold)
    cost: float                  # GP given away per choice, on average (his own view)
    inaccuracies: int
    mistakes: int
    blunders: int


class WeekAccuracy(msgspec.Struct, frozen=True):
    week: str                    # the ISO date of the week's Monday
    decisions: int
    accuracy: float
    cost: float


class Accuracy(msgspec.Struct, frozen=True):
    user_id: str
    deals: int
    phases: list[PhaseAccuracy]  # every phase, in PHASES' order (0 decisions where he had none)
    weeks: list[WeekAccuracy]    # the last WEEKS weeks he chose in, oldest first
    marks: list[Mark]


def _share(decisions: int, marked: int) -> float:
    return round(1.0 - marked / decisions, 4) if decisions else 0.0


async def accuracy(pool, user_id: str, now: dt.datetime | None = None) -> Accuracy:
    """``user_id``'s accuracy by phase over every deal of his own tables analysed so far, and week by week."""
    rows = await pool.fetch(
        "SELECT phase, sum(decisions)::int AS n, sum(cost) AS cost, sum(inaccuracies)::int AS i, "
        "sum(mistakes)::int AS m, sum(blunders)::int AS b FROM review_seats "
        "WHERE player = $1 AND by = 'player' AND NOT shared GROUP BY phase", user_id)
    by_phase = {r["phase"]: r for r in rows}
    phases = []
    for p in PHASES:
        r = by_phase.get(p)
        n = r["n"] if r else 0
        marked = (r["i"] + r["m"] + r["b"]) if r else 0
        phases.append(PhaseAccuracy(p, n, _share(n, marked), round(r["cost"] / n, 3) if n else 0.0,
                                    r["i"] if r else 0, r["m"] if r else 0, r["b"] if r else 0))
    since = (now or dt.datetime.now(dt.timezone.utc)) - dt.timedelta(weeks=WEEKS)
    weeks = await pool.fetch(
        "SELECT date_trunc('week', analysed_at)::date AS week, sum(decisions)::int AS n, sum(cost) AS cost, "
        "sum(inaccuracies + mistakes + blunders)::int AS marked FROM review_seats WHERE player = $1 AND "
        "by = 'player' AND NOT shared AND analysed_at >= $2 GROUP BY 1 ORDER BY 1", user_id, since)
    deals = await pool.fetchval("SELECT count(DISTINCT (table_id, deal_no)) FROM review_seats WHERE player = $1 AND "
                                "by = 'player' AND NOT shared", user_id)
    return Accuracy(user_id, deals, phases,
                    [WeekAccuracy(w["week"].isoformat(), w["n"], _share(w["n"], w["marked"]),
                                  round(w["cost"] / w["n"], 3) if w["n"] else 0.0) for w in weeks], MARK_LINES)
