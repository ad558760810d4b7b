"""Fair-play reports on a championship's players (or on one player over everything analysed), from the read
model the analyser keeps (``fairplay_seats`` for the sums, ``fairplay_deals`` for the decisions themselves).

Each player is judged on his own choices only (``by`` 'player' for a person, 'bot' for a bot's seat; a card the
turn clock played is nobody's), by the accumulated evidence of domain/baloot/fairplay.py ``judge``: over every
deal of the scope, how likely his choices are if he used the hidden cards against an honest player of his own
strength (fitted on his own decisions where the hidden cards did not matter; no other seat is the reference).
Four variants: ``true`` (telling cards: a ghost, a spectator feeding him), ``partner`` (cards right only given
his partner's hand: a colluding pair), ``shared`` (the true hands, on shared boards only, the daily deal and
duplicate: a second account that has seen today's board) and ``bids`` (bids and doubles). The flag's line is
corrected for how many are tested: every player of the scope in each of the four variants, so that the whole
report raises a false flag with probability at most ``level``. A flag is a reason for the referee to look at the
replays the report links, never a sanction.
"""

from __future__ import annotations

import msgspec

from domain.baloot.fairplay import judge, strengths, threshold
from services.fairplay.analyser import StoredDecision

LEVEL = 0.01                 # the chance that the whole report flags an honest player, at most
METHOD = ("docs/fairplay.md: each choice valued from the player's view (the hard bot's sampling) and exactly on "
          "the true hands (a perfect-information solver); per player, the likelihood ratio of his telling "
          "choices, cheating against an honest player of his own strength, accumulated over every deal "
          "(anytime-valid), flagged past log(players × variants / level).")
SANCTION = "A flag is a reason to look at the replays, never a verdict: a strong player and a lucky guess follow " \
           "the true hands too."


class VariantScore(msgspec.Struct, frozen=True):
    telling: int
    followed: int
    share: float
    baseline: float              # the share an honest player of his strength would follow (his own reference)
    p_value: float               # anytime-valid: exp(-evidence)
    flagged: bool
    evidence: float = 0.0        # log likelihood ratio, cheating : honest
    threshold: float = 0.0       # the evidence a flag needs in this report
    gain: float = 0.0            # GP his choices gained over his own honest bests on the telling decisions


class TellingDecision(msgspec.Struct, frozen=True):
    table_id: str
    deal_no: int
    version: int
    kind: str                    # "card", "bid" or "double"
    trick: int                   # 0 for a bid or a double
    played: str
    honest_best: str
    true_best: str
    partner_best: str | None
    loss: float                  # GP the honest best loses against the true best, on the true hands
    followed: str | None         # "true", "partner" or None (played neither)
    shared: bool
    replay: str                  # the page replaying the table at this card


class PlayerReport(msgspec.Struct, frozen=True):
    player: str
    name: str
    kind: str                    # "human" or "bot"
    deals: int
    decisions: int
    true: VariantScore
    partner: VariantScore
    shared: VariantScore
    bids: VariantScore
    flagged: bool
    most_telling: list[TellingDecision]


class FairPlayReport(msgspec.Struct, frozen=True):
    scope: str                   # "championship" or "player"
    championship_id: str | None
    deals_analysed: int
    deals_pending: int
    deals_failed: int
    level: float
    baseline: dict[str, float]
    players: list[PlayerReport]
    method: str = METHOD
    note: str = SANCTION


_SUMS = ("SELECT player, count(DISTINCT (table_id, deal_no)) AS deals, sum(decisions) AS decisions, "
         "sum(telling) AS telling, sum(followed) AS followed, sum(partner_telling) AS partner_telling, "
         "sum(followed_partner) AS followed_partner, sum(telling) FILTER (WHERE shared) AS shared_telling, "
         "sum(followed) FILTER (WHERE shared) AS shared_followed, sum(bid_telling) AS bid_telling, "
         "sum(bid_followed) AS bid_followed FROM fairplay_seats WHERE by <> 'clock' {where} "
         "GROUP BY player")
