"""A command's event ids: name-based (UUID version 5) from the stream, actor, command id and place, so a
command stored twice gives the same ids; made without the stdlib's constructor, the same values."""

from __future__ import annotations

import uuid

from hypothesis import given, strategies as st

from services.commands import event_id

NAMES = st.text(min_size=0, max_size=40)


@given(st.uuids(), NAMES, NAMES, NAMES, st.integers(min_value=0, max_value=10_000))
def test_an_event_id_is_the_uuid5_of_its_name(namespace, stream_key, actor, command_id, k):
    made = event_id(namespace, stream_key, actor, command_id, k)
    expected = uuid.uuid5(namespace, f"{stream_key}/{actor}/{command_id}/{k}")
    assert made == expected and str(made) == str(expected) and hash(made) == hash(expected)
    assert isinstance(made, uuid.UUID) and made.version == 5 and made.variant == uuid.RFC_4122
