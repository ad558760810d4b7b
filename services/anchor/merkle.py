"""Merkle tree hashing as in RFC 9162 (Certificate Transparency v2), section 2.1: pure, stdlib only.

Functions take *leaf hashes* (``leaf_hash(data)``), not leaf data, so a caller hashes each leaf once.
A tree of n leaves splits at k, the largest power of two below n: the left subtree is always perfect,
which is what lets a ``Frontier`` (the roots of the perfect subtrees, left to right; a "compact range")
extend a tree by appending leaves without the earlier ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """The hash of one leaf: sha256(0x00 || data)."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an inner node: sha256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two strictly below n (n >= 2): the size of the left subtree."""
    return 1 << ((n - 1).bit_length() - 1)


class Frontier:
    """The roots of the perfect subtrees of a tree of ``size`` leaves, largest (leftmost) first.

    There is one per bit set in ``size``, so a frontier is at most 64 hashes, and appending a leaf
    merges equal-sized subtrees like a binary counter carries.
    """

    __slots__ = ("size", "hashes")

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        if len(hashes) != size.bit_count():
            raise ValueError(f"a frontier of {size} leaves has {size.bit_count()} hashes, not {len(hashes)}")
        self.size = size
        self.hashes = list(hashes)

    def append(self, leaf: bytes) -> None:
        """Add one leaf hash at the right."""
        node, size, hashes = leaf, self.size, self.hashes
        while size & 1:
            node = node_hash(hashes.pop(), node)
            size >>= 1
        hashes.append(node)
        self.size += 1

    def append_subtrees(self, leaf: bytes, min_level: int = 0) -> list[tuple[int, int, bytes]]:
        """Add one leaf hash at the right; return the perfect subtrees it completes, lowest first.

        Each is ``(level, index, hash)``: the subtree of the 2**level leaves from ``index * 2**level``.
        Only levels ``min_level`` and above are returned (the leaf itself is level 0).
        """
        completed: list[tuple[int, int, bytes]] = []
        end = self.size + 1
        node, size, hashes, level = leaf, self.size, self.hashes, 0
        if min_level == 0:
            completed.append((0, self.size, leaf))
        while size & 1:
            node = node_hash(hashes.pop(), node)
            size >>= 1
            level += 1
            if level >= min_level:
                completed.append((level, (end >> level) - 1, node))
        hashes.append(node)
        self.size = end
        return completed

    def extend(self, leaves: Iterable[bytes]) -> None:
        """Add leaf hashes at the right, in order."""
        for leaf in leaves:
            self.append(leaf)

    def root(self) -> bytes:
        """The tree's root: the subtree roots folded from the right (RFC 9162's split, unrolled)."""
        if not self.hashes:
            return EMPTY_ROOT
        node = self.hashes[-1]
        for left in reversed(self.hashes[:-1]):
            node = node_hash(left, node)
        return node

    def copy(self) -> Frontier:
        return Frontier(self.size, self.hashes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Frontier) and (self.size, self.hashes) == (other.size, other.hashes)

    def __repr__(self) -> str:
        return f"Frontier(size={self.size}, hashes=[{', '.join(h.hex()[:8] for h in self.hashes)}])"


def root(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH(D[n]): the root of the tree over these leaf hashes (sha256 of nothing when empty)."""
    frontier = Frontier()
    frontier.extend(leaf_hashes)
    return frontier.root()


def _subtree(leaves: Sequence[bytes], lo: int, hi: int) -> bytes:
    frontier = Frontier()
    for i in range(lo, hi):
        frontier.append(leaves[i])
    return frontier.root()


def inclusion_proof(index: int, leaf_hashes: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]): the audit path of leaf ``index``, bottom up."""
    if not 0 <= index < len(leaf_hashes):
        raise ValueError(f"leaf {index} is not in a tree of {len(leaf_hashes)} leaves")
    proof: list[bytes] = []
    lo, hi, m = 0, len(leaf_hashes), index
    while hi - lo > 1:
        k = split(hi - lo)
        if m < k:
            proof.append(_subtree(leaf_hashes, lo + k, hi))
            hi = lo + k
        else:
            proof.append(_subtree(leaf_hashes, lo, lo + k))
            lo, m = lo + k, m - k
    proof.reverse()
    return proof


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], root_hash: bytes) -> bool:
    """Whether ``proof`` shows leaf hash ``leaf`` at ``index`` in the tree of ``size`` with this root."""
    if not 0 <= index < size:
        return False
    fn, sn, node = index, size - 1, leaf
    for sibling in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            node = node_hash(sibling, node)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            node = node_hash(node, sibling)
        fn >>= 1
        sn >>= 1
    return sn == 0 and node == root_hash


