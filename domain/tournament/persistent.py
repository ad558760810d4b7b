"""Small persistent collections so that a 65,536-team tournament can be folded one event at a time.

Copying a dict of every team or every match on each event would make a championship quadratic.
`PMap` is a hash array mapped trie and `PVec` a vector of 64-slot chunks: both share everything but
the changed path, so old states stay valid (immutable) and an update costs microseconds.
Iteration order of `PMap` follows hashes and is unspecified: never let it decide anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_BITS = 5
_MASK = (1 << _BITS) - 1
_HASH_MASK = (1 << 64) - 1
_EMPTY_NODE: tuple = (None,) * (1 << _BITS)


class _Leaf:
    __slots__ = ("key", "value", "hash")

    def __init__(self, key: Any, value: Any, h: int) -> None:
        self.key, self.value, self.hash = key, value, h


class _Bucket(tuple):
    """Leaves whose 64-bit hashes are all equal."""


def _assoc(node: tuple, shift: int, h: int, key: Any, value: Any) -> tuple[tuple, bool]:
    i = (h >> shift) & _MASK
    entry = node[i]
    if entry is None:
        new: Any = _Leaf(key, value, h)
        added = True
    elif type(entry) is _Leaf:
        if entry.hash == h and entry.key == key:
            new, added = _Leaf(key, value, h), False
        elif shift + _BITS >= 64 and entry.hash == h:
            new, added = _Bucket((entry, _Leaf(key, value, h))), True
        else:
            sub, _ = _assoc(_EMPTY_NODE, shift + _BITS, entry.hash, entry.key, entry.value)
            new, added = _assoc(sub, shift + _BITS, h, key, value)
    elif type(entry) is _Bucket:
        kept = tuple(leaf for leaf in entry if leaf.key != key)
        new, added = _Bucket(kept + (_Leaf(key, value, h),)), len(kept) == len(entry)
    else:
        new, added = _assoc(entry, shift + _BITS, h, key, value)
    return node[:i] + (new,) + node[i + 1:], added


class PMap:
    """An immutable mapping; `set` returns a new map sharing all untouched nodes."""

    __slots__ = ("_root", "_len")

    def __init__(self, items: Any = ()) -> None:
        self._root, self._len = _EMPTY_NODE, 0
        pairs = items.items() if hasattr(items, "items") else items
        for key, value in pairs:
            self._root, added = _assoc(self._root, 0, hash(key) & _HASH_MASK, key, value)
            self._len += added

    def get(self, key: Any, default: Any = None) -> Any:
        h = hash(key) & _HASH_MASK
        node, shift = self._root, 0
        while True:
            entry = node[(h >> shift) & _MASK]
            if entry is None:
                return default
            kind = type(entry)
            if kind is _Leaf:
                return entry.value if entry.key == key else default
            if kind is _Bucket:
                return next((leaf.value for leaf in entry if leaf.key == key), default)
            node, shift = entry, shift + _BITS

    def set(self, key: Any, value: Any) -> PMap:
        new = PMap.__new__(PMap)
        new._root, added = _assoc(self._root, 0, hash(key) & _HASH_MASK, key, value)
        new._len = self._len + added
        return new

    def __getitem__(self, key: Any) -> Any:
        marker = _MISSING
        value = self.get(key, marker)
        if value is marker:
            raise KeyError(key)
        return value

    def __contains__(self, key: Any) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def __len__(self) -> int:
        return self._len

    def items(self) -> Iterator[tuple[Any, Any]]:
        stack = [self._root]
        while stack:
            for entry in stack.pop():
                if entry is None:
                    continue
                if type(entry) is _Leaf:
                    yield entry.key, entry.value
                elif type(entry) is _Bucket:
                    yield from ((leaf.key, leaf.value) for leaf in entry)
                else:
                    stack.append(entry)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PMap) or len(other) != len(self):
            return False
        return all(other.get(k, _MISSING) == v for k, v in self.items())

    def __repr__(self) -> str:
        return f"PMap({dict(self.items())!r})"


_MISSING = object()
_CHUNK = 64


class PVec:
    """An immutable list of 64-slot chunks: `set` and `append` copy one chunk and the chunk index."""

    __slots__ = ("_chunks", "_len")

    def __init__(self, items: Any = ()) -> None:
        values = tuple(items)
        self._chunks = tuple(values[i:i + _CHUNK] for i in range(0, len(values), _CHUNK))
        self._len = len(values)

    @classmethod
    def _make(cls, chunks: tuple, length: int) -> PVec:
        new = cls.__new__(cls)
        new._chunks, new._len = chunks, length
        return new

    def __getitem__(self, i: int) -> Any:
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(i)
        return self._chunks[i >> 6][i & 63]

    def set(self, i: int, value: Any) -> PVec:
        if not 0 <= i < self._len:
            raise IndexError(i)
        c, j = i >> 6, i & 63
        chunk = self._chunks[c]
        chunks = self._chunks[:c] + (chunk[:j] + (value,) + chunk[j + 1:],) + self._chunks[c + 1:]
        return PVec._make(chunks, self._len)

    def append(self, value: Any) -> PVec:
        if self._len & 63:
            chunks = self._chunks[:-1] + (self._chunks[-1] + (value,),)
        else:
            chunks = self._chunks + ((value,),)
        return PVec._make(chunks, self._len + 1)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[Any]:
        for chunk in self._chunks:
            yield from chunk

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PVec) and len(other) == len(self) and all(
            a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        return f"PVec({list(self)!r})"
