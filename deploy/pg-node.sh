#!/bin/sh
# One PostgreSQL node of the pair in deploy/compose.yml (run as the container's command).
#   PG_PORT: this node's port; PG_PEER: the other node's; PG_FIRST=1 on the node that may create the cluster.
# An empty data directory becomes a streaming standby of the peer when the peer is a primary
# (pg_basebackup -R: standby.signal and primary_conninfo), else, on the first node only, a new cluster. A node
# that was a primary and is started again after its standby was promoted must not come back as a second
# primary: the failover's driver (deploy/chaos.py, the operator's part) empties its volume first, and it joins
# again as the new primary's standby.
#
# Commits wait for the standby (synchronous_standby_names = '*', ALTER SYSTEM: the failover's driver changes it
# on a promoted node and puts it back once a standby streams again): a committed event is on both nodes.
# fsync is off because both nodes share this host's kernel (a killed container loses no written page); in
# production each node has its own disks and fsync stays on (docs/operations.md).
set -e
bin=/usr/lib/postgresql/15/bin
primary() { [ "$($bin/psql -h 127.0.0.1 -p "$1" -U postgres -Atc 'SELECT NOT pg_is_in_recovery()' 2>/dev/null)" = t ]; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ "${PG_FIRST:-0}" = 1 ] && ! primary "$PG_PEER"; then
    $bin/initdb -D "$PGDATA" -U postgres -A trust --no-sync >/dev/null
    # Set up on the socket only: nobody reaches the new cluster before it is ready.
    $bin/postgres -D "$PGDATA" -c listen_addresses= -k /tmp &
    until $bin/pg_isready -q -h /tmp; do sleep 0.2; done
    $bin/createdb -h /tmp -U postgres baloot
    $bin/psql -q -h /tmp -U postgres -c "ALTER SYSTEM SET synchronous_standby_names = '*'"
    $bin/pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  else
    tries=600
    until primary "$PG_PEER"; do
      tries=$((tries - 1)); [ "$tries" -gt 0 ] || { echo "pg-node: no primary on port $PG_PEER to copy" >&2; exit 1; }
      sleep 0.2
    done
    $bin/pg_basebackup -h 127.0.0.1 -p "$PG_PEER" -U postgres -D "$PGDATA" -R -X stream --checkpoint=fast
  fi
fi
chmod 700 "$PGDATA"              # a new volume's directory is 0755; PostgreSQL starts on 0700 only
exec $bin/postgres -D "$PGDATA" -p "$PG_PORT" -c listen_addresses=127.0.0.1 -k /tmp \
  -c max_connections=200 -c fsync=off -c wal_level=replica -c max_wal_senders=8 -c hot_standby=on \
  -c wal_keep_size=512MB -c wal_log_hints=on -c "cluster_name=node-$PG_PORT"