def consistency_proof(m: int, leaf_hashes: Sequence[bytes]) -> list[bytes]:
    """PROOF(m, D[n]): shows the tree of the first m leaves is a prefix of the tree of all n."""
    n = len(leaf_hashes)
    if not 0 <= m <= n:
        raise ValueError(f"a tree of {n} leaves has no prefix of {m}")
    if m in (0, n):
        return []
    proof: list[bytes] = []
    lo, hi, whole = 0, n, True  # SUBPROOF(m, D[lo:hi], whole), unrolled
    while m != hi - lo:
        k = split(hi - lo)
        if m <= k:
            proof.append(_subtree(leaf_hashes, lo + k, hi))
            hi = lo + k
        else:
            proof.append(_subtree(leaf_hashes, lo, lo + k))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        proof.append(_subtree(leaf_hashes, lo, hi))
    proof.reverse()
    return proof


def verify_consistency(m: int, n: int, root_m: bytes, root_n: bytes, proof: Sequence[bytes]) -> bool:
    """Whether ``proof`` shows the tree of size m with ``root_m`` is a prefix of the one of size n."""
    if not 0 <= m <= n:
        return False
    if m == n:
        return not proof and root_m == root_n
    if m == 0:
        return not proof and root_m == EMPTY_ROOT
    if not proof:
        return False
    path = list(proof)
    if m & (m - 1) == 0:  # the old tree is a perfect subtree: its root starts the path
        path.insert(0, root_m)
    fn, sn = m - 1, n - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == root_m and sr == root_n


# Proofs from stored subtrees.  Every node of an RFC 9162 proof is MTH(D[lo:hi]) for a range whose start is
# aligned to a power of two at least as large as the range (the recursion splits at powers of two from 0), so
# it is the fold of at most 64 *perfect aligned* subtrees: the ones a store of such subtrees can answer from.
# The functions below name those ranges; `consistency_proof` and `inclusion_proof` above, which hash the
# leaves themselves, are the reference they are tested against.


def perfect_subtrees(lo: int, hi: int) -> list[tuple[int, int]]:
    """The perfect aligned subtrees, as ``(level, index)`` left to right, whose fold is MTH(D[lo:hi]).

    ``lo`` must be 0 or aligned to a power of two at least ``hi - lo`` (as every range of a proof is);
    raises ValueError otherwise, or when the range is empty.
    """
    width = hi - lo
    if not 0 <= lo < hi or (lo and lo & -lo < width):
        raise ValueError(f"D[{lo}:{hi}] is not a range of the RFC 9162 recursion")
    pieces: list[tuple[int, int]] = []
    for level in range(width.bit_length() - 1, -1, -1):
        if width >> level & 1:
            pieces.append((level, lo >> level))
            lo += 1 << level
    return pieces


def fold(hashes: Sequence[bytes]) -> bytes:
    """The root over perfect subtrees given left to right, largest first (a frontier's root)."""
    if not hashes:
        return EMPTY_ROOT
    node = hashes[-1]
    for left in reversed(hashes[:-1]):
        node = node_hash(left, node)
    return node


def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The ranges [lo, hi) whose roots, in this order, are PATH(index, D[size]) (bottom up)."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    ranges: list[tuple[int, int]] = []
    lo, hi, m = 0, size, index
    while hi - lo > 1:
        k = split(hi - lo)
        if m < k:
            ranges.append((lo + k, hi))
            hi = lo + k
        else:
            ranges.append((lo, lo + k))
            lo, m = lo + k, m - k
    ranges.reverse()
    return ranges


def consistency_ranges(m: int, n: int) -> list[tuple[int, int]]:
    """The ranges [lo, hi) whose roots, in this order, are PROOF(m, D[n])."""
    if not 0 <= m <= n:
        raise ValueError(f"a tree of {n} leaves has no prefix of {m}")
    if m in (0, n):
        return []
    ranges: list[tuple[int, int]] = []
    lo, hi, whole = 0, n, True
    while m != hi - lo:
        k = split(hi - lo)
        if m <= k:
            ranges.append((lo + k, hi))
            hi = lo + k
        else:
            ranges.append((lo, lo + k))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        ranges.append((lo, hi))
    ranges.reverse()
    return ranges
