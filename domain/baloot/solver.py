"""The exact value of a card play with every hand open: a double-dummy solver for Baloot.

This is the fair-play analysis' ground truth (domain/baloot/fairplay.py): what each legal card is worth when
all four seats play the rest of the deal perfectly, seeing every hand. No bot owns it: it plays no policy, it
searches the whole tree of legal plays (``tricks.legal_plays``: the profile's follow, trump and overtrump
rules, a closed game's lead) and scores the end with the engine's own ``deal_result``.

**Why the search is over abnat, not game points.** A deal's score in GP is not a sum over tricks: it rounds,
a buyer who falls short loses everything, a Kaboot pays a fixed bonus. But it is a *non-decreasing* function
of one additive quantity, a team's final (abnat, tricks) in lexicographic order: more abnat never scores
less, and at equal abnat the trick count only matters at the two ends (all eight tricks: a Kaboot; none:
the other side's), where more tricks is better too (``tests/engine/test_solver.py`` checks this on every
contract, multiplier and outcome) — except for the two sweeps: a Kaboot is not multiplied by a double (the
profile's ``kaboot_multiplied``, off in Saudi rules), so in a doubled Sun the defenders score 52 by a plain
win and 44 by a Kaboot. Minimax commutes with a non-decreasing function, so the solver searches the additive
value of the remaining tricks for team 0 (a trick is worth ``4 × (9 × its abnat + 1)``; eight tricks never
reach 9), with each sweep, recognised at the last trick, given the value that ranks it where its score
does (``Outcomes.levels``), and converts the outcome to GP at the root. Additive values make the
transposition table exact across positions: at a trick's start the rest of the deal depends only on the
cards left, the leader and whether each side has taken a trick yet.

**The search.** Alpha-beta, fail-soft, with a transposition table of (lower, upper) bounds at each trick's
start (the cards left, a 32-bit mask, and the leader: the hands are fixed, so the mask says who holds what),
kept for the whole deal (every later position of the same deal reuses it) and move ordering (the leader
tries strong cards first; a follower whose partner holds the trick gives points, one who can win tries it).
It is compiled with the engine's hot modules (``services/compiled.py``).
"""

from __future__ import annotations

from domain.baloot.cards import (
    ACE, LAST_TRICK_BONUS, PLAIN_POINTS, PLAIN_STRENGTH, TRUMP_POINTS, TRUMP_STRENGTH, cards_of,
)
from msgspec.structs import replace

from domain.baloot.bidding import complete_deal
from domain.baloot.dealstate import DealState
from domain.baloot.play import baloot_holders
from domain.baloot.projects import best_declaration
from domain.baloot.result import deal_result
from domain.baloot.tricks import NO_TRUMP, legal_plays

# Per trump (0-3, or 4 for none): each card's abnat and trick-taking strength (trumps above everything).
_POINTS = [[TRUMP_POINTS[c & 7] if c >> 3 == t else PLAIN_POINTS[c & 7] for c in range(32)] for t in range(5)]
_STRENGTH = [[100 + TRUMP_STRENGTH[c & 7] if c >> 3 == t else PLAIN_STRENGTH[c & 7] for c in range(32)]
             for t in range(5)]
# Per trump and suit: the abnat of each byte of a suit's cards (a mask's abnat in four look-ups).
_BYTE_POINTS = [[[sum(_POINTS[t][8 * u + r] for r in range(8) if b >> r & 1) for b in range(256)] for u in range(4)]
                for t in range(5)]
# Per trump: each suit's cards from the strongest down.
_BY_STRENGTH = [[sorted(range(8 * u, 8 * u + 8), key=lambda c, t=t: -_STRENGTH[t][c]) for u in range(4)]
                for t in range(5)]
# Per card: the cards of its suit above it in trump order.
_ABOVE_TRUMP = [sum(1 << (c & ~7 | r) for r in range(8) if TRUMP_STRENGTH[r] > TRUMP_STRENGTH[c & 7]) for c in range(32)]
_EXEMPTIONS = {"always": 0, "void_only": 1, "fourth_seat_or_ace": 2}
_WIDE = 1 << 30                      # beyond any value (a deal is worth at most 4 × (9 × 162 + 8) + 4)
NO_LIMIT = 1 << 62                   # a solver's node limit when none is set


