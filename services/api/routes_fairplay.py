"""Fair-play reports (services/fairplay, docs/fairplay.md) for a championship's organisers and referees only
(and, for a player across everything he played, the platform's): who plays as if he saw hidden cards, with the
replays of his most telling decisions. Anyone else, a player or
a spectator of the championship included, is refused before anything is read: a report names players and
shows their hands' choices."""

from __future__ import annotations

from typing import Annotated

from litestar import Router, get
from litestar.params import FromPath, QueryParameter

from services.api.deps import Gate, Pool, Who
from services.api.problems import Problem
from services.fairplay import report
from services.fairplay.report import FairPlayReport
from services.access import policy

Level = Annotated[float, QueryParameter(gt=0, le=0.5, description="flag below this p-value")]


@get("/{championship_id:str}/fairplay", operation_id="fairPlayReport", refuses=(403,),
     summary="Organisers and referees: the championship's players, the most suspicious first, each judged by how "
             "often his telling card choices followed the true hands, his partner's hand, or (shared boards) the "
             "deal he should not have seen; a flag is a reason to look at the linked replays, never a sanction")
async def championship_fairplay(championship_id: FromPath[str], viewer: Who, pool: Pool, access: Gate,
                                level: Level = report.LEVEL,
                                limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 50) -> FairPlayReport:
    await access.championship(viewer, championship_id, policy.fair_play)
    return await report.championship_report(pool, championship_id, level=level, limit=limit)


@get("/{championship_id:str}/fairplay/players/{player_id:str}", operation_id="fairPlayPlayer", refuses=(403, 404),
     summary="Organisers and referees: one player of the championship, every telling decision with its replay")
async def player_fairplay(championship_id: FromPath[str], player_id: FromPath[str], viewer: Who, pool: Pool,
                          access: Gate, level: Level = report.LEVEL) -> FairPlayReport:
    await access.championship(viewer, championship_id, policy.fair_play)
    out = await report.player_report(pool, player_id, championship_id, level=level)
    if not out.players:
        raise Problem(404, "unknown_player", f"no analysed deal of championship {championship_id} has "
                                             f"{player_id!r} in a seat", field="player_id")
    return out


@get("/fairplay/players/{player_id:str}", operation_id="fairPlayPlayerEverywhere", refuses=(403, 404),
     summary="The platform's organisers and referees: one player over every analysed deal (championships, the "
             "daily deal, tables of their own), the baseline every other seat; every telling decision with its "
             "replay")
async def player_everywhere(player_id: FromPath[str], viewer: Who, pool: Pool, access: Gate,
                            level: Level = report.LEVEL) -> FairPlayReport:
    await access.platform(viewer, policy.platform_official)
    out = await report.player_report(pool, player_id, None, level=level)
    if not out.players:
        raise Problem(404, "unknown_player", f"no analysed deal has {player_id!r} in a seat", field="player_id")
    return out


fairplay_router = Router(tags=["championships"], path="/", route_handlers=[
    Router(path="/championships", route_handlers=[championship_fairplay, player_fairplay]), player_everywhere])
