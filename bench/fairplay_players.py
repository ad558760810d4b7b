"""Test populations for the fair-play detector (issue 48), built independently of the detector's evaluator.

The detector values cards with its own evaluator; a validation whose cheaters are built from that same
evaluator only shows the detector agrees with itself. Everything here that "sees" or "judges" is written
afresh: an exact double-dummy solver (``exact_card_values``), and players that use it or plain rules. Only
the engine's rules (legal plays, trick winner, points, scoring via ``Scorer``), the honest bots (for honest
play and as the cheaters' cover) and the view sampler (``Knowledge``: what an honest seat may infer) are
shared with the detector.

Kinds (``player(kind, seed)``): the honest "easy", "normal", "hard"; "noisy" (a human-like normal bot that
sometimes plays a random card and bids by feel); "heuristic" (another engine's style: bids aggressively,
plays by simple rules); "strong" (honest perfect-information Monte Carlo over the view's samples, solved
exactly); and cheaters: "ghost" (exact best card on the true hands), "ghost50"/"ghost25" (on that share of
the decisions where it differs from the hard bot), "pair" (knows its partner's hand) and "peek" (the true
hands rolled out by the normal bot). ``table(kinds, seed)`` seats four of them for ``play_deal``.
"""

from __future__ import annotations

import random

from msgspec.structs import replace

from domain.baloot.bots import bot
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.rollout import Scorer, baloot_holders
from domain.baloot.cards import ACE, JACK, KING, LAST_TRICK_BONUS, NINE, PLAIN_POINTS, PLAIN_STRENGTH, QUEEN, TEN, \
    TRUMP_POINTS, TRUMP_STRENGTH
from domain.baloot.deal import legal_actions, step
from domain.baloot.events import Bid, Declare, Double, PlayCard
from domain.baloot.projects import best_declaration
from domain.baloot.tricks import NO_TRUMP, legal_plays
from domain.baloot.views import view

__all__ = ["KINDS", "Solver", "Table", "exact_card_values", "player", "table"]

KINDS = ("easy", "normal", "hard", "noisy", "heuristic", "strong", "ghost", "ghost50", "ghost25", "pair", "peek")

_INF = float("inf")
_BYTE_POINTS: dict = {}       # per trump: the points of each suit's byte of a mask


_BYTE = tuple(tuple(r for r in range(8) if b >> r & 1) for b in range(256))


def _bits(mask: int) -> list[int]:
    """The cards of ``mask``, ascending."""
    out = []
    for base in (0, 8, 16, 24):
        b = mask >> base & 0xFF
        if b:
            out.extend(base + r for r in _BYTE[b])
    return out


# ================================================================ the exact solver


