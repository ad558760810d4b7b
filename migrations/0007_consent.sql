-- Tables proposed by a user wait for the invited players ('invited'), and are 'cancelled' when one declines.
ALTER TABLE tables_index DROP CONSTRAINT tables_index_status_check;
ALTER TABLE tables_index ADD CONSTRAINT tables_index_status_check
    CHECK (status IN ('invited', 'live', 'finished', 'cancelled'));
