"""Deciding a deal (§6.3, §8, §9): card points to game points, failure and ties, Kaboot, doubling, Qayd."""

from __future__ import annotations

from domain.baloot.events import Contract, DealResult, QaydVerdict
from domain.baloot.profiles import RuleProfile
from domain.baloot.projects import Project

GAHWA_POINTS = 152
KABOOT_GP = {"hokum": 25, "sun": 44}
POT_GP = {"hokum": 16, "sun": 26}
HOKUM_CARD_POINTS = 162


def sun_gp(points: int) -> int:
    """Sun card points to GP: nearest ten keeping a trailing 5, ×2÷10 (65→13, 66→14, 64→12)."""
    q, r = divmod(points, 5)
    return q + (1 if q % 2 == 1 and r > 0 else 0)


def hokum_gp(points: tuple[int, int], rounding: str = "kammelna") -> tuple[int, int]:
    """Hokum card points of both teams to GP, so that they sum to 16 (96/66 → 9/7, 86/76 → 8/8)."""
    a, b = points
    if rounding == "no_abnat":
        # The side with more points is rounded (units above 5 up), the other side takes the rest of 16.
        hi = 0 if a >= b else 1
        q, r = divmod(points[hi], 10)
        top = q + (1 if r > 5 else 0)
        return (top, 16 - top) if hi == 0 else (16 - top, top)
    gp = [p // 10 + (1 if p % 10 > 5 else 0) for p in points]
    total = gp[0] + gp[1]
    if total in (15, 17):
        ua, ub = a % 10, b % 10
        if ua != ub:
            side = 0 if ua > ub else 1
        elif total == 17:
            side = 0 if a > b else 1          # equal digits: take from the side with more points
        else:
            side = 0 if a < b else 1          # equal digits: add to the side with fewer points
        gp[side] += -1 if total == 17 else 1
    return gp[0], gp[1]


def _pair(team: int, value: int) -> tuple[int, int]:
    return (value, 0) if team == 0 else (0, value)


def _add(*pairs) -> tuple[int, int]:
    return sum(p[0] for p in pairs), sum(p[1] for p in pairs)


def score_deal(profile: RuleProfile, contract: Contract, card_points: tuple[int, int], tricks: tuple[int, int],
               projects: list[Project], project_team: int | None, baloot: tuple[int, int]) -> DealResult:
    """The result of a played deal. ``baloot`` counts the Baloot announcements per team."""
    awarded = [p for p in projects if p.seat & 1 == project_team] if project_team is not None else []
    proj = _pair(project_team, sum(p.value for p in awarded)) if awarded else (0, 0)
    raw_proj = _pair(project_team, sum(p.raw for p in awarded)) if awarded else (0, 0)
    common = dict(card_points=card_points, tricks=tricks, projects=tuple(p.score() for p in awarded),
                  project_gp=proj)
    if profile.scoring == "card_points":
        return _score_card_points(profile, contract, card_points, tricks, proj, baloot, common)

    buyer_team = contract.buyer & 1
    other = 1 - buyer_team
    kind = contract.kind
    bal = (2 * baloot[0], 2 * baloot[1])
    mult = contract.multiplier
    notes = []
    kaboot_team = 0 if tricks[1] == 0 else 1 if tricks[0] == 0 else None

    def baloot_to(team: int) -> tuple[int, int]:
        if profile.baloot_on_failure == "holder":
            return bal
        return _pair(team, bal[0] + bal[1])

    def project_value(m: int) -> int:
        cap = profile.project_multiplier_cap
        return (proj[0] + proj[1]) * (m if cap is None else min(m, cap))

    if kaboot_team is not None:
        m = mult if profile.kaboot_multiplied else 1
        value = KABOOT_GP[kind] * m + project_value(m)
        notes.append(f"Kaboot (كبوت): team {'AB'[kaboot_team]} took all 8 tricks: {KABOOT_GP[kind]}"
                     f"{f' ×{m}' if m > 1 else ''} + projects {proj[0] + proj[1]}")
        gp = _add(_pair(kaboot_team, value), baloot_to(kaboot_team))
        if contract.gahwa:
            notes.append(f"Gahwa (قهوة): team {'AB'[kaboot_team]} wins the game")
            gp = _pair(kaboot_team, GAHWA_POINTS)
        return DealResult(game_points=gp, baloot=baloot_to(kaboot_team), kaboot=True,
                          failed=kaboot_team != buyer_team, winner=kaboot_team,
                          gahwa_winner=kaboot_team if contract.gahwa else None, notes=tuple(notes), **common)

    if kind == "sun":
        card_gp = (sun_gp(card_points[0]), sun_gp(card_points[1]))
    else:
        card_gp = hokum_gp(card_points, profile.hokum_rounding)
    g = _add(card_gp, proj)
    notes.append(f"card GP {card_gp[0]}/{card_gp[1]} + projects {proj[0]}/{proj[1]} = {g[0]}/{g[1]}")
    failed = split = tie = False
    if g[buyer_team] < g[other]:
        failed = True
        notes.append("the buyer's team has fewer GP: it fails (خسران)")
    elif g[buyer_team] == g[other]:
        tie = True
        raw = (card_points[0] + raw_proj[0] + 20 * baloot[0], card_points[1] + raw_proj[1] + 20 * baloot[1])
        if mult > 1:
            notes.append("equal GP in a doubled deal: the defenders lose the tie")
        elif kind == "hokum":
            failed = raw[buyer_team] <= raw[other]
            notes.append(f"equal GP in Hokum, raw totals {raw[0]}/{raw[1]}: "
                         + ("the buyer is not strictly higher and fails" if failed else "the buyer is higher"))
        elif raw[buyer_team] == raw[other] and profile.sun_equal_raw == "buyer_fails":
            failed = True
            notes.append(f"equal GP and raw totals {raw[0]}/{raw[1]} in Sun: the buyer fails (sun_equal_raw)")
        elif raw[buyer_team] == raw[other]:
            split = True
            notes.append(f"equal GP and raw totals {raw[0]}/{raw[1]} in Sun: the deal is split")
        else:
            failed = raw[buyer_team] < raw[other]
            notes.append(f"equal GP in Sun, raw totals {raw[0]}/{raw[1]}: "
                         + ("the buyer is lower and fails" if failed else "the buyer is higher"))
    winner = other if failed else buyer_team
    if mult > 1:
        value = POT_GP[kind] * mult + project_value(mult)
        notes.append(f"doubled ×{mult}: team {'AB'[winner]} takes ({POT_GP[kind]} + projects "
                     f"{proj[0] + proj[1]}) × {mult}")
        balance = baloot_to(winner) if failed or tie else bal
        gp = _add(_pair(winner, value), balance)
    elif failed:
        value = POT_GP[kind] + proj[0] + proj[1]
        notes.append(f"team {'AB'[other]} takes the whole pot: {POT_GP[kind]} + projects {proj[0] + proj[1]}")
        balance = baloot_to(other)
        gp = _add(_pair(other, value), balance)
    else:
        balance = bal
        gp = _add(g, bal)
    if any(bal):
        notes.append(f"Baloot (بلوت) {balance[0]}/{balance[1]}, never multiplied")
    gahwa_winner = None
    if contract.gahwa:
        gahwa_winner = winner
        notes.append(f"Gahwa (قهوة): team {'AB'[winner]} wins the game")
        gp = _pair(winner, GAHWA_POINTS)
    return DealResult(game_points=gp, card_gp=card_gp, baloot=balance, failed=failed, split=split,
                      winner=winner if (failed or mult > 1) else None, gahwa_winner=gahwa_winner,
                      notes=tuple(notes), **common)


def _score_card_points(profile, contract, card_points, tricks, proj, baloot, common) -> DealResult:
    """French Belote (§9): points stay card points; takers must beat the defenders."""
    takers = contract.buyer & 1
    other = 1 - takers
    bel = (20 * baloot[0], 20 * baloot[1])
    total = _add(card_points, proj, bel)
    capot_team = 0 if tricks[1] == 0 else 1 if tricks[0] == 0 else None
    notes = [f"totals with declarations and Belote {total[0]}/{total[1]}"]
    if capot_team is not None:
        # The capot replaces only the 162: declarations go where they would without it (§9), so a made
        # contract leaves the defenders their best declaration and a failed one gives them every one.
        notes.append(f"capot: team {'AB'[capot_team]} took all 8 tricks: {profile.capot_points}")
        if capot_team == takers:
            gp = _add(_pair(takers, profile.capot_points), proj, bel)
        else:
            gp = _add(_pair(other, profile.capot_points + proj[0] + proj[1]), bel)
        return DealResult(game_points=gp, baloot=bel, kaboot=True, failed=capot_team != takers,
                          winner=capot_team, notes=tuple(notes), **common)
    if total[takers] > total[other]:
        return DealResult(game_points=total, baloot=bel, notes=tuple(notes), **common)
    if total[takers] == total[other] and profile.dispute_carries:
        notes.append(f"dispute (litige): the takers' {total[takers]} are held for the next deal's winner")
        gp = _pair(other, total[other])
        return DealResult(game_points=gp, baloot=bel, held=total[takers], notes=tuple(notes), **common)
    notes.append(f"the takers fail (dedans): team {'AB'[other]} takes {HOKUM_CARD_POINTS} + declarations")
    gp = _add(_pair(other, HOKUM_CARD_POINTS + proj[0] + proj[1]), bel)
    return DealResult(game_points=gp, baloot=bel, failed=True, winner=other, notes=tuple(notes), **common)


def score_qayd(profile: RuleProfile, contract: Contract | None, verdict: QaydVerdict, card_points, tricks,
               declared: list[Project], baloot: tuple[int, int]) -> DealResult:
    """A Qayd ends the deal: the losing team gets 0, the other the full deal value plus its own projects."""
    loser = verdict.accused & 1 if verdict.proven else verdict.caller & 1
    return score_taken(profile, contract, 1 - loser, card_points, tricks, declared, baloot, verdict.message,
                       qayd=verdict)


def score_taken(profile: RuleProfile, contract: Contract | None, winner: int, card_points, tricks,
                declared: list[Project], baloot: tuple[int, int], why: str, *, qayd: QaydVerdict | None = None,
                awarded: str | None = None) -> DealResult:
    """The deal taken whole by team ``winner`` (a Qayd, or a referee's award): the other team gets 0, the
    winner the full deal value plus its own projects; ``why`` is the first note."""
    loser = 1 - winner
    kind = contract.kind if contract else "hokum"
    mult = contract.multiplier if contract else 1
    own = sum(p.value for p in declared if p.seat & 1 == winner)
    card_scoring = profile.scoring == "card_points"
    base = HOKUM_CARD_POINTS if card_scoring else POT_GP[kind] * mult
    unit = 20 if card_scoring else 2
    bal = (unit * baloot[0], unit * baloot[1])
    balance = bal if profile.baloot_on_failure == "holder" else _pair(winner, bal[0] + bal[1])
    gp = _add(_pair(winner, base + own), balance)
    notes = [why, f"team {'AB'[winner]} takes the deal: {base} + its projects {own}"]
    gahwa_winner = None
    if contract is not None and contract.gahwa:
        gahwa_winner = winner
        gp = _pair(winner, GAHWA_POINTS)
        notes.append(f"Gahwa (قهوة): team {'AB'[winner]} wins the game")
    scored = tuple(p.score() for p in declared if p.seat & 1 == winner)
    return DealResult(card_points=card_points, game_points=gp, tricks=tricks, projects=scored,
                      project_gp=_pair(winner, own), baloot=balance, failed=contract is not None and
                      contract.buyer & 1 == loser, winner=winner, gahwa_winner=gahwa_winner, qayd=qayd,
                      awarded=awarded, notes=tuple(notes))
