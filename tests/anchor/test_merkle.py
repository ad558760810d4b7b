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
    inclusion_proof,
    leaf_hash,
    node_hash,
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