class Solver:
    """Exact double-dummy play from one position: alpha-beta on the final game-point margin of team 0.

    The GP is a non-linear function of the final (points, tricks), so the search minimaxes the GP itself,
    not card points: a position is (hands, leader, trick so far, team 0's points and tricks so far), and the
    transposition table, kept at trick boundaries, is keyed by all of it (the points so far change what the
    rest is worth). It stores bounds, so alpha-beta cut-offs stay exact. Cards of one hand that nothing
    still in play separates (same suit, same points, no card between them in any other hand or the trick)
    are one choice: they win the same tricks, score the same and constrain the others' plays alike.

    Everything else is fixed for the search: Baloot (every holder of trump K+Q announces), the declarations
    (made ones, and in trick 1 the best set of each seat still to declare), the contract and the profile.
    """

    def __init__(self, state, bound_cards: int = 16):
        """``bound_cards``: the score grid bounds subtrees (exactly) when more cards than this are in hand."""
        self.state = state
        p = state.profile
        trump = state.trump
        self.trump = trump
        self.closed = state.contract.closed
        self.exemption = p.partner_winning_exemption
        self.undertrump = p.undertrump_required
        self.pts = [TRUMP_POINTS[c & 7] if c >> 3 == trump else PLAIN_POINTS[c & 7] for c in range(32)]
        self.strength = [100 + TRUMP_STRENGTH[c & 7] if c >> 3 == trump else PLAIN_STRENGTH[c & 7]
                         for c in range(32)]
        # between[a][b]: cards of a's suit strictly between a and b in trick-taking strength.
        st = self.strength
        self.between = [[sum(1 << x for x in range(a & ~7, (a & ~7) + 8)
                             if min(st[a], st[b]) < st[x] < max(st[a], st[b])) if a >> 3 == b >> 3 else 0
                         for b in range(32)] for a in range(32)]
        if trump not in _BYTE_POINTS:
            _BYTE_POINTS[trump] = [[sum(self.pts[8 * suit + r] for r in _BYTE[b]) for b in range(256)]
                                   for suit in range(4)]
        self.byte_points = _BYTE_POINTS[trump]
        hands = state.hands
        self.baloot = baloot_holders(trump, hands, state.played, tuple(state.baloot_seats))
        self.declared = _with_pending(state)
        self.scorer = Scorer(state, 0)
        left = sum(self.pts[c] for h in hands for c in _bits(h)) + sum(self.pts[c] for c in state.trick)
        self.total = state.points[0] + state.points[1] + left + LAST_TRICK_BONUS
        self.final: dict = {}
        self.tt: dict = {}
        self.hints: dict = {}
        self.nodes = 0
        self.grid = None
        if sum(h.bit_count() for h in hands) > bound_cards:     # deep searches: worth the grid's cost
            self.grid = _grid(self)

    # ------------------------------------------------------------ scoring

    def _score(self, p0: int, t0: int) -> float:
        key = (p0, t0)
        v = self.final.get(key)
        if v is None:
            v = self.final[key] = self.scorer.margin((p0, self.total - p0), (t0, 8 - t0), self.baloot,
                                                     self.declared)
        return v

    # ------------------------------------------------------------ search

    def _moves(self, hands, seat: int, trick: tuple, win: int) -> list[int]:
        """The distinct legal choices of ``seat``, in an order that tends to cut early."""
        hand = hands[seat]
        legal = legal_plays(hand, trick, self.trump, self.closed, self.exemption, self.undertrump)
        cards = _bits(legal)
        if len(cards) > 1:
            live = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hand
            for c in trick:
                live |= 1 << c
            pts, between, st = self.pts, self.between, self.strength
            kept = []
            by_suit: dict = {}
            for c in sorted(cards, key=st.__getitem__):
                prev = by_suit.get(c >> 3)
                if prev is not None and pts[prev] == pts[c] and not between[prev][c] & live:
                    by_suit[c >> 3] = c          # the same choice as ``prev``
                    continue
                by_suit[c >> 3] = c
                kept.append(c)
            cards = kept
            if len(cards) > 1:
                if not trick:
                    cards.sort(key=lambda c: -st[c])
                else:
                    best = trick[win]
                    bs = st[best]
                    led, trump = trick[0] >> 3, self.trump
                    partner = win == len(trick) - 2

                    def order(c):
                        beats = st[c] > bs and (c >> 3 == trump or (c >> 3 == led and best >> 3 == led))
                        if partner:
                            return (0 if not beats else 1, -pts[c])
                        return (0, st[c]) if beats else (1, pts[c])
                    cards.sort(key=order)
        return cards

    def value(self, hands, leader: int, trick: tuple, p0: int, t0: int, alpha: float = -_INF,
              beta: float = _INF) -> float:
        """The exact final GP margin of team 0 with perfect play from this position."""
        self.nodes += 1
        if not trick:
            if not hands[0] | hands[1] | hands[2] | hands[3]:
                return self._score(p0, t0)
            key = (hands, leader, p0, t0)
            entry = self.tt.get(key)
            if entry is None:
                lo, hi = -_INF, _INF
                grid = self.grid
                if grid is not None:
                    # Whatever the rest of the play, team 0 ends with between p0 and p0 + what is left, and
                    # the score never falls as its points rise (checked in ``_grid``): bounds for free.
                    rest = self._left(hands)
                    tricks_left = (hands[0] | hands[1] | hands[2] | hands[3]).bit_count() >> 2
                    rows = grid[t0:t0 + tricks_left + 1]
                    lo = min(r[p0] for r in rows)
                    hi = max(r[p0 + rest] for r in rows)
                    if lo == hi:
                        self.tt[key] = (lo, hi)
                        return lo
            else:
                lo, hi = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            a, b = max(alpha, lo), min(beta, hi)
            v = self._node(hands, leader, trick, 0, p0, t0, a, b)
            if v <= a:
                hi = min(hi, v)
            elif v >= b:
                lo = max(lo, v)
            else:
                lo = hi = v
            self.tt[key] = (lo, hi)
            return v
        win = self._win(trick)
        return self._node(hands, leader, trick, win, p0, t0, alpha, beta)

    def _left(self, hands) -> int:
        """Points still to take: the cards in hand and the last trick's bonus."""
        m = hands[0] | hands[1] | hands[2] | hands[3]
        b = self.byte_points
        return b[0][m & 0xFF] + b[1][m >> 8 & 0xFF] + b[2][m >> 16 & 0xFF] + b[3][m >> 24] + LAST_TRICK_BONUS

    def _win(self, trick) -> int:
        st, trump = self.strength, self.trump
        led = trick[0] >> 3
        win = 0
        for i in range(1, len(trick)):
            c, b = trick[i], trick[win]
            if st[c] > st[b] and (c >> 3 == trump or (c >> 3 == led and b >> 3 == led)):
                win = i
        return win

    def _node(self, hands, leader, trick, win, p0, t0, alpha, beta) -> float:
        seat = (leader + len(trick)) & 3
        maximise = seat & 1 == 0
        best = -_INF if maximise else _INF
        st, trump = self.strength, self.trump
        pos = len(trick)
        moves = self._moves(hands, seat, trick, win)
        hint_key = (hands, leader) if not pos else None
        hint = self.hints.get(hint_key) if not pos else None
        if hint is not None and moves[0] != hint and hint in moves:
            moves.remove(hint)
            moves.insert(0, hint)
        chosen = moves[0]
        for c in moves:
            after = hands[:seat] + (hands[seat] & ~(1 << c),) + hands[seat + 1:]
            w = win
            if pos:
                b = trick[win]
                if st[c] > st[b] and (c >> 3 == trump or (c >> 3 == trick[0] >> 3 and b >> 3 == trick[0] >> 3)):
                    w = pos
            t = trick + (c,)
            if pos == 3:
                winner = (leader + w) & 3
                gained = self.pts[t[0]] + self.pts[t[1]] + self.pts[t[2]] + self.pts[t[3]]
                last = not (after[0] | after[1] | after[2] | after[3])
                if last:
                    gained += LAST_TRICK_BONUS
                if winner & 1 == 0:
                    v = self.value(after, winner, (), p0 + gained, t0 + 1, alpha, beta)
                else:
                    v = self.value(after, winner, (), p0, t0, alpha, beta)
            else:
                v = self._node(after, leader, t, w, p0, t0, alpha, beta)
            if maximise:
                if v > best:
                    best, chosen = v, c
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best, chosen = v, c
                    if v < beta:
                        beta = v
            if alpha >= beta:
                break
        if not pos:
            self.hints[hint_key] = chosen   # led first next time: the lead that was best or cut off
        return best

    def _root(self, card: int):
        """The position after the seat to play plays ``card``: (hands, leader, trick, p0, t0)."""
        s = self.state
        seat = s.turn
        hands = tuple(s.hands)
        after = hands[:seat] + (hands[seat] & ~(1 << card),) + hands[seat + 1:]
        t = tuple(s.trick) + (card,)
        p0, t0 = s.points[0], s.tricks[0]
        if len(t) < 4:
            return after, s.leader, t, p0, t0
        winner = (s.leader + self._win(t)) & 3
        gained = sum(self.pts[x] for x in t)
        if not (after[0] | after[1] | after[2] | after[3]):
            gained += LAST_TRICK_BONUS
        if winner & 1 == 0:
            p0, t0 = p0 + gained, t0 + 1
        return after, winner, (), p0, t0

    def legal(self) -> list[int]:
        s = self.state
        return _bits(legal_plays(s.hands[s.turn], tuple(s.trick), self.trump, self.closed, self.exemption,
                                 self.undertrump))

    def card_values(self) -> dict[int, float]:
        """Each legal card of the seat to play: the exact GP margin of its team (every hand open)."""
        sign = 1 if self.state.turn & 1 == 0 else -1
        return {c: sign * self.value(*self._root(c)) for c in self.legal()}

    def best_card(self, prefer: int | None = None) -> tuple[int, float]:
        """A best card of the seat to play and its exact margin, ``prefer`` if it is one of the best (else the
        first best found): cheaper than every card's value, as the others are only tested against the best
        so far (a window around it), not valued."""
        cards = self.legal()
        if prefer in cards:
            cards.remove(prefer)
            cards.insert(0, prefer)
        maximise = self.state.turn & 1 == 0
        best_card, best = None, None
        for c in cards:
            if best is None:
                v = self.value(*self._root(c))
            elif maximise:
                v = self.value(*self._root(c), alpha=best)
            else:
                v = self.value(*self._root(c), beta=best)
            if best is None or (v > best if maximise else v < best):
                best_card, best = c, v
        return best_card, best if maximise else -best