class SearchLimit(Exception):
    """A search stopped at its solver's node limit (``Solver.limit``) before it had an answer. What the
    solver's table learned before it stays true: the same solver may be asked again (with a higher limit)."""


class Solver:
    """One deal's hands under one contract's play rules: exact values of positions of that deal, a
    transposition table shared by all of them. ``hands`` are the four hands at the position searched first;
    any later position of the same play (fewer cards) may be asked too."""

    def __init__(self, trump: int, closed: bool = False, exemption: str = "always", undertrump: bool = True):
        self.trump = trump
        self.closed = closed
        self.undertrump = undertrump
        t = 4 if trump == NO_TRUMP else trump
        self.points = _POINTS[t]
        self.strength = _STRENGTH[t]
        self.suits = _BY_STRENGTH[t]
        self.bytes = _BYTE_POINTS[t]
        self.mode = _EXEMPTIONS[exemption]
        # The cards from the strongest down, from the most abnat down, from the fewest up (the search's orders).
        self.strongest = sorted(range(32), key=lambda c: -self.strength[c])
        self.richest = sorted(range(32), key=lambda c: -self.points[c])
        self.poorest = sorted(range(32), key=lambda c: self.points[c])
        self.table: dict = {}
        self.nodes = 0
        self.limit = NO_LIMIT        # the most nodes it counts: a search that needs more raises SearchLimit
        self.setting = (None, None)
        self.took, self.low, self.high = 0, None, None

    def prepare(self, took: int, low, high) -> None:
        """Set the position's sweeps before searching it: ``took`` (bit 0: team 0 has taken a trick in this
        deal, bit 1: team 1), and the values standing for the sweeps (``Outcomes.levels``): ``low`` the whole
        value of team 1 taking every trick, ``high`` what team 0 taking them all adds to the value of its
        tricks (None: the sweep is not possible). The table's entries of positions where a sweep is still
        possible are kept under these values; once both sides have a trick they mean the same for every
        position of the deal."""
        self.setting = (low if not took & 1 else None, high if not took & 2 else None)
        self.took = took
        self.low, self.high = self.setting

    def at_least(self, hands, leader: int, trick: tuple, tricks_left: int, card: int, alpha: int, beta: int
                 ) -> int:
        """The value for team 0 of ``card`` played now, searched in the window (``alpha``, ``beta``): exact
        inside it, else a bound on the side it fell (fail-soft); ``card`` -1: the position's own value."""
        hands = list(hands)
        trick = tuple(trick)
        win = self._win(trick)
        if card < 0:
            return self._search(hands, leader, trick, win, tricks_left, self.took, alpha, beta)
        seat = (leader + len(trick)) & 3
        hands[seat] &= ~(1 << card)
        return self._after(hands, leader, trick, win, card, tricks_left, self.took, alpha, beta)

    def level(self, hands, leader: int, trick: tuple, tricks_left: int, card: int, thresholds: list,
              hint: int = -1) -> int:
        """The index of the last of ``thresholds`` (ascending values) that ``card`` played now reaches (-1:
        none), by null-window tests: only which side of a threshold the value lies is searched, far cheaper
        than its exact value. From ``hint`` (a level it is likely at: another card's) the tests step out to
        bracket it, then halve the bracket; without one, they halve the whole range."""
        def reaches(i: int) -> bool:
            t = thresholds[i]
            return self.at_least(hands, leader, trick, tricks_left, card, t - 1, t) >= t

        lo, hi = -1, len(thresholds) - 1          # the level is in [lo, hi]; thresholds[lo] is reached
        if 0 <= hint <= hi:
            step = 1
            if reaches(hint):
                lo = hint
                while lo < hi:
                    probe = min(hi, lo + step)
                    if reaches(probe):
                        lo = probe
                        step *= 2
                    else:
                        hi = probe - 1
                        break
            else:
                hi = hint - 1
                while lo < hi:
                    probe = max(lo + 1, hi - step + 1)
                    if reaches(probe):
                        lo = probe
                        break
                    hi = probe - 1
                    step *= 2
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if reaches(mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def exact(self, hands, leader: int, trick: tuple, tricks_left: int, card: int, score) -> float:
        """Team 0's GP margin of ``card`` played now (-1: the position's own), searched on the score itself:
        ``score(value)`` gives the margin of each outcome (``Outcomes.margin``), read at the end of every line
        of play. For the positions whose score is not monotone (``Outcomes.inexact``): slower, since what was
        won before is part of each position (its table is this search's own), but exact whatever the score."""
        hands = list(hands)
        trick = tuple(trick)
        win = self._win(trick)
        memo: dict = {}
        if card < 0:
            return self._general(hands, leader, trick, win, tricks_left, 0, -_WIDE, _WIDE, score, memo)
        seat = (leader + len(trick)) & 3
        hands[seat] &= ~(1 << card)
        return self._general_after(hands, leader, trick, win, card, tricks_left, 0, -_WIDE, _WIDE, score, memo)

    def _general_after(self, hands, leader, trick, win, card, left, acc, alpha, beta, score, memo) -> float:
        n = len(trick)
        if n and self._beats(card, trick[win]):
            win = n
        trick = trick + (card,)
        if n < 3:
            return self._general(hands, leader, trick, win, left, acc, alpha, beta, score, memo)
        pts = self.points
        winner = (leader + win) & 3
        if winner & 1 == 0:
            acc += 9 * (pts[trick[0]] + pts[trick[1]] + pts[trick[2]] + pts[trick[3]]
                        + (LAST_TRICK_BONUS if left == 1 else 0)) + 1
        if left == 1:
            return score(acc)
        return self._general(hands, winner, (), 0, left - 1, acc, alpha, beta, score, memo)

    def _general(self, hands, leader, trick, win, left, acc, alpha, beta, score, memo) -> float:
        if self.nodes >= self.limit:
            raise SearchLimit(self.limit)
        self.nodes += 1
        n = len(trick)
        key = None
        if n == 0:
            key = ((hands[0] | hands[1] | hands[2] | hands[3]) << 2 | leader, acc)
            entry = memo.get(key)
            if entry is not None:
                lo, hi = entry
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        seat = (leader + n) & 3
        hand = hands[seat]
        legal = self._legal(hand, trick, win, n)
        ours = seat & 1 == 0
        best = -_WIDE if ours else _WIDE
        for card in self._order(self._distinct(legal, hands[0] | hands[1] | hands[2] | hands[3]), trick, win, n):
            hands[seat] = hand & ~(1 << card)
            v = self._general_after(hands, leader, trick, win, card, left, acc, alpha, beta, score, memo)
            if ours:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        hands[seat] = hand
        if key is not None:
            lo, hi = memo.get(key, (-_WIDE, _WIDE))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            memo[key] = (lo, hi)
        return best

    def _legal(self, hand: int, trick: tuple, win: int, n: int) -> int:
        """The cards of ``hand`` that may be played onto ``trick`` (whose card ``win`` holds it): the rules of
        ``tricks.legal_plays`` (the tests hold the two equal), with what the search already knows."""
        trump = self.trump
        if n == 0:
            if self.closed and trump >= 0:
                plain = hand & ~(0xFF << (8 * trump))
                if plain:
                    return plain
            return hand
        led = trick[0] >> 3
        follow = hand & (0xFF << (8 * led))
        if trump < 0:
            return follow if follow else hand
        if led == trump:
            if not follow:
                return hand
            if self.mode != 1 and self._exempt(trick, win, n):
                return follow
            higher = follow & _ABOVE_TRUMP[trick[win]]
            return higher if higher else follow
        if follow:
            return follow
        trumps = hand & (0xFF << (8 * trump))
        if not trumps or self._exempt(trick, win, n):
            return hand
        top = trick[win]
        if top >> 3 == trump:
            higher = trumps & _ABOVE_TRUMP[top]
            if higher:
                return higher
            return trumps if self.undertrump else hand
        return trumps

    def _exempt(self, trick: tuple, win: int, n: int) -> bool:
        """Whether the seat to play is freed from trumping because its partner holds the trick."""
        if win != n - 2:
            return False
        return self.mode <= 1 or n == 3 or (n == 2 and win == 0 and trick[0] & 7 == ACE)

    def _win(self, trick: tuple) -> int:
        win = 0
        for i in range(1, len(trick)):
            if self._beats(trick[i], trick[win]):
                win = i
        return win

    def _beats(self, card: int, best: int) -> bool:
        return self.strength[card] > self.strength[best] and (card >> 3 == self.trump or card >> 3 == best >> 3)

    def _after(self, hands, leader, trick, win, card, left, took, alpha, beta) -> int:
        """The value once ``card`` (already taken from its hand) is on the trick."""
        n = len(trick)
        if n and self._beats(card, trick[win]):
            win = n
        trick = trick + (card,)
        if n < 3:
            return self._search(hands, leader, trick, win, left, took, alpha, beta)
        pts = self.points
        winner = (leader + win) & 3
        gain = 0
        if winner & 1 == 0:
            gain = 36 * (pts[trick[0]] + pts[trick[1]] + pts[trick[2]] + pts[trick[3]]
                         + (LAST_TRICK_BONUS if left == 1 else 0)) + 4
        took |= 1 << (winner & 1)
        if left == 1:
            if took == 1 and self.high is not None:
                return gain + self.high          # team 0 took every trick of the deal
            if took == 2 and self.low is not None:
                return self.low                  # team 1 did (team 0's tricks so far: none, worth 0)
            return gain
        return gain + self._search(hands, winner, (), 0, left - 1, took, alpha - gain, beta - gain)

    def _last(self, hands, leader, trick, win, took) -> int:
        """The last trick, whose cards are forced (one left in each hand still to play): its value at once."""
        n = len(trick)
        for i in range(n, 4):
            c = hands[(leader + i) & 3]
            card = c.bit_length() - 1
            if i and self._beats(card, trick[win]):
                win = i
            trick = trick + (card,)
        pts = self.points
        winner = (leader + win) & 3
        took |= 1 << (winner & 1)
        if winner & 1:
            return self.low if took == 2 and self.low is not None else 0
        gain = 36 * (pts[trick[0]] + pts[trick[1]] + pts[trick[2]] + pts[trick[3]] + LAST_TRICK_BONUS) + 4
        return gain + self.high if took == 1 and self.high is not None else gain

    def _search(self, hands, leader, trick, win, left, took, alpha, beta) -> int:
        if self.nodes >= self.limit:
            raise SearchLimit(self.limit)
        self.nodes += 1
        if left == 1:
            return self._last(hands, leader, trick, win, took)
        n = len(trick)
        lo, hi, first = -_WIDE, _WIDE, -1
        key = None
        if n == 0:
            held = hands[0] | hands[1] | hands[2] | hands[3]
            # The rest is worth between nothing and every trick to team 0, or what a sweep still open stands for.
            b = self.bytes
            most = 36 * (b[0][held & 0xFF] + b[1][held >> 8 & 0xFF] + b[2][held >> 16 & 0xFF]
                         + b[3][held >> 24] + LAST_TRICK_BONUS) + 4 * left
            least = 0
            if took != 3:
                if not took & 2 and self.high is not None:
                    swept = most + self.high
                    most, least = max(most, swept), min(least, swept)
                if not took & 1 and self.low is not None:
                    most, least = max(most, self.low), min(least, self.low)
            if most <= alpha:
                return most
            if beta <= least:
                return least
            key = held << 4 | took << 2 | leader
            if took != 3:
                key = (key, self.setting)
            entry = self.table.get(key)
            if entry is not None:
                lo, hi, first = entry
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
        a0, b0 = alpha, beta
        seat = (leader + n) & 3
        hand = hands[seat]
        legal = self._legal(hand, trick, win, n)
        ours = seat & 1 == 0
        best, chose = (-_WIDE if ours else _WIDE), -1
        for card in self._order(self._distinct(legal, hands[0] | hands[1] | hands[2] | hands[3] | hand), trick,
                                win, n, first):
            hands[seat] = hand & ~(1 << card)
            v = self._after(hands, leader, trick, win, card, left, took, alpha, beta)
            if ours:
                if v > best:
                    best, chose = v, card
                    if v > alpha:
                        alpha = v
            elif v < best:
                best, chose = v, card
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        hands[seat] = hand
        if n == 0:
            if best <= a0:
                hi = best if best < hi else hi
            elif best >= b0:
                lo = best if best > lo else lo
            else:
                lo = hi = best
            # The card that did best (or refuted the window) is tried first when the position comes again.
            self.table[key] = (lo, hi, chose)
        return best

    def _distinct(self, legal: int, held: int) -> int:
        """``legal`` without the cards that play exactly like another of them: of a suit's cards next to each
        other in strength among the cards still held (``held``), with the same abnat, only the strongest is
        tried (whichever is played, the same seat wins and the same abnat move)."""
        pts = self.points
        out = legal
        for u in range(4):
            if not legal >> (8 * u) & 0xFF:
                continue
            prev = -1
            for c in self.suits[u]:
                if not held >> c & 1:
                    continue
                if legal >> c & 1:
                    if prev >= 0 and pts[prev] == pts[c]:
                        out &= ~(1 << c)
                    else:
                        prev = c
                else:
                    prev = -1
        return out

    def _order(self, legal: int, trick: tuple, win: int, n: int, first: int = -1) -> list:
        """The legal cards, the likely best first (a good order only makes the search faster): ``first`` (the
        card that did best here before), then the leader's strongest cards; a follower whose partner holds the
        trick gives points; one who can win tries it, with the most points; else he gives the fewest."""
        out = []
        if first >= 0 and legal >> first & 1:
            out.append(first)
            legal &= ~(1 << first)
        if n == 0:
            for c in self.strongest:
                if legal >> c & 1:
                    out.append(c)
        elif n >= 2 and win == n - 2:
            for c in self.richest:
                if legal >> c & 1:
                    out.append(c)
        else:
            top = trick[win]
            for c in self.richest:
                if legal >> c & 1 and self._beats(c, top):
                    out.append(c)
                    legal &= ~(1 << c)
            for c in self.poorest:
                if legal >> c & 1:
                    out.append(c)
        return out


def trick_total(trump: int, cards_mask: int) -> int:
    """The abnat of the cards of ``cards_mask`` under ``trump``."""
    pts = _POINTS[4 if trump == NO_TRUMP else trump]
    return sum(pts[c] for c in cards_of(cards_mask))


def pending_declarations(state, seat: int) -> tuple:
    """The declarations of the deal as they will stand: those made, and in trick 1 each seat other than
    ``seat`` (whose turn it is: he has declared or let it go) that has not played yet declares its best set."""
    declared = tuple((s, g) for s, g in state.declared if g)
    if state.trick_no or state.profile.projects == "none" or state.contract is None:
        return declared
    done = {s for s, _ in declared}
    sun = state.contract.kind == "sun"
    out = list(declared)
    for s in state.order:
        if s != seat and s not in done and not state.played[s]:
            g = best_declaration(s, state.hands[s], state.profile.projects, sun)
            if g:
                out.append((s, g))
    return tuple(out)


def solver_for(state, contract=None) -> Solver:
    """A solver with the play rules of ``state``'s contract (or ``contract``) and profile."""
    c = contract or state.contract
    p = state.profile
    return Solver(c.suit if c.kind == "hokum" else NO_TRUMP, c.closed, p.partner_winning_exemption,
                  p.undertrump_required)


class Outcomes:
    """Team 0's GP margin for each exact outcome of the play left (its abnat and tricks from here, as the
    value ``9 × abnat + tricks``), by the engine's ``deal_result`` on the position's state with the final
    tallies put in, remembered."""

    def __init__(self, state, declared: tuple, baloot: tuple, remaining: int, left: int):
        self.state = state
        self.declared, self.baloot = declared, baloot
        self.remaining, self.left = remaining, left
        self.memo: dict = {}
        self.inexact = False

    def levels(self) -> tuple:
        """The GP margins this play can end in, ascending; the least search value reaching each; and the
        values standing for the sweeps (``Solver.prepare``'s ``low`` and ``high``). The outcome's GP is the
        margin of the last threshold its value reaches.

        The outcomes a play can reach are 0 (team 0 takes no trick), 9a + t for abnat a > 0 and tricks t >= 1
        (one margin for every t short of all the tricks left) and 9 × everything + the tricks left; so 0,
        9a + 1 and the top stand for them, searched at four times their value. The sweeps of the whole deal (no
        trick to one side, before and after) score by their own rule: each is given a value just below the
        first plain outcome that scores more (two such, in their own order), so that the search ranks it where
        its score does."""
        s = self.state
        top = 9 * self.remaining + self.left
        sweep_low = s.tricks[0] == 0                  # team 0 has no trick yet: V = 0 is team 1's sweep
        sweep_high = s.tricks[1] == 0
        plain = sorted({9 * a + 1 for a in range(self.remaining + 1) if 9 * a + 1 < top}
                       | ({0} if not sweep_low else set()) | ({top} if not sweep_high else set()))
        outcomes = [(4 * v, self.margin(v)) for v in plain]
        sweeps = []
        for v, on in ((0, sweep_low), (top, sweep_high)):
            if on:
                m = self.margin(v)
                above = [w for w, x in outcomes if x > m]
                sweeps.append((min(above) if above else 4 * top + 4, m, v))
        # Just below the first plain outcome scoring more; two sweeps below the same one, in their order.
        ranked = []
        for base, m, v in sweeps:
            below = any(b == base and x > m for b, x, _ in sweeps)     # the other sweep there scores more
            ranked.append((base - 2 if below else base - 1, m, v))
        low = high = None
        for w, m, v in ranked:
            if v == 0:
                low = w
            else:
                high = w - 4 * top
        margins, thresholds = [], []
        for w, m in sorted(outcomes + [(w, m) for w, m, _ in ranked]):
            if not margins or m > margins[-1]:
                margins.append(m)
                thresholds.append(w)
        # Where the rules make a plain outcome score less than one below it (a doubled deal decided on equal
        # GP hands the other side's Baloot to the taker), no order of values ranks the outcomes as they score:
        # then the solver searches the score itself (``Solver.exact``).
        self.inexact = any(b[1] < a[1] for a, b in zip(outcomes, outcomes[1:]))
        return margins, thresholds, low, high

    def margin(self, value: int) -> float:
        m = self.memo.get(value)
        if m is None:
            abnat, won = divmod(value, 9)
            s = self.state
            final = replace(s, phase="review", points=(s.points[0] + abnat, s.points[1] + self.remaining - abnat),
                            tricks=(s.tricks[0] + won, s.tricks[1] + self.left - won), declared=self.declared,
                            baloot_seats=self.baloot, trick=(), trick_no=8)
            gp = deal_result(final).game_points
            m = self.memo[value] = float(gp[0] - gp[1])
        return m


def outcomes(state, seat: int) -> Outcomes:
    """What each outcome of the play from ``state`` scores, ``seat`` being the seat to play (in trick 1 the
    seats after him still declare)."""
    s = state
    held = s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3]
    on_table = 0
    for c in s.trick:
        on_table |= 1 << c
    remaining = trick_total(s.trump, held | on_table) + LAST_TRICK_BONUS
    return Outcomes(s, pending_declarations(s, seat), baloot_holders(s.trump, s.hands, s.played,
                                                                            s.baloot_seats),
                    remaining, 8 - s.trick_no)


