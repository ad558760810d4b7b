"""The database's numbered, forward-only SQL migrations (``NNNN_name.sql``), shipped as package data so
that an installed wheel or a container image migrates too; ``services.eventstore.migrations`` applies them.

``0001`` is the event store itself (streams, hash chains, the read horizon); the others are the tables of
the services beside it: users and table index (``0002``), the standings read model (``0003``), the
reporting append (``0004``), receipts and checkpoints (``0005``), tokens (``0006``), consent (``0007``),
the daily deal's read model (``0008``), the log's stored subtrees for O(log n) proofs (``0009``), shared
boards marked in the table index (``0010``), the revocation of tokens held for bot users (``0011``), and
accounts' logins and passwords with browser sessions among the tokens (``0012``), the invitations that
let a person claim an account an organiser made for him (``0013``), and the referee's desk: receipts of
rulings and the index its queue reads (``0014``), the players' ratings (``0015``), webhooks (``0016``), the
fair-play analysis (``0017``), receipts' copies kept without waiting for the disk, the board sets' and game ends' indexes (``0018``),
the lobby's indexes of championship members and pending invitations, with the proposers of waiting tables
(``0022``), and the accounts' hardening: the sign-in throttle's counts, logins' look-alike skeletons, names'
keys and the imports' daily budget of accounts (``0023``), and the fair-play deals queued again for the
exact analysis (``0024``), and the deal reviews' sums by phase, the evaluation bar's values and what is
watched (``0025``).
"""