_GRIDS: dict = {}


def _grid(solver: Solver):
    """Team 0's margin for every final (tricks, points) of team 0, rows by tricks, or None if it is not
    non-decreasing in the points (then no bounds are drawn from it). Shared by solvers scoring alike."""
    s = solver.state
    key = (s.profile, s.contract, s.order, s.trump, solver.declared, solver.baloot, solver.total)
    if key not in _GRIDS:
        rows = [[solver._score(p, t) for p in range(solver.total + 1)] for t in range(9)]
        monotone = all(r[i] <= r[i + 1] for r in rows for i in range(len(r) - 1))
        _GRIDS[key] = rows if monotone else None
    return _GRIDS[key]


def _with_pending(state) -> tuple:
    """The declarations, with the best set of every seat still to declare in trick 1 (it declares it)."""
    declared = tuple((s, g) for s, g in state.declared if g)
    if state.trick_no or state.profile.projects == "none":
        return declared
    done = {s for s, _ in state.declared}
    sun = state.contract.kind == "sun"
    out = list(declared)
    for s in state.order:
        if s not in done and not state.played[s]:
            g = best_declaration(s, state.hands[s], state.profile.projects, sun)
            if g:
                out.append((s, g))
    return tuple(out)


def exact_card_values(state) -> dict[int, float]:
    """Each legal card of the seat to play (``state.phase`` "playing"): the exact GP margin for its team,
    all four seats playing perfectly with every hand open."""
    return Solver(state).card_values()