def _nearest(margins: list, guess) -> int:
    """The level whose margin is nearest ``guess`` (team 0's), or -1 with no guess."""
    if guess is None:
        return -1
    return min(range(len(margins)), key=lambda i: abs(margins[i] - guess))


def card_values(state, solver: Solver | None = None, guesses: dict | None = None) -> list:
    """Each legal card of the seat to play in ``state`` (a deal in play) with its exact GP margin for that
    seat's team, every hand open and every seat playing perfectly from there: [(card, margin), …] in card
    order. ``solver`` (``solver_for(state)``) may be kept for the rest of the same deal; ``guesses`` (card:
    a margin it is likely near, for the seat's team, e.g. the player's own estimate) only make it faster."""
    s = state
    seat = s.turn
    solver = solver or solver_for(s)
    p = s.profile
    legal = cards_of(legal_plays(s.hands[seat], s.trick, s.trump, s.contract.closed, p.partner_winning_exemption,
                               p.undertrump_required))
    score = outcomes(s, seat)
    margins, thresholds, low, high = score.levels()
    left = 8 - s.trick_no
    sign = 1 if seat & 1 == 0 else -1
    if score.inexact:
        return [(c, sign * solver.exact(s.hands, s.leader, s.trick, left, c, score.margin)) for c in legal]
    solver.prepare((s.tricks[0] > 0) | (s.tricks[1] > 0) << 1, low, high)
    at: list = []
    for c in legal:                  # the guess, else the card before: cards of one position are often alike
        guess = None if guesses is None or c not in guesses else sign * guesses[c]
        hint = _nearest(margins, guess) if guess is not None else at[-1] if at else -1
        at.append(solver.level(s.hands, s.leader, s.trick, left, c, thresholds, hint))
    return [(c, sign * margins[i]) for c, i in zip(legal, at)]


