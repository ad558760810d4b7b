"""The documented seed → deck function (baloot-shuffle/1), checked against an independent reading."""

import hashlib

from domain.baloot.shuffle import deck_from_seed, seed_commitment


def reference_shuffle(seed: str) -> list[int]:
    """The algorithm exactly as the module docstring states it, written separately."""
    stream = b""
    block = 0

    def word():
        nonlocal stream, block
        while len(stream) < 4:
            stream += hashlib.sha256(b"baloot-shuffle/1:" + seed.encode() + b":" + block.to_bytes(8, "big")).digest()
            block += 1
        w, stream = int.from_bytes(stream[:4], "big"), stream[4:]
        return w

    deck = list(range(32))
    for i in range(31, 0, -1):
        n = i + 1
        while True:
            u = word()
            if u < 2**32 - (2**32 % n):
                break
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_the_deck_follows_the_documented_algorithm():
    for seed in ["", "1", "table-9/deal-3", "بلوت"]:
        assert list(deck_from_seed(seed)) == reference_shuffle(seed)


def test_a_deck_is_a_permutation_and_seeds_differ():
    decks = {deck_from_seed(str(i)) for i in range(200)}
    assert len(decks) == 200
    assert all(sorted(d) == list(range(32)) for d in decks)


def test_every_card_reaches_every_position():
    seen = [set() for _ in range(32)]
    for i in range(2000):
        for pos, c in enumerate(deck_from_seed(f"s{i}")):
            seen[pos].add(c)
    assert all(len(s) == 32 for s in seen)


def test_commitment_is_sha256_of_the_tagged_seed():
    assert seed_commitment("abc") == hashlib.sha256(b"baloot-seed/1:abc").hexdigest()
