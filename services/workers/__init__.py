"""Background work on an at-least-once queue (Dramatiq): bot seats, turn clocks, championship schedules.

The log drives the work: what is pending (a bot to move, a clock that ran out, a review to close) is
derived from a table's events (`pending.py`), enqueued after each append and again by the reconciler, so a
lost message, a restarted worker or a broker restart delays work but never loses it. Every effect goes
through the tables' command path with a deterministic command id and the expected version, so a message
delivered twice, or a clock firing after the player acted, has one effect or none.
"""
