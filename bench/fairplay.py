"""Fair-play validation (issue 48): recall of independent cheaters against the false flags of many kinds of
honest players, and the analysis' speed.

    python bench/fairplay.py [--quick] [--pool 300] [--players 1000] [--cheaters 200] [--deals 50 100 200 1000]
                             [--samples 16] [--jobs 1] [--cache /tmp/fp-pools] [--plot roc.png] [--no-build]

The players come from bench/fairplay_players.py, built without the detector's evaluator (its own exact
solver, other engines' styles, human-like slips): a validation whose cheaters use the detector's own
evaluator would only show that the detector agrees with itself. The detector is domain/baloot/fairplay.py,
used as the platform uses it: ``analyse_deal`` on a played deal's events, ``judge`` over a player's deals.

1. **Pools.** Each population is a table of four players (``POPULATIONS``) playing deals from their own
   seeds; each judged seat of an analysed deal is a *seat-deal* (its ``Decision``s). Analysing is the
   expensive part (seconds per seat-deal, bids most), so only the judged seats are analysed, and only the
   kinds of decision their variants read. Every analysed deal is appended to ``--cache``/<population>.jsonl
   (msgspec JSON, one deal a line, keyed by population and seed), so pools grow across runs and a run only
   analyses the seeds its cache lacks (``--no-build``: none, judge what is there).
2. **Players.** A player is N seat-deals drawn with replacement from one pool (one population's seat of a
   kind), judged by ``judge`` under his variant: ghosts ("ghost", and "ghost50"/"ghost25" cheating on that
   share) and "peek" (a ghost built on our normal bot) by the true hands on cards, the ghosts also by their
   bids ("bids": the players' ghosts bid as the honest hard bot, so this is a check that the bids variant
   does not flag them more than an honest hard player); colluding pairs ("pair") by their partner's hand; a
   *second account* (shared boards: a quarter of his deals seen in full beforehand, played as the ghost, the
   rest as the honest hard bot) by the true hands on that quarter only, his strength fitted on all his deals.
   Honest players are judged every such way (for the shared boards, a quarter of their deals marked shared).
   Honest populations: each honest kind against normal bots, mixed tables (heuristic beside hard, strong
   beside easy), and the *mixture*: a player whose deals come from every honest pool (a shared account, a
   player whose form varies: his fitted strength fits none of his deals well).
3. **Results.** For each variant, cheater and deal count: the recall at the lowest evidence line that flags
   at most 1 % of EVERY honest population (the binding population named), and at the platform's default
   line ``threshold(0.01, 20480 * 4)``; the false-positive rate of each honest population at that line and at
   ``threshold(0.01, 1)`` (one player tested once). ROC curves (worst honest population's FPR against the
   recall) as JSON beside ``--plot``, and as a PNG there when matplotlib is installed.
4. **Speed.** CPU seconds of analysis per judged seat-deal, cards and bids apart, and deals per second per
   core for a whole deal (four seats, every kind).

Judging a player replays ``judge`` from per-seat-deal sums (the likelihood of each strength on the fit set,
and each cheating share's log-likelihood ratio at each strength, on the telling decisions): ``judge`` sums the
same terms over the decisions of all his deals, so the per-deal sums add up to it exactly; the first players
of each pool are judged by ``judge`` itself as a check (``max |Δ evidence|`` in the output).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import math
import pathlib
import random
import sys
import time

import msgspec

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from bench.fairplay_players import table  # noqa: E402
from domain.baloot.fairplay import (  # noqa: E402
    GRID, MIN_TELLING, SHARES, VARIANTS, Decision, _best_set, analyse_deal, choice_loglik,
    choice_probabilities, evidence_terms, group_of, judge, play_deal, strengths, threshold,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
CARDS, CALLS = ("card",), ("bid", "double")


class Population(msgspec.Struct, frozen=True):
    name: str
    kinds: tuple[str, str, str, str]   # the player of each seat (bench/fairplay_players.py)
    seats: tuple[int, ...]             # the judged seats
    analysed: tuple[str, ...]          # the kinds of decision analysed
    honest: bool
    fit: bool = False                  # the calibration's own deals (``--fit``): never judged


ALL = CARDS + CALLS
POPULATIONS = tuple(Population(*p) for p in (
    ("easy", ("easy", "normal", "easy", "normal"), (0, 2), ALL, True),
    ("normal", ("normal", "normal", "normal", "normal"), (0, 2), ALL, True),
    ("hard", ("hard", "normal", "hard", "normal"), (0, 2), ALL, True),
    ("noisy", ("noisy", "normal", "noisy", "normal"), (0, 2), ALL, True),
    ("heuristic", ("heuristic", "normal", "heuristic", "normal"), (0, 2), ALL, True),
    ("strong", ("strong", "normal", "strong", "normal"), (0, 2), ALL, True),
    ("heuristic+hard", ("heuristic", "hard", "heuristic", "hard"), (0, 1, 2, 3), ALL, True),
    ("strong+easy", ("strong", "easy", "easy", "strong"), (0, 1, 2, 3), ALL, True),
    # The honest model's calibration is fitted on deals of the three bot levels of their own (other seeds).
    ("fit-easy", ("easy", "normal", "easy", "normal"), (0, 2), ALL, True, True),
    ("fit-normal", ("normal", "normal", "normal", "normal"), (0, 2), ALL, True, True),
    ("fit-hard", ("hard", "normal", "hard", "normal"), (0, 2), ALL, True, True),
    # The ghosts bid as the honest hard bot: their bids are analysed once (the full ghost), as a check.
    ("ghost", ("ghost", "normal", "hard", "normal"), (0,), ALL, False),
    ("ghost50", ("ghost50", "normal", "hard", "normal"), (0,), CARDS, False),
    ("ghost25", ("ghost25", "normal", "hard", "normal"), (0,), CARDS, False),
    ("pair", ("pair", "normal", "pair", "normal"), (0, 2), CARDS, False),
    ("peek", ("peek", "normal", "hard", "normal"), (0,), CARDS, False),
))
BY_NAME = {p.name: p for p in POPULATIONS}

# How each cheater is judged: (mode, cheater, its pool). A mode is a variant of ``judge``, or "shared": the
# "true" variant on a quarter of the player's deals (the shared boards), his strength fitted on all of them.
MODES = ("true", "bids", "partner", "shared")
CHEATERS = (("true", "ghost", "ghost/ghost"), ("true", "ghost50", "ghost50/ghost50"),
            ("true", "ghost25", "ghost25/ghost25"), ("true", "peek", "peek/peek"),
            ("bids", "ghost", "ghost/ghost"), ("partner", "pair", "pair/pair"),
            ("shared", "second account", "ghost/ghost"))
SHARED = 0.25                        # the share of a second account's deals on shared boards
FPR = 0.01
DEFAULT_LINE = threshold(0.01, 20480 * 4)
ONE_TEST = threshold(0.01, 1)
MINUS = -1e12                        # stands for log 0 in sums (a full ghost missing the true best)


class SeatDeal(msgspec.Struct, frozen=True):
    seat: int
    player: str
    decisions: list[Decision]


class Record(msgspec.Struct, frozen=True):
    population: str
    seed: str
    samples: int
    analysed: tuple[str, ...]
    seats: list[SeatDeal]
    play_s: float                    # CPU seconds to play the deal
    cards_s: float                   # CPU seconds to analyse the judged seats' cards
    calls_s: float                   # ... their bids and doubles
    code: str                        # the analysis' source version (solver and detector)


def code_version() -> str:
    h = hashlib.sha256()
    for f in ("domain/baloot/solver.py", "domain/baloot/fairplay.py"):
        h.update((ROOT / f).read_bytes())
    return h.hexdigest()[:10]


def hash_seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


# ================================================================ pools


def analyse(job: tuple) -> bytes | str:
    """One deal of a population played and its judged seats analysed: the encoded ``Record`` (or the error)."""
    name, n, samples, code = job
    pop = BY_NAME[name]
    seed = f"fp-{name}-{n}"
    try:
        start = time.process_time()
        events = play_deal(seed, table(pop.kinds, hash_seed(seed)), dealer=hash_seed(seed) % 4)
        played = time.process_time()
        aseed = hash_seed(seed) + 1
        decisions = analyse_deal(events, aseed, samples, seats=pop.seats, kinds=CARDS)
        cards = time.process_time()
        if set(CALLS) & set(pop.analysed):
            decisions += analyse_deal(events, aseed, samples, seats=pop.seats, kinds=CALLS)
        calls = time.process_time()
    except Exception as e:                                  # a player's bug: reported, not cached
        return f"{name} {seed}: {type(e).__name__}: {e}"
    seats = [SeatDeal(s, pop.kinds[s], [d for d in decisions if d.seat == s]) for s in pop.seats]
    return msgspec.json.encode(Record(name, seed, samples, pop.analysed, seats, played - start, cards - played,
                                      calls - cards, code))


def load(cache: pathlib.Path) -> dict[str, dict[str, Record]]:
    """The cached records by population and seed (the first of duplicates)."""
    out: dict[str, dict[str, Record]] = {}
    decoder = msgspec.json.Decoder(Record)
    for pop in POPULATIONS:
        f = cache / f"{pop.name}.jsonl"
        recs = out.setdefault(pop.name, {})
        if f.exists():
            for line in f.read_bytes().splitlines():
                if line.strip():
                    try:
                        r = decoder.decode(line)
                    except msgspec.DecodeError:                 # a line cut short by a killed run
                        continue
                    if r.analysed == pop.analysed:
                        recs.setdefault(r.seed, r)
    return out


def build(args, records) -> None:
    """Analyse the deals the cache lacks up to ``--pool`` per population, round robin over the populations
    (a run stopped early leaves every pool grown alike), appending each to the cache as it comes."""
    code = code_version()
    jobs = [(p.name, n, args.samples, code) for n in range(args.first, args.pool) for p in POPULATIONS
            if f"fp-{p.name}-{n}" not in records[p.name]]
    if not jobs:
        return
    print(f"analysing {len(jobs)} deals ({args.jobs} processes) into {args.cache}", file=sys.stderr, flush=True)
    args.cache.mkdir(parents=True, exist_ok=True)
    files = {p.name: open(args.cache / f"{p.name}.jsonl", "ab") for p in POPULATIONS}
    start, done = time.perf_counter(), 0
    try:
        with concurrent.futures.ProcessPoolExecutor(args.jobs) as ex:
            for job, out in zip(jobs, ex.map(analyse, jobs)):
                done += 1
                if isinstance(out, str):
                    print(f"  failed: {out}", file=sys.stderr, flush=True)
                    continue
                files[job[0]].write(out + b"\n")
                files[job[0]].flush()
                r = msgspec.json.decode(out, type=Record)
                records[job[0]][r.seed] = r
                print(f"  {done}/{len(jobs)} {r.seed}: play {r.play_s:.1f} s, cards {r.cards_s:.1f} s, "
                      f"calls {r.calls_s:.1f} s ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    finally:
        for f in files.values():
            f.close()


# ================================================================ judging from per-seat-deal sums


class Pool:
    """A pool's seat-deals as columns of ``judge``'s sums, per variant and group of decisions (cards, calls):
    ``fit[v, grp][g]`` each seat-deal's log likelihood of strength ``GRID[g]`` on its fit set, ``fits[v, grp]``
    its fit set's size, ``logs[v, grp][g][j]`` the log-likelihood ratio of cheating share ``SHARES[j]`` at
    strength ``g`` on its telling decisions, ``telling[v, grp]`` how many those are."""

    def __init__(self, name: str, deals: list[list[Decision]]):
        self.name, self.deals = name, deals
        self.fit, self.fits, self.logs, self.telling, self.followed = {}, {}, {}, {}, {}
        if not deals:
            return
        for key in PARTS:
            cols = [deal_sums(d, *key) for d in deals]
            self.fit[key] = [[c[0][g] for c in cols] for g in range(len(GRID))]
            self.fits[key] = [c[1] for c in cols]
            self.logs[key] = [[[c[2][g][j] for c in cols] for j in range(len(SHARES))] for g in range(len(GRID))]
            self.telling[key] = [c[3] for c in cols]
            self.followed[key] = [c[4] for c in cols]

    def __len__(self):
        return len(self.deals)

    def drift(self, variant: str) -> float:
        """The evidence a player of this pool gains per seat-deal in the long run (his strength fitted on the
        whole pool): the best share's mean log-likelihood ratio. Below 0 for an honest player the model fits
        (the evidence then drifts down); above 0, every such player is flagged once he has played enough."""
        everything = {i: 1 for i in range(len(self))}
        ev_logs = _logs([(self, everything, everything)], variant)
        return max(ev_logs) / len(self) if ev_logs else 0.0

    @classmethod
    def union(cls, name: str, pools: list[Pool]) -> Pool:
        """Every seat-deal of ``pools`` (their columns joined, not recomputed)."""
        out = cls(name, [])
        out.deals = [d for p in pools for d in p.deals]
        for k in PARTS:
            out.fit[k] = [sum((p.fit[k][g] for p in pools), []) for g in range(len(GRID))]
            out.fits[k] = sum((p.fits[k] for p in pools), [])
            out.logs[k] = [[sum((p.logs[k][g][j] for p in pools), []) for j in range(len(SHARES))]
                           for g in range(len(GRID))]
            out.telling[k] = sum((p.telling[k] for p in pools), [])
            out.followed[k] = sum((p.followed[k] for p in pools), [])
        return out


# Each variant's groups of decisions: its parts, judged with a strength each.
PARTS = tuple((v, grp) for v, (_, groups) in VARIANTS.items() for grp in groups)


def deal_sums(decisions, variant: str, group: str):
    """One seat-deal's share of ``judge``'s sums for one group of a variant (``judge``'s own terms)."""
    telling_of = VARIANTS[variant][0]
    fit = [0.0] * len(GRID)
    fits = 0
    logs = [[0.0] * len(SHARES) for _ in GRID]
    n = followed = 0
    for d in decisions:
        if group_of(d) != group:
            continue
        if not d.telling and not d.partner_telling:
            fits += 1
            for g, strength in enumerate(GRID):
                fit[g] += choice_loglik(d, strength)
        if not getattr(d, telling_of):
            continue
        n += 1
        followed += d.legal.index(d.played) in _best_set(d, variant)
        for g, strength in enumerate(GRID):
            for j, t in enumerate(evidence_terms(d, variant, strength)):
                logs[g][j] += t if t > -math.inf else MINUS
    return fit, fits, logs, n, followed


def _dot(counts: dict, col: list) -> float:
    return sum(c * col[i] for i, c in counts.items())


def _logs(parts, variant: str) -> list[float]:
    """Each cheating share's log-likelihood ratio over a player's ``parts``, each group at its fitted strength
    (empty when he has no telling decision)."""
    total, n = [0.0] * len(SHARES), 0
    for key in (k for k in PARTS if k[0] == variant):
        fits = sum(_dot(fc, pool.fits[key]) for pool, fc, _ in parts)
        if fits:
            lls = [sum(_dot(fc, pool.fit[key][g]) for pool, fc, _ in parts) for g in range(len(GRID))]
            g = max(range(len(GRID)), key=lls.__getitem__)      # the first of equals, as ``fit_strength``
        else:
            g = len(GRID) - 1
        n += sum(_dot(jc, pool.telling[key]) for pool, _, jc in parts)
        total = [x + sum(_dot(jc, pool.logs[key][g][j]) for pool, _, jc in parts) for j, x in enumerate(total)]
    return total if n else []


def evidence(parts, variant: str) -> tuple[float, int]:
    """A player's (evidence, telling) from ``parts``: (pool, counts of its seat-deals in his fit, counts in his
    judged decisions), as ``judge`` would find on those decisions."""
    n = sum(_dot(jc, pool.telling[key]) for key in PARTS if key[0] == variant for pool, _, jc in parts)
    logs = _logs(parts, variant)
    if not n or not logs:
        return 0.0, 0
    top = max(logs)
    return top + math.log(sum(math.exp(x - top) for x in logs) / len(logs)), int(n)


def score(ev: float, telling: int) -> float:
    """What the line is drawn on: the evidence, where the player has enough telling decisions to be flagged."""
    return ev if telling >= MIN_TELLING else -math.inf


def _counts(idx) -> dict:
    out: dict = {}
    for i in idx:
        out[i] = out.get(i, 0) + 1
    return out


def draw_player(rng, pool: Pool, n: int, mode: str, cheat: Pool | None = None):
    """One player of ``n`` deals from ``pool`` judged in ``mode``: the ``evidence`` parts and the seat-deals
    (for the check against ``judge``). A second account (``cheat``) plays his shared quarter from ``cheat``."""
    idx = rng.choices(range(len(pool)), k=n)
    if mode != "shared":
        c = _counts(idx)
        return [(pool, c, c)], [(pool, i) for i in idx]
    k = round(SHARED * n)
    if cheat is None:
        c, s = _counts(idx), _counts(idx[n - k:])       # the shared quarter: the last (as ``judged_directly``)
        return [(pool, c, s)], [(pool, i) for i in idx]
    sidx = rng.choices(range(len(cheat)), k=k)
    rest, s = _counts(idx[k:]), _counts(sidx)
    return [(pool, rest, {}), (cheat, s, s)], [(pool, i) for i in idx[k:]] + [(cheat, i) for i in sidx]


def judged_directly(deals, mode: str, k: int) -> float:
    """``judge`` itself on a drawn player's seat-deals (the shared quarter: the last ``k`` of them)."""
    variant = "true" if mode == "shared" else mode
    every = [d for pool, i in deals for d in pool.deals[i]]
    if mode != "shared":
        return judge(every, variant).evidence
    return judge([d for pool, i in deals[-k:] for d in pool.deals[i]], variant, strength=strengths(every)).evidence


# ================================================================ the calibration (--fit)


def fit_calibration(records) -> dict:
    """(a, b) per variant and group: the logistic regression of following on logit(p), p the honest model's
    share of the bests at the player's strength, over the fit pools' telling decisions (each seat kind of a
    pool one player: his strength fitted on all its deals), then ``a`` raised until no level follows more
    often, on average, than the calibration predicts (so that an honest player's evidence drifts down)."""
    players = []                                  # (level, decisions)
    for pop in POPULATIONS:
        if pop.fit:
            by_kind: dict[str, list] = {}
            for r in records[pop.name].values():
                for sd in r.seats:
                    by_kind.setdefault(sd.player, []).extend(sd.decisions)
            players += [(pop.name, ds) for ds in by_kind.values()]
    out = {}
    for variant, group in PARTS:
        telling_of = VARIANTS[variant][0]
        rows = []                                 # (level, logit p, followed)
        for level, ds in players:
            fitted = strengths(ds)[group]
            for d in ds:
                if group_of(d) == group and getattr(d, telling_of):
                    probs = choice_probabilities(d.honest, *fitted)
                    p = min(max(sum(probs[i] for i in _best_set(d, variant)), 1e-9), 1 - 1e-9)
                    rows.append((level, math.log(p / (1 - p)), d.legal.index(d.played) in _best_set(d, variant)))
        if len(rows) < 20:
            print(f"{variant}/{group}: {len(rows)} telling decisions: too few to fit", file=sys.stderr)
            continue
        a, b = _logistic([(x, y) for _, x, y in rows])
        levels = sorted({lv for lv, _, _ in rows})

        def short(a_):                            # the levels the calibration under-predicts, by how much
            return max(sum(y for lv, _, y in rows if lv == L) - sum(_sigmoid(a_ + b * x) for lv, x, _ in rows
                                                                     if lv == L) for L in levels)

        lo, hi = a, a + 5.0
        if short(lo) > 0:
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if short(mid) > 0 else (lo, mid)
            a = hi
        out[(variant, group)] = (round(a, 3), round(b, 3))
        per = ", ".join(f"{L}: {sum(y for lv, _, y in rows if lv == L)}/{sum(lv == L for lv, _, _ in rows)} "
                        f"followed, {sum(_sigmoid(a + b * x) for lv, x, _ in rows if lv == L):.1f} predicted"
                        for L in levels)
        print(f"{variant}/{group}: a = {a:.3f}, b = {b:.3f} over {len(rows)} telling decisions ({per})")
    return out


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def _logistic(rows) -> tuple[float, float]:
    """Maximum-likelihood (a, b) of P(y) = σ(a + b x), by Newton's method."""
    a, b = 0.0, 1.0
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in rows:
            q = _sigmoid(a + b * x)
            w = q * (1 - q)
            ga += y - q
            gb += (y - q) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        if det <= 1e-12:
            break
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-9:
            break
    return a, b


# ================================================================ the report


def pools_of(records) -> dict[str, Pool]:
    """A pool per population's seat of a kind ("hard/hard", "heuristic+hard/heuristic"), and the mixture."""
    seat_deals: dict[str, list] = {}
    for pop in POPULATIONS:
        for r in sorted(records[pop.name].values(), key=lambda r: int(r.seed.rsplit("-", 1)[1])):
            for s in r.seats:
                seat_deals.setdefault(f"{pop.name}/{s.player}", []).append(s.decisions)
    pools = {k: Pool(k, v) for k, v in seat_deals.items() if v and not BY_NAME[k.split("/")[0]].fit}
    honest = [p for k, p in pools.items() if BY_NAME[k.split("/")[0]].honest]
    if honest:
        pools["mixture"] = Pool.union("mixture", honest)
    return pools


def line_at(honest_scores: list[float]) -> float:
    """The lowest line (flag above it) flagging at most FPR of these players."""
    h = sorted(honest_scores, reverse=True)
    return h[min(int(FPR * len(h)), len(h) - 1)]


def rate(scores, line: float, strict: bool = False) -> float:
    return sum(s > line if strict else s >= line for s in scores) / len(scores)


def judge_all(args, pools: dict[str, Pool]):
    rng = random.Random("bench-fairplay")
    honest_keys = [k for k in pools if k == "mixture" or BY_NAME[k.split("/")[0]].honest]
    recall_rows, fp_rows, curves = [], [], {}
    worst_delta, checked = 0.0, 0

    def run(pool, n, mode, count, cheat=None):
        nonlocal worst_delta, checked
        out = []
        for i in range(count):
            parts, deals = draw_player(rng, pool, n, mode, cheat)
            ev, telling = evidence(parts, "true" if mode == "shared" else mode)
            if i < args.check and n == min(args.deals):
                worst_delta = max(worst_delta, abs(ev - judged_directly(deals, mode, round(SHARED * n))))
                checked += 1
            out.append(score(ev, telling))
        return out

    for mode in MODES:
        for n in args.deals:
            honest = {k: run(pools[k], n, mode, args.players) for k in honest_keys}
            lines = {k: line_at(v) for k, v in honest.items()}
            binding = max(lines, key=lines.__getitem__)
            for k, v in honest.items():
                fp_rows.append((mode, k, n, rate(v, DEFAULT_LINE), rate(v, ONE_TEST), lines[k]))
            for m, cheater, key in CHEATERS:
                if m != mode or key not in pools:
                    continue
                if mode == "shared":
                    if "hard/hard" not in pools:
                        continue
                    c = run(pools["hard/hard"], n, mode, args.cheaters, pools[key])
                else:
                    c = run(pools[key], n, mode, args.cheaters)
                recall_rows.append((mode, cheater, n, lines[binding], binding, rate(c, lines[binding], True),
                                    rate(c, DEFAULT_LINE), rate(c, ONE_TEST)))
                curves.setdefault(mode, {}).setdefault(cheater, {})[n] = roc(honest, c)
    return recall_rows, fp_rows, curves, (checked, worst_delta)


def roc(honest: dict[str, list], cheaters: list[float], points: int = 200):
    """(line, worst honest population's FPR, recall) as the line falls, flagging above it."""
    lines = sorted({s for s in cheaters if s > -math.inf} | {s for v in honest.values() for s in v if s > -math.inf},
                   reverse=True)
    step = max(1, len(lines) // points)
    return [(x, max(rate(v, x) for v in honest.values()), rate(cheaters, x)) for x in lines[::step]]


def speed(records) -> list[tuple]:
    """Per population: seat-deals timed, CPU s per seat-deal of cards and of calls, play s per deal (the
    current code's records, else every record)."""
    code = code_version()
    rows = []
    for pop in POPULATIONS:
        recs = list(records[pop.name].values())
        current = [r for r in recs if r.code == code]
        recs = current or recs
        if not recs:
            continue
        seats = sum(len(r.seats) for r in recs)
        rows.append((pop.name, len(recs), bool(current), sum(r.cards_s for r in recs) / seats,
                     sum(r.calls_s for r in recs) / seats if set(CALLS) & set(pop.analysed) else None,
                     sum(r.play_s for r in recs) / len(recs)))
    return rows


def report(args, records, pools, recall_rows, fp_rows, check) -> None:
    p = print
    p(f"# Fair-play validation (bench/fairplay.py)\n\n{args.players} honest players per population, "
      f"{args.cheaters} cheaters per kind, drawn from the pools below; default line "
      f"threshold(0.01, 20480*4) = {DEFAULT_LINE:.2f}, one test threshold(0.01, 1) = {ONE_TEST:.2f}; "
      f"a flag needs >= {MIN_TELLING} telling decisions. Checked against `judge` itself on {check[0]} players: "
      f"max |Δ evidence| = {check[1]:.2g}.\n")
    smallest = min(len(pool) for pool in pools.values())
    if smallest < max(args.deals):
        p(f"Caution: the smallest pool has {smallest} seat-deals; a player of {max(args.deals)} deals repeats each "
          f"about {max(args.deals) / smallest:.0f} times, so one odd seat-deal becomes a trait of every player drawn "
          f"from it (the rates at that many deals are only as good as the pools are large).\n")
    p("## Pools\n\ndrift: the evidence gained per seat-deal in the long run (``Pool.drift``; above 0 an honest pool's "
      "players are all flagged in the end, below 0 none).\n")
    p("| pool | seat-deals | telling per seat-deal (true / partner / bids) | followed true best "
      "| drift (true / partner / bids) |")
    p("|---|---:|---|---:|---|")
    for k, pool in pools.items():
        t = {v: sum(sum(pool.telling[k]) for k in PARTS if k[0] == v) / len(pool) for v in VARIANTS}
        f = sum(pool.followed["true", "cards"]) / max(1, sum(pool.telling["true", "cards"]))
        dr = " / ".join(f"{pool.drift(v):+.2f}" for v in ("true", "partner", "bids"))
        p(f"| {k} | {len(pool)} | {t['true']:.2f} / {t['partner']:.2f} / {t['bids']:.2f} | {f:.0%} | {dr} |")
    p("\n## Recall\n\nline: the lowest evidence flagging <= 1 % of every honest population (flag above it), and the "
      "population that sets it.\n")
    p("| variant | cheater | deals | line | binding honest population | recall @ line | recall @ default line "
      "| recall @ threshold(0.01, 1) |")
    p("|---|---|---:|---:|---|---:|---:|---:|")
    for mode, cheater, n, line, binding, r, rd, r1 in recall_rows:
        p(f"| {mode} | {cheater} | {n} | {line:.2f} | {binding} | {r:.1%} | {rd:.1%} | {r1:.1%} |")
    p("\n## False positives of honest players\n\nEach cell: FPR at the default line / at threshold(0.01, 1) · "
      "the population's own 1 % line.\n")
    ns = list(args.deals)
    p("| variant | honest population | " + " | ".join(f"{n} deals" for n in ns) + " |")
    p("|---|---|" + "---|" * len(ns))
    cells: dict = {}
    for mode, k, n, fd, f1, line in fp_rows:
        cells.setdefault((mode, k), {})[n] = f"{fd:.1%} / {f1:.1%} · {line:.1f}"
    for (mode, k), row in cells.items():
        p(f"| {mode} | {k} | " + " | ".join(row.get(n, "") for n in ns) + " |")
    p("\n## Speed (CPU seconds of analysis per judged seat-deal)\n")
    p("| population | deals | current code | cards | bids and doubles | play per deal |")
    p("|---|---:|---|---:|---:|---:|")
    rows = speed(records)
    for name, n, current, cards, calls, play in rows:
        p(f"| {name} | {n} | {'yes' if current else 'no'} | {cards:.2f} | {'-' if calls is None else f'{calls:.2f}'} "
          f"| {play:.2f} |")
    honest = [r for r in rows if BY_NAME[r[0]].honest and r[4] is not None]
    if honest:
        weight = sum(r[1] for r in honest)
        cards = sum(r[3] * r[1] for r in honest) / weight
        calls = sum(r[4] * r[1] for r in honest) / weight
        p(f"\nHonest tables: {cards:.2f} s cards + {calls:.2f} s bids per seat; a whole deal (four seats, every "
          f"kind) {4 * (cards + calls):.1f} CPU s = {1 / (4 * (cards + calls)):.3f} deals/s per core "
          f"(cards only: {1 / (4 * cards):.3f}).")


def plot(curves, path: pathlib.Path) -> None:
    """The ROC curves as JSON beside ``path`` and, with matplotlib, as a PNG at it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {m: {c: {str(n): pts for n, pts in v.items()} for c, v in cs.items()} for m, cs in curves.items()}
    path.with_suffix(".json").write_text(json.dumps(data))
    try:
        import matplotlib
    except ImportError:
        print(f"\nROC curves: {path.with_suffix('.json')} (no matplotlib: no PNG)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(m, c) for m, cs in curves.items() for c in cs]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.8), sharey=True, squeeze=False)
    for ax, (mode, cheater) in zip(axes[0], panels):
        for n, pts in sorted(curves[mode][cheater].items()):
            ax.plot([max(f, 1e-4) for _, f, _ in pts], [r for _, _, r in pts], drawstyle="steps-post",
                    label=f"{n} deals")
        ax.axvline(FPR, color="grey", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        ax.set_xlim(1e-3, 1)
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{cheater} ({mode})", fontsize=9)
        ax.set_xlabel("worst honest population's FPR")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("recall")
    axes[0][-1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"\nROC curves: {path} and {path.with_suffix('.json')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=300, help="analysed deals per population (cached)")
    parser.add_argument("--first", type=int, default=0, help="the first deal number to analyse (another process "
                                                             "may build the numbers before it into the same cache)")
    parser.add_argument("--players", type=int, default=1000, help="honest players per population")
    parser.add_argument("--cheaters", type=int, default=200, help="players of each cheating kind")
    parser.add_argument("--deals", type=int, nargs="+", default=[50, 100, 200, 1000], help="deals per player")
    parser.add_argument("--samples", type=int, default=16, help="deals of the hidden cards per decision")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--cache", type=pathlib.Path, default=pathlib.Path("/tmp/fp-pools"))
    parser.add_argument("--check", type=int, default=3, help="players per pool and variant judged by judge itself")
    parser.add_argument("--plot", type=pathlib.Path, help="the ROC curves: PNG here (matplotlib), JSON beside it")
    parser.add_argument("--no-build", action="store_true", help="analyse nothing: judge the cached pools")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 8 deals per population, fewer players")
    parser.add_argument("--fit", action="store_true", help="fit the honest model's calibration on the fit pools "
                                                           "(domain/baloot/fairplay.py CALIBRATION) and stop")
    args = parser.parse_args()
    if args.quick:
        args.pool, args.players, args.cheaters = min(args.pool, 8), min(args.players, 200), min(args.cheaters, 100)

    records = load(args.cache)
    if not args.no_build:
        build(args, records)
    if args.fit:
        print("CALIBRATION =", fit_calibration(records))
        return
    pools = pools_of(records)
    if not any(BY_NAME[k.split("/")[0]].honest for k in pools if k != "mixture"):
        sys.exit("no honest pool in the cache")
    recall_rows, fp_rows, curves, check = judge_all(args, pools)
    report(args, records, pools, recall_rows, fp_rows, check)
    if args.plot:
        plot(curves, args.plot)


if __name__ == "__main__":
    main()