_FIELDS = ("telling", "followed", "partner_telling", "followed_partner", "shared_telling", "shared_followed",
           "bid_telling", "bid_followed")
_VARIANTS = {"true": ("telling", "followed"), "partner": ("partner_telling", "followed_partner"),
             "shared": ("shared_telling", "shared_followed"), "bids": ("bid_telling", "bid_followed")}


def _score(decisions: list, shared: list, fitted: dict, variant: str, level: float, tests: int) -> VariantScore:
    e = judge(shared if variant == "shared" else decisions, "true" if variant == "shared" else variant, level, tests,
              strength=fitted)
    return VariantScore(e.telling, e.followed, e.followed / e.telling if e.telling else 0.0,
                        e.expected / e.telling if e.telling else 0.0, e.p_value, e.flagged, round(e.evidence, 3),
                        round(threshold(level, tests), 3), round(e.gain, 2))


def _scores(entries: list, level: float, tests: int) -> dict[str, VariantScore]:
    """A player's four variants from his decisions (each with whether its board was shared); his strength is
    fitted once per kind of decision on all of them."""
    decisions = [d for d, _ in entries]
    fitted = strengths(decisions)
    shared = [d for d, sh in entries if sh]
    return {v: _score(decisions, shared, fitted, v, level, tests) for v in _VARIANTS}


def _scope(championship_id: str | None, player: str | None) -> tuple[str, list]:
    """The condition on ``fairplay_deals`` of a report's scope (a championship, a player's deals) and its
    arguments."""
    where, args = ["true"], []
    if championship_id is not None:
        args.append(championship_id)
        where.append(f"championship_id = ${len(args)}")
    if player is not None:
        args.append(player)
        where.append(f"${len(args)} = ANY (seats)")
    return " AND ".join(where), args


async def _decisions(db, championship_id: str | None, player: str | None = None) -> dict[str, list]:
    """Each player's own decisions in scope (the clock's cards are nobody's), with whether the board was shared."""
    where, args = _scope(championship_id, player)
    rows = await db.fetch(f"SELECT seats, shared, decisions FROM fairplay_deals WHERE status = 'done' AND {where}",
                          *args)
    out: dict[str, list] = {}
    for r in rows:
        seats = list(r["seats"])
        for s in msgspec.json.decode(r["decisions"], type=list[StoredDecision]):
            if s.by != "clock":
                out.setdefault(seats[s.decision.seat], []).append((s.decision, r["shared"]))
    return out


async def _counts(db, championship_id: str | None) -> dict[str, dict]:
    where, args = ("AND championship_id = $1", (championship_id,)) if championship_id is not None else ("", ())
    rows = await db.fetch(_SUMS.format(where=where), *args)
    return {r["player"]: {k: int(r[k] or 0) for k in ("deals", "decisions", *_FIELDS)} for r in rows}


async def _status(db, championship_id: str | None, player: str | None) -> dict[str, int]:
    """The deals in scope by status (done, pending, failed)."""
    where, args = _scope(championship_id, player)
    rows = await db.fetch(f"SELECT status, count(*) AS n FROM fairplay_deals WHERE {where} "
                          "GROUP BY status", *args)
    return {r["status"]: r["n"] for r in rows}


