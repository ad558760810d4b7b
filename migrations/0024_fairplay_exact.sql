-- Fair play judged on the exact truth (issue 48; domain/baloot/fairplay.py, domain/baloot/solver.py): a
-- decision's true values now come from the perfect-information solver and a deal's samples from its own
-- cards, so every deal analysed before is queued again ('pending', its old decisions dropped) and the
-- per-seat sums emptied: the analysers redo them with the new method. The queue's rows are the log's, kept.

UPDATE fairplay_deals SET status = 'pending', decisions = NULL, error = NULL, analysed_at = NULL,
                          claimed_until = NULL
 WHERE status <> 'pending';
TRUNCATE fairplay_seats;