def _best(values: dict[int, float]) -> int:
    """The best card (of equals, the lowest card number: deterministic)."""
    return max(sorted(values), key=values.__getitem__)


# ================================================================ helpers shared by the players


def _play(state, card: int) -> PlayCard:
    """The command playing ``card``, announcing Baloot whenever it may be."""
    seat = state.turn
    opts = [a for a in legal_actions(state, seat) if type(a) is PlayCard and a.card == card]
    return max(opts, key=lambda a: a.baloot)


def _declaration(state):
    """The seat's best declaration when it may declare now (every kind declares its best: it tells nothing)."""
    return next((a for a in legal_actions(state, state.turn) if type(a) is Declare), None)


def _card_choices(state) -> list[int]:
    return sorted({a.card for a in legal_actions(state, state.turn) if type(a) is PlayCard})


class _Honest:
    """Our bot of a level, from the seat's view."""

    def __init__(self, level: str, seed: int):
        self.bot = bot(level) if level != "hard" else type(bot("hard"))(seed=seed)

    def __call__(self, state):
        return self.bot.choose(view(state, state.turn))


# ================================================================ human-like and other-engine players


class _Noisy:
    """The normal bot with a human's slips: a uniformly random legal card with probability ``slip``, and on
    a share ``feel`` of its bids a bid by a crude count of the hand."""

    def __init__(self, seed: int, slip: float = 0.15, feel: float = 0.3):
        self.rng = random.Random(seed)
        self.bot = bot("normal")
        self.slip, self.feel = slip, feel

    def __call__(self, state):
        seat = state.turn
        if state.phase == "playing":
            d = _declaration(state)
            if d is not None:
                return d
            cards = _card_choices(state)
            if len(cards) > 1 and self.rng.random() < self.slip:
                return _play(state, self.rng.choice(cards))
        elif state.phase == "bidding" and self.rng.random() < self.feel:
            a = _feel_bid(state, seat, self.rng)
            if a is not None:
                return a
        return self.bot.choose(view(state, seat))