def contract_value(state, contract, receiver: int, seat: int, solvers: dict | None = None, guess=None) -> float:
    """The exact GP margin for ``seat``'s team of ``contract`` (its buyer's side receiving the face-up card:
    ``receiver``) on the true deal of ``state`` (in bidding): the rest of the pack dealt as it lies."""
    return hands_value(state, contract, complete_deal(state.deck, state.dealer, state.first_five, receiver), seat,
                       solvers, guess)


def hands_value(state, contract, hands, seat: int, solvers: dict | None = None, guess=None) -> float:
    """The exact GP margin for ``seat``'s team of ``contract`` played from its first card on the eight-card
    ``hands`` of ``state``'s deal: every seat declaring its best projects and announcing Baloot, the eight
    tricks played perfectly with every hand open. ``solvers`` keeps the searches of one deal (by hands and
    play rules: a double that leaves the play as it was searches nothing again); ``guess``, a margin for
    ``seat``'s team it is likely near, only makes it faster."""
    s = state
    trump = contract.suit if contract.kind == "hokum" else NO_TRUMP
    order = s.order
    start = DealState(profile=s.profile, contract=contract, order=order, trump=trump, hands=hands,
                      phase="playing", leader=order[0], turn=order[0], scores_before=s.scores_before)
    key = (hands, trump, contract.closed)
    solvers = {} if solvers is None else solvers
    solver = solvers.get(key)
    if solver is None:
        solver = solvers[key] = solver_for(start)
    sun = contract.kind == "sun"
    declared = ()
    if s.profile.projects != "none":
        declared = tuple((x, g) for x in order if (g := best_declaration(x, hands[x], s.profile.projects, sun)))
    score = Outcomes(start, declared, baloot_holders(trump, hands, (0, 0, 0, 0), ()),
                     trick_total(trump, 0xFFFFFFFF) + LAST_TRICK_BONUS, 8)
    margins, thresholds, low, high = score.levels()
    if score.inexact:
        m = solver.exact(hands, order[0], (), 8, -1, score.margin)
    else:
        solver.prepare(0, low, high)
        hint = _nearest(margins, None if guess is None else guess if seat & 1 == 0 else -guess)
        m = margins[solver.level(hands, order[0], (), 8, -1, thresholds, hint)]
    return m if seat & 1 == 0 else -m