async def _telling(db, championship_id: str | None, player: str, limit: int | None) -> list[TellingDecision]:
    """The player's telling decisions (either variant), the costliest to an honest player first."""
    args = [player] + ([championship_id] if championship_id is not None else [])
    rows = await db.fetch(
        "SELECT table_id, deal_no, seats, shared, decisions FROM fairplay_deals WHERE status = 'done' AND "
        "$1 = ANY (seats)" + (" AND championship_id = $2" if championship_id is not None else ""), *args)
    out = []
    for r in rows:
        seats = list(r["seats"])
        for s in msgspec.json.decode(r["decisions"], type=list[StoredDecision]):
            d = s.decision
            if s.by == "clock" or seats[d.seat] != player or not (d.telling or d.partner_telling):
                continue
            best = d.true_best if d.telling else d.partner_best
            loss = d.true[d.legal.index(best)] - d.true[d.legal.index(d.honest_best)]
            out.append(TellingDecision(
                r["table_id"], r["deal_no"], s.version, d.kind, d.trick, d.played, d.honest_best, d.true_best,
                d.partner_best, round(loss, 2),
                "true" if d.followed_true else "partner" if d.followed_partner else None, r["shared"],
                f"/watch/table.html?id={r['table_id']}&at={s.version}"))
    out.sort(key=lambda t: (t.followed is None, -t.loss, t.table_id, t.deal_no, t.version))
    return out if limit is None else out[:limit]


async def _names(db, players) -> dict[str, tuple[str, str]]:
    rows = await db.fetch("SELECT user_id, name, kind FROM users WHERE user_id = ANY ($1)", list(players))
    return {r["user_id"]: (r["name"], r["kind"]) for r in rows}


def _totals(counts: dict[str, dict]) -> dict[str, int]:
    return {k: sum(c[k] for c in counts.values()) for k in _FIELDS}


async def _player(db, championship_id, player, mine, scores, names, telling_limit) -> PlayerReport:
    flagged = any(s.flagged for s in scores.values())
    name, kind = names.get(player, (player, "bot"))
    most = await _telling(db, championship_id, player, telling_limit) if flagged or telling_limit is None else []
    return PlayerReport(player, name, kind, mine["deals"], mine["decisions"], scores["true"], scores["partner"],
                        scores["shared"], scores["bids"], flagged, most)


def _baseline(total: dict) -> dict[str, float]:
    """Each variant's share over the whole scope (for reading only: each player is judged against his own
    honest reference, not this)."""
    return {v: (total[f] / total[t] if total[t] else 0.0) for v, (t, f) in _VARIANTS.items()}


async def championship_report(db, championship_id: str, *, level: float = LEVEL, limit: int = 50,
                              telling: int = 5) -> FairPlayReport:
    """Every player of the championship, the most suspicious first (the most evidence past its line, of the
    four variants), ``limit`` of them; a flagged player's ``telling`` most telling decisions, with replay links."""
    counts = await _counts(db, championship_id)
    total = _totals(counts)
    decisions = await _decisions(db, championship_id)
    tests = len(_VARIANTS) * len(counts)
    scores = {p: _scores(decisions.get(p, []), level, tests) for p in counts}
    ranked = sorted(counts, key=lambda p: (-max(s.evidence - s.threshold for s in scores[p].values()), p))
    names = await _names(db, ranked[:limit])
    players = [await _player(db, championship_id, p, counts[p], scores[p], names, telling) for p in ranked[:limit]]
    status = await _status(db, championship_id, None)
    return FairPlayReport("championship", championship_id, status.get("done", 0), status.get("pending", 0),
                          status.get("failed", 0), level, _baseline(total), players)


async def player_report(db, player: str, championship_id: str | None = None, *, level: float = LEVEL
                        ) -> FairPlayReport:
    """One player over the championship (None: everything analysed), every telling decision listed; the flag's
    line is corrected for every player of the same scope, as in the championship's report."""
    counts = await _counts(db, championship_id)
    total = _totals(counts)
    mine = counts.get(player)
    players = []
    if mine is not None:
        scores = _scores((await _decisions(db, championship_id, player)).get(player, []), level,
                         len(_VARIANTS) * len(counts))
        players = [await _player(db, championship_id, player, mine, scores, await _names(db, [player]), None)]
    status = await _status(db, championship_id, player)
    return FairPlayReport("player", championship_id, status.get("done", 0), status.get("pending", 0),
                          status.get("failed", 0), level, _baseline(total), players)