def _feel_bid(state, seat, rng):
    """A bid by feel: Sun with two Aces and a Ten, Hokum in a suit with the Jack and two more, else pass."""
    acts = [a for a in legal_actions(state, seat) if type(a) is Bid]
    if not acts:
        return None
    hand = state.hands[seat]
    kinds = {a.bid: a for a in acts}
    aces = sum(hand >> (8 * s + ACE) & 1 for s in range(4))
    tens = sum(hand >> (8 * s + TEN) & 1 for s in range(4))
    if "sun" in kinds and aces >= 2 and tens >= 1:
        return kinds["sun"]
    for a in acts:
        if a.bid == "hokum" and a.suit is not None:
            suit = hand >> (8 * a.suit) & 0xFF
            if suit >> JACK & 1 and suit.bit_count() >= 3:
                return a
    return kinds.get("pass") or kinds.get("wala") or (rng.choice(acts) if "kawesh" not in kinds else kinds["kawesh"])


# The heuristic engine's own card order: plain A T K Q J 9 8 7, trump J 9 A T K Q 8 7 (the usual table order).
_H_PLAIN = {ACE: 7, TEN: 6, KING: 5, QUEEN: 4, JACK: 3, NINE: 2, 1: 1, 0: 0}
_H_TRUMP = {JACK: 7, NINE: 6, ACE: 5, TEN: 4, KING: 3, QUEEN: 2, 1: 1, 0: 0}
_H_PLAIN_PTS = {ACE: 11, TEN: 10, KING: 4, QUEEN: 3, JACK: 2}
_H_TRUMP_PTS = {JACK: 20, NINE: 14, ACE: 11, TEN: 10, KING: 4, QUEEN: 3}


class _Heuristic:
    """Another engine's style, from the seat's own cards and the table only (never a hidden card): it bids on
    less than our bots (Sun with two Aces, Hokum with the Jack or Nine and one more trump, or any three trumps
    with an Ace outside), and plays by rules: lead the highest card of its longest suit; follow by winning as
    cheaply as it can, else dump its lowest; never doubles."""

    def __call__(self, state):
        seat = state.turn
        acts = legal_actions(state, seat)
        if state.phase == "bidding":
            return self._bid(state, seat, acts)
        if state.phase == "doubling":
            return next(a for a in acts if type(a) is Double and a.call == "pass")
        d = next((a for a in acts if type(a) is Declare), None)
        if d is not None:
            return d
        v = view(state, seat)                       # only what the seat may see
        from domain.baloot.cards import parse_card, parse_suit
        c = v.contract
        trump = parse_suit(c.suit) if c.type == "hokum" else NO_TRUMP
        cards = sorted({a.card for a in acts if type(a) is PlayCard})
        rank = lambda x: 10 + _H_TRUMP[x & 7] if x >> 3 == trump else _H_PLAIN[x & 7]  # noqa: E731
        pts = lambda x: (_H_TRUMP_PTS if x >> 3 == trump else _H_PLAIN_PTS).get(x & 7, 0)  # noqa: E731
        trick = [parse_card(p.card) for p in v.trick]
        if not trick:
            hand = [parse_card(x) for x in v.hand]
            longest = max(range(4), key=lambda s: (sum(1 for x in hand if x >> 3 == s and x in cards), -s))
            pool = [x for x in cards if x >> 3 == longest] or cards
            return _play(state, max(pool, key=rank))
        led = trick[0] >> 3

        def power(x):
            return 20 + _H_TRUMP[x & 7] if x >> 3 == trump else _H_PLAIN[x & 7] if x >> 3 == led else -1

        top = max(power(x) for x in trick)
        winners = [x for x in cards if power(x) > top]
        if winners:
            return _play(state, min(winners, key=lambda x: (power(x), pts(x))))
        return _play(state, min(cards, key=lambda x: (pts(x), rank(x))))

    def _bid(self, state, seat, acts):
        hand = state.hands[seat]                    # its own hand: in the view too
        kinds = {}
        for a in acts:
            kinds.setdefault(a.bid, a)
        if "kawesh" in kinds:
            return kinds["kawesh"]
        aces = sum(hand >> (8 * s + ACE) & 1 for s in range(4))
        if aces >= 2:
            for k in ("sun", "before_you", "confirm"):
                if k in kinds and (k != "confirm" or "sun" not in kinds):
                    return kinds[k]
        if "confirm" in kinds:
            return kinds["confirm"]
        best, score = None, 0
        for a in acts:
            if a.bid == "hokum" and a.suit is not None:
                suit = hand >> (8 * a.suit) & 0xFF
                if state.faceup >> 3 == a.suit:
                    suit |= 1 << (state.faceup & 7)
                n = suit.bit_count()
                honours = (suit >> JACK & 1) + (suit >> NINE & 1)
                s = 2 * honours + n + (aces - (suit >> ACE & 1))
                if (honours and n >= 2) or (n >= 3 and aces - (suit >> ACE & 1) >= 1):
                    if s > score:
                        best, score = a, s
        if best is not None:
            return best
        return kinds.get("pass") or kinds.get("wala") or acts[0]


