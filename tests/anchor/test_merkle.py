"""RFC 9162 Merkle trees: roots, inclusion and consistency proofs, the incremental frontier."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.anchor.merkle import (
    EMPTY_ROOT,
    Frontier,
    consistency_proof,
    consistency_ranges,
    fold,
    inclusion_proof,
    inclusion_ranges,
    leaf_hash,
    node_hash,
    perfect_subtrees,
    root,
    verify_consistency,
    verify_inclusion,
)


def reference_root(leaves: list[bytes]) -> bytes:
    """MTH written as the RFC states it, recursively, to check the unrolled versions against."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(reference_root(leaves[:k]), reference_root(leaves[k:]))


def tree(n: int) -> list[bytes]:
    return [leaf_hash(i.to_bytes(4, "big")) for i in range(n)]


sizes = st.integers(min_value=1, max_value=300)


def test_hashes_are_domain_separated_as_in_the_rfc():
    assert leaf_hash(b"") == hashlib.sha256(b"\x00").digest()
    assert node_hash(b"a", b"b") == hashlib.sha256(b"\x01ab").digest()
    assert root([]) == EMPTY_ROOT == hashlib.sha256(b"").digest()
    # The RFC 6962 reference vector: the root of the empty leaf alone.
    assert root([leaf_hash(b"")]).hex() == "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"


@given(sizes)
def test_the_frontier_root_is_the_full_root(n):
    leaves = tree(n)
    frontier = Frontier()
    for i, leaf in enumerate(leaves, 1):
        frontier.append(leaf)
        if i in (1, n // 2 or 1, n):
            assert frontier.root() == reference_root(leaves[:i])
    assert root(leaves) == reference_root(leaves)
    assert len(frontier.hashes) == n.bit_count()


@given(sizes, sizes)
def test_a_frontier_extends_from_a_stored_copy(m, extra):
    leaves = tree(m + extra)
    stored = Frontier()
    stored.extend(leaves[:m])
    resumed = Frontier(stored.size, list(stored.hashes))
    resumed.extend(leaves[m:])
    assert resumed.root() == root(leaves)
    with pytest.raises(ValueError):
        Frontier(m, stored.hashes + [b"x" * 32])


@given(sizes, st.data())
def test_every_inclusion_proof_verifies_and_a_changed_leaf_or_root_fails(n, data):
    leaves = tree(n)
    top = root(leaves)
    index = data.draw(st.integers(0, n - 1))
    proof = inclusion_proof(index, leaves)
    assert verify_inclusion(index, n, leaves[index], proof, top)
    assert not verify_inclusion(index, n, leaf_hash(b"forged"), proof, top)
    assert not verify_inclusion(index, n, leaves[index], proof, leaf_hash(b"another root"))
    if n > 1:
        other = data.draw(st.integers(0, n - 1).filter(lambda i: i != index))
        assert not verify_inclusion(other, n, leaves[index], proof, top)


@given(sizes, st.data())
@settings(max_examples=200)
def test_every_consistency_proof_verifies_and_a_changed_root_fails(n, data):
    leaves = tree(n)
    m = data.draw(st.integers(0, n))
    proof = consistency_proof(m, leaves)
    root_m, root_n = root(leaves[:m]), root(leaves)
    assert verify_consistency(m, n, root_m, root_n, proof)
    bad = leaf_hash(b"bad")
    assert not verify_consistency(m, n, bad, root_n, proof)
    if m > 0:  # the empty tree is a prefix of every tree, whatever its root
        assert not verify_consistency(m, n, root_m, bad, proof)


@given(st.integers(2, 200), st.data())
def test_a_rewritten_prefix_is_not_consistent(n, data):
    leaves = tree(n)
    m = data.draw(st.integers(1, n - 1))
    changed = data.draw(st.integers(0, m - 1))
    forged = list(leaves)
    forged[changed] = leaf_hash(b"rewritten")
    # The old root was signed over the honest prefix; a proof from the rewritten log cannot link them.
    assert not verify_consistency(m, n, root(leaves[:m]), root(forged), consistency_proof(m, forged))


def reference_path(m: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]) as RFC 9162 section 2.1.3.1 writes it, recursively."""
    n = len(leaves)
    if n == 1:
        return []
    k = 1
    while k * 2 < n:
        k *= 2
    if m < k:
        return reference_path(m, leaves[:k]) + [reference_root(leaves[k:])]
    return reference_path(m - k, leaves[k:]) + [reference_root(leaves[:k])]


def reference_subproof(m: int, leaves: list[bytes], whole: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b) as RFC 9162 section 2.1.4.1 writes it, recursively."""
    n = len(leaves)
    if m == n:
        return [] if whole else [reference_root(leaves)]
    k = 1
    while k * 2 < n:
        k *= 2
    if m <= k:
        return reference_subproof(m, leaves[:k], whole) + [reference_root(leaves[k:])]
    return reference_subproof(m - k, leaves[k:], False) + [reference_root(leaves[:k])]


def from_pieces(leaves: list[bytes], lo: int, hi: int) -> bytes:
    """MTH(D[lo:hi]) as a store of perfect subtrees gives it: each piece hashed alone, then folded."""
    return fold([reference_root(leaves[i << level:(i + 1) << level]) for level, i in perfect_subtrees(lo, hi)])


@given(st.integers(1, 600), st.data())
@settings(max_examples=300)
def test_proofs_from_perfect_subtrees_are_the_rfc_proofs(n, data):
    leaves = tree(n)
    m = data.draw(st.integers(0, n))
    expected = [] if m in (0, n) else reference_subproof(m, leaves, True)
    assert consistency_proof(m, leaves) == expected
    assert [from_pieces(leaves, lo, hi) for lo, hi in consistency_ranges(m, n)] == expected
    index = data.draw(st.integers(0, n - 1))
    path = [from_pieces(leaves, lo, hi) for lo, hi in inclusion_ranges(index, n)]
    assert path == inclusion_proof(index, leaves) == reference_path(index, leaves)
    assert verify_inclusion(index, n, leaves[index], path, reference_root(leaves))


def test_a_range_off_the_recursion_is_refused_and_large_sizes_stay_small():
    with pytest.raises(ValueError):
        perfect_subtrees(3, 7)     # 3 is not aligned to a power of two >= 4
    with pytest.raises(ValueError):
        perfect_subtrees(5, 5)
    assert perfect_subtrees(0, 13) == [(3, 0), (2, 2), (0, 12)]
    assert perfect_subtrees(1 << 20, (1 << 20) + 3) == [(1, 1 << 19), (0, (1 << 20) + 2)]
    n = 6_500_000_123
    for m in (1, 255, 256, 1 << 31, n - 1):
        pieces = {p for lo, hi in consistency_ranges(m, n) for p in perfect_subtrees(lo, hi)}
        assert len(pieces) <= 2 * n.bit_length()


@given(sizes, st.integers(0, 4))
def test_appending_reports_every_perfect_subtree_once(n, min_level):
    leaves = tree(n)
    frontier, seen = Frontier(), []
    for leaf in leaves:
        seen += frontier.append_subtrees(leaf, min_level)
    assert frontier.root() == root(leaves)
    expected = [(level, i) for level in range(min_level, n.bit_length()) for i in range(n >> level)]
    assert sorted((level, i) for level, i, _ in seen) == sorted(expected)
    assert all(h == reference_root(leaves[i << level:(i + 1) << level]) for level, i, h in seen)
