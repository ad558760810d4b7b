"""What a contract is worth to its buyer's team before the rest of the pack is dealt, from the cards he knows:
a linear model fitted on deals solved exactly (the expert bot's bidding, ``expert.py``).

A bid is decided on five cards and the face-up card; the contract's value is the mean, over the ways the other
27 cards may lie (the three undealt included), of the exact GP margin the solver gives it with every seat
declaring its best projects (``solver.hands_value``). Sampling and solving that at the table costs about a
second a decision (``bench/expert.py``); the model is that mean learnt once, offline, by least squares from
``bench/expert.py --fit``: random deals, a buyer and a contract each (Sun, Ashkal, Hokum in a suit he holds),
solved on the true deal, the margin regressed on the features below. Its coefficients are ``COEFFICIENTS``;
the fit's size, seed and residual are in ``FIT``.

**Features** of the buyer's cards ``C`` (his five, with the face-up card when he takes it) and his place in
the speaking order (0: he leads the first trick):
- Sun: the aces; the tens with their ace, bare, or with a king; the kings with their ace or ten, bare; the
  queens and jacks; the long suits (three or more) headed by an ace; the count of cards; Ashkal's face-up card
  (his partner takes it: its ace, ten, king); the place;
- Hokum: each trump from the Jack down (J, 9, A, 10, K, Q, 8, 7); the trumps beyond two; the side aces, side
  tens with their ace and bare; the side kings; the void side suits; the count of cards; the place.
"""

from __future__ import annotations

from domain.baloot.cards import ACE, EIGHT, JACK, KING, NINE, QUEEN, SEVEN, TEN

__all__ = ["COEFFICIENTS", "FIT", "HOKUM_FEATURES", "SUN_FEATURES", "hokum_features", "predict", "sun_features"]

SUN_FEATURES = ("one", "aces", "ten_with_ace", "ten_bare", "ten_with_king", "king_covered", "king_bare", "queens",
                "jacks", "long_ace_suits", "cards", "ashkal_ace", "ashkal_ten", "ashkal_king", "place1", "place2",
                "place3")
HOKUM_FEATURES = ("one", "J", "9", "A", "10", "K", "Q", "8", "7", "trumps_beyond_two", "side_aces",
                  "side_ten_with_ace", "side_ten_bare", "side_kings", "side_voids", "cards", "place1", "place2",
                  "place3")


def _suits(cards) -> list[set[int]]:
    suits: list[set[int]] = [set(), set(), set(), set()]
    for c in cards:
        suits[c >> 3].add(c & 7)
    return suits


def _place(place: int) -> list[float]:
    return [float(place == 1), float(place == 2), float(place == 3)]


def sun_features(cards, place: int, ashkal_faceup: int | None = None) -> list[float]:
    """The Sun features (``SUN_FEATURES``) of the buyer's ``cards`` (card numbers); ``ashkal_faceup``: the
    face-up card his partner takes (Ashkal), else None."""
    suits = _suits(cards)
    f = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, float(len(cards))]
    for s in suits:
        ace, ten, king = ACE in s, TEN in s, KING in s
        f[1] += ace
        f[2] += ten and ace
        f[3] += ten and not ace and not king
        f[4] += ten and king and not ace
        f[5] += king and (ace or ten)
        f[6] += king and not ace and not ten
        f[7] += QUEEN in s
        f[8] += JACK in s
        f[9] += ace and len(s) >= 3
    rank = None if ashkal_faceup is None else ashkal_faceup & 7
    f += [float(rank == ACE), float(rank == TEN), float(rank == KING)]
    return f + _place(place)


def hokum_features(cards, trump: int, place: int) -> list[float]:
    """The Hokum features (``HOKUM_FEATURES``) of the buyer's ``cards`` with ``trump`` trumps."""
    suits = _suits(cards)
    t = suits[trump]
    f = [1.0] + [float(r in t) for r in (JACK, NINE, ACE, TEN, KING, QUEEN, EIGHT, SEVEN)]
    f.append(float(max(0, len(t) - 2)))
    side = [s for i, s in enumerate(suits) if i != trump]
    f.append(float(sum(ACE in s for s in side)))
    f.append(float(sum(TEN in s and ACE in s for s in side)))
    f.append(float(sum(TEN in s and ACE not in s for s in side)))
    f.append(float(sum(KING in s for s in side)))
    f.append(float(sum(not s for s in side)))
    f.append(float(len(cards)))
    return f + _place(place)


def predict(kind: str, features: list[float]) -> float:
    """The model's value of a contract of ``kind`` ("sun" or "hokum") for the buyer's team, in GP margin."""
    return sum(w * x for w, x in zip(COEFFICIENTS[kind], features))


# Fitted by bench/expert.py --fit (see FIT); regenerate them with it.
COEFFICIENTS: dict[str, tuple[float, ...]] = {
    'sun': (-23.595, 12.3, 6.63, 3.757, 1.31, 4.345, 1.788, 1.835, 0.885, -0.089, 0.898, 16.866, 5.335, 2.506, -11.479, -1.861, -12.149),
    'hokum': (-0.156, 8.47, 2.19, 0.243, -0.117, -1.074, -0.549, -1.863, -1.772, 5.842, 3.86, 0.962, 1.238, -0.982, 1.285, -0.938, -4.251, -0.744, -5.15),
}
FIT: dict = {'sun': {'rows': 2971, 'mean': -4.39, 'sd': 27.01, 'residual_sd': 24.45}, 'hokum': {'rows': 2400, 'mean': 2.97, 'sd': 15.42, 'residual_sd': 13.4}, 'deals': 2400, 'seeds': 'fit:0…', 'cpu_seconds': 669.0, 'jobs': 2}
