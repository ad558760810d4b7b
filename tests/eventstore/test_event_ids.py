"""A command's event ids: made from the stream, actor, command id and place, so a command stored twice gives
the same ids; the stream's own prefix first (a stream's events sit together in the log's index of ids), the
name's hash after it; a UUID of version 8 with the RFC 4122 variant, as the stdlib reads it."""

from __future__ import annotations

import hashlib
import uuid

from hypothesis import given, strategies as st

from services.commands import event_id

NAMES = st.text(min_size=0, max_size=40)


def expected(namespace: uuid.UUID, stream_key: str, name: str) -> uuid.UUID:
    """The id as the scheme says it, made here with the stdlib alone."""
    raw = bytearray(hashlib.sha1(namespace.bytes + stream_key.encode()).digest()[:6]
                    + hashlib.sha1(namespace.bytes + name.encode()).digest()[6:16])
    raw[6] = (raw[6] & 0x0F) | 0x80
    raw[8] = (raw[8] & 0x3F) | 0x80
    return uuid.UUID(bytes=bytes(raw))


@given(st.uuids(), NAMES, NAMES, NAMES, st.integers(min_value=0, max_value=10_000))
def test_an_event_id_is_its_streams_prefix_then_its_names_hash(namespace, stream_key, actor, command_id, k):
    made = event_id(namespace, stream_key, actor, command_id, k)
    want = expected(namespace, stream_key, f"{stream_key}/{actor}/{command_id}/{k}")
    assert made == want and str(made) == str(want) and hash(made) == hash(want)
    assert isinstance(made, uuid.UUID) and made.version == 8 and made.variant == uuid.RFC_4122
    assert made == event_id(namespace, stream_key, actor, command_id, k)        # the same again (cached prefix)


@given(st.uuids(), NAMES, NAMES, st.lists(st.tuples(NAMES, NAMES, st.integers(0, 99)), min_size=2, max_size=20,
                                        unique_by=lambda c: f"{c[0]}/{c[1]}/{c[2]}"))
def test_a_streams_events_share_its_prefix_and_differ_after_it(namespace, stream_key, other_key, commands):
    ids = [event_id(namespace, stream_key, actor, command_id, k) for actor, command_id, k in commands]
    assert len({i.bytes[:6] for i in ids}) == 1
    assert len(set(ids)) == len(ids)
    if other_key != stream_key:
        other = event_id(namespace, other_key, *commands[0])
        assert other.bytes[:6] != ids[0].bytes[:6]
