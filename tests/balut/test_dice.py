"""``balut-dice/1``: the derivation re-done here from the documented algorithm, as anyone checking would."""

import hashlib

import pytest

from domain.balut.dice import (
    dice_text, faces_from_seed, faces_text, parse_dice, parse_faces, seed_commitment, thrown,
)


def documented_faces(seed: str) -> list[int]:
    out, block = [], 0
    while len(out) < 15:
        for b in hashlib.sha256(f"balut-dice/1:{seed}:".encode() + block.to_bytes(8, "big")).digest():
            if b < 252 and len(out) < 15:
                out.append(b % 6 + 1)
        block += 1
    return out


@pytest.mark.parametrize("seed", ["", "a", "table-7:turn-12", "بلوت"])
def test_faces_follow_the_documented_algorithm(seed):
    assert list(faces_from_seed(seed)) == documented_faces(seed)


def test_bytes_from_252_are_skipped():
    # Find a seed whose first digest has a byte >= 252 among its first 15 kept ones, and check it is skipped.
    for n in range(1000):
        digest = hashlib.sha256(f"balut-dice/1:s{n}:".encode() + bytes(8)).digest()
        first16 = list(digest[:16])
        if any(b >= 252 for b in first16[:15]):
            kept = [b % 6 + 1 for b in first16 if b < 252]
            assert list(faces_from_seed(f"s{n}"))[:len(kept[:15])] == kept[:15]
            return
    pytest.fail("no seed with a rejected byte in 1000 tries")


def test_the_commitment_is_sha256_of_the_prefixed_seed():
    assert seed_commitment("x") == hashlib.sha256(b"balut-seed/1:x").hexdigest()


def test_a_throw_keeps_the_kept_positions_and_takes_its_row_for_the_others():
    faces = parse_faces("11111/22222/33333")
    assert thrown(faces, 1, (6, 5, 4, 3, 2), (0, 4)) == (6, 2, 2, 2, 2)
    assert thrown(faces, 2, (6, 2, 2, 2, 2), ()) == (3, 3, 3, 3, 3)


def test_dice_notation_round_trips_and_refuses_bad_text():
    assert parse_dice("31562") == (3, 1, 5, 6, 2) and dice_text((3, 1, 5, 6, 2)) == "31562"
    assert faces_text(parse_faces("31562/44123/61655")) == "31562/44123/61655"
    for bad in ("3156", "31567", "3156a"):
        with pytest.raises(ValueError):
            parse_dice(bad)
    with pytest.raises(ValueError):
        parse_faces("31562/44123")