# ================================================================ the solver's players


def _routine(hard, from_trick: int, state):
    """(the action, None) where there is nothing to solve: outside the play or before ``from_trick`` (the hard
    bot's), a declaration due, a single legal card; else (None, the legal cards)."""
    if state.phase != "playing" or state.trick_no + 1 < from_trick:
        return hard(state), None
    d = _declaration(state)
    if d is not None:
        return d, None
    cards = _card_choices(state)
    if len(cards) == 1:
        return hard(state), None
    return None, cards


class _Strong:
    """An honest strong player: perfect-information Monte Carlo from its view only, each sample of the hidden
    cards (``Knowledge.sample``) solved exactly; the best mean margin. Before ``from_trick`` (the solver is
    slow on full hands) and for bids and doubles, the hard bot."""

    def __init__(self, seed: int, samples: int = 6, from_trick: int = 3, partner: bool = False):
        self.rng = random.Random(seed)
        self.hard = _Honest("hard", seed)
        self.samples = samples
        self.from_trick = from_trick
        self.partner = partner

    def __call__(self, state):
        routine, cards = _routine(self.hard, self.from_trick, state)
        if routine is not None:
            return routine
        seat = state.turn
        k = Knowledge(view(state, seat))
        if self.partner:
            _tell_partner(k, state)
        totals = dict.fromkeys(cards, 0.0)
        for _ in range(self.samples):
            hands, declared = k.sample(self.rng)
            values = exact_card_values(replace(state, hands=tuple(hands), declared=tuple(declared)))
            for c in cards:
                totals[c] += values[c]
        return _play(state, _best(totals))


def _tell_partner(k: Knowledge, state) -> None:
    """``k`` with the partner's true hand (and declaration) known: what a colluding pair tells each other."""
    partner = (k.me + 2) & 3
    hand = state.hands[partner]
    k.known[partner] |= hand
    k.pool &= ~hand
    k.excluded = [x & ~hand for x in k.excluded]
    if partner in k.hidden:
        del k.hidden[partner]
        groups = next(g for s, g in state.declared if s == partner)
        k.declared = [(s, groups if s == partner else g, kinds) for s, g, kinds in k.declared]
    k._plan = None


class _Ghost:
    """Sees every hand: the solver's exact best card (on a share ``share`` of the decisions where the hard
    bot's card is worth less; 1.0: always; of equal best cards, the hard bot's); bids and doubles as the hard
    bot."""

    def __init__(self, seed: int, share: float = 1.0, from_trick: int = 1):
        self.rng = random.Random(seed)
        self.hard = _Honest("hard", seed)
        self.share = share
        self.from_trick = from_trick

    def __call__(self, state):
        routine, _ = _routine(self.hard, self.from_trick, state)
        if routine is not None:
            return routine
        honest = self.hard(state)
        # Of cards the solver finds equal it keeps the hard bot's: against imperfect players the exact value
        # ties many cards (a lost deal is lost whatever it plays), and an arbitrary one of them throws GP away.
        prefer = honest.card if type(honest) is PlayCard else None
        best, _ = Solver(state).best_card(prefer)
        if best != prefer and (prefer is None or self.share >= 1.0 or self.rng.random() < self.share):
            return _play(state, best)
        return honest


