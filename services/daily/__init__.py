"""The daily deal: the day's boards per profile, played with a bot partner against bot opponents, scored
against the field (docs/daily.md)."""
