"""Deal reviews, the evaluation bar and a player's accuracy (services/review.py, services/evaluation.py,
docs/review.md). Who may read what is the access policy's (``records`` for a review, ``evaluation`` for the
bar) before anything is read."""

from __future__ import annotations

from litestar import Router, get
from litestar.params import FromPath

from services import evaluation, review
from services.api.deps import Caller, Gate, Pool, Tables, Who
from services.api.problems import Problem
from services import people


@get("/tables/{table_id:str}/deals/{deal_no:int}/review", operation_id="dealReview", refuses=(403, 404, 409),
     summary="A finished deal reviewed: each choice (card, bid, double) with what it cost by its chooser's own "
             "view, marked inaccuracy / mistake / blunder, the best he could have known and what the true hands "
             "said; a line per seat. Where the deal is not analysed yet, `status` is \"analysing\" (it has been "
             "put first in the queue): ask again. Readable where its hand record is")
async def deal_review(table_id: FromPath[str], deal_no: FromPath[int], viewer: Who, pool: Pool, tables: Tables,
                      access: Gate) -> review.DealReview:
    return await review.deal_review(pool, tables, access, viewer, table_id, deal_no)


@get("/tables/{table_id:str}/deals/{deal_no:int}/evaluation", operation_id="dealEvaluation",
     refuses=(403, 404),
     summary="The evaluation bar of a deal: after each card, the expected score of the deal and the buyer's "
             "chance of making it, from the true hands where the caller may see them (`basis` \"open\") or from "
             "what anyone watching may know (\"public\"); spectators behind the table's delay, never a player of "
             "the deal while it is played. Asking keeps the deal evaluated for a minute: poll while watching")
async def deal_evaluation(table_id: FromPath[str], deal_no: FromPath[int], viewer: Who, pool: Pool,
                          tables: Tables, access: Gate) -> evaluation.DealEvaluation:
    return await evaluation.deal_evaluation(pool, tables, access, viewer, table_id, deal_no)


@get("/players/{user_id:str}/accuracy", operation_id="playerAccuracy", refuses=(404,),
     summary="A player's accuracy by phase (bidding, leading, following, trumping) over the analysed deals of his "
             "own tables (shared boards are reviewed deal by deal once closed), and week by week")
async def player_accuracy(user_id: FromPath[str], user: Caller, pool: Pool) -> review.Accuracy:
    if await people.user(pool, user_id) is None:
        raise Problem(404, "unknown_user", f"there is no user {user_id!r}", field="user_id")
    return await review.accuracy(pool, user_id)


review_router = Router(tags=["tables"], path="/", route_handlers=[deal_review, deal_evaluation, player_accuracy])