class _Peek:
    """A ghost built on the normal bot: each legal card played now, then the deal played out on the true
    hands by the normal bot at every seat; the card with the best result for its team."""

    def __init__(self, seed: int):
        self.normal = bot("normal")
        self.hard = _Honest("hard", seed)

    def __call__(self, state):
        if state.phase != "playing":
            return self.normal.choose(view(state, state.turn))
        d = _declaration(state)
        if d is not None:
            return d
        cards = _card_choices(state)
        if len(cards) == 1:
            return _play(state, cards[0])
        team = state.turn & 1
        scores = {}
        for c in cards:
            s, _ = step(state, _play(state, c))
            while s.phase == "playing":
                s, _ = step(s, self.normal.choose(view(s, s.turn)))
            gp = s.result.game_points
            scores[c] = gp[team] - gp[1 - team]
        return _play(state, _best(scores))


def player(kind: str, seed: int = 0):
    """``choose(state) -> command`` of one player of ``kind`` (see the module's docstring)."""
    if kind in ("easy", "normal", "hard"):
        return _Honest(kind, seed)
    if kind == "noisy":
        return _Noisy(seed)
    if kind == "heuristic":
        return _Heuristic()
    if kind == "strong":
        return _Strong(seed)
    if kind == "ghost":
        return _Ghost(seed)
    if kind == "ghost50":
        return _Ghost(seed, 0.5)
    if kind == "ghost25":
        return _Ghost(seed, 0.25)
    if kind == "pair":
        return _Strong(seed, samples=6, from_trick=2, partner=True)
    if kind == "peek":
        return _Peek(seed)
    raise ValueError(f"unknown kind {kind!r} (known: {', '.join(KINDS)})")


class Table:
    """``choose(state)`` for ``play_deal``: each seat's player answers on its turn."""

    def __init__(self, players):
        self.players = players

    def __call__(self, state):
        return self.players[state.turn](state)


def table(kinds: tuple[str, str, str, str], seed: int = 0) -> Table:
    """Seat ``i`` played by a player of ``kinds[i]`` (seeded apart)."""
    return Table([player(k, seed * 4 + i) for i, k in enumerate(kinds)])


def _measure(deals: int = 4) -> None:
    """Seconds of the solver per position by trick (every card valued, the first lead of the trick) and CPU
    seconds per played deal of each kind in seat 0 (the other seats normal bots)."""
    import time

    from domain.baloot.deal import INITIAL
    from domain.baloot.events import RecordResult, StartDeal
    from domain.baloot.fairplay import play_deal

    normal = bot("normal")
    leads: dict[int, list] = {2: [], 4: [], 6: []}
    n = 0
    while min(len(x) for x in leads.values()) < deals:
        state, _ = step(INITIAL, StartDeal(dealer=n % 4, seed=f"measure-{n}"))
        n += 1
        while state.phase not in ("scored", "void"):
            if state.phase == "playing" and not state.trick and state.trick_no + 1 in leads:
                leads[state.trick_no + 1].append(state)
            state, _ = step(state, RecordResult() if state.phase == "review" else normal.choose(view(state, state.turn)))
    for trick, states in leads.items():
        times = []
        for s in states[:deals]:
            start = time.perf_counter()
            exact_card_values(s)
            times.append(time.perf_counter() - start)
        print(f"solver, trick {trick}: mean {sum(times) / len(times):.3f} s, max {max(times):.3f} s")
    for kind in KINDS:
        total, played, n = 0.0, 0, 0
        while played < deals:
            start = time.process_time()
            events = play_deal(f"measure-{kind}-{n}", table((kind, "normal", "normal", "normal"), seed=n), n % 4)
            n += 1
            if type(events[-1]).__name__ == "DealScored":
                total += time.process_time() - start
                played += 1
        print(f"{kind}: {total / played:.2f} CPU s per deal")


if __name__ == "__main__":
    import sys

    _measure(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
