"""Webhooks for integrators (docs/webhooks.md): an organiser's endpoints (``endpoints``), the outbox the
workers keep from the log (``outbox``, a projection), the sender that delivers it signed, in order, at least
once (``sender``), and the check that keeps targets outside the platform's own network (``targets``)."""
