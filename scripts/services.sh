#!/usr/bin/env bash
# Start the services the tests need: a throwaway PostgreSQL server on 127.0.0.1.
# Idempotent: reuses a server already answering on the port, and does nothing at all when
# PROCESSION_TEST_POSTGRES_DSN is set. Writes the DSN to .pgdata/dsn for the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${PROCESSION_TEST_POSTGRES_DSN:-}" ]; then
  echo "services: PostgreSQL from PROCESSION_TEST_POSTGRES_DSN"
  exit 0
fi

PGPORT="${PROCESSION_TEST_POSTGRES_PORT:-54329}"
# The cluster lives outside the checkout so the postgres user can reach it wherever the
# checkout is (a clone under a private home directory is not traversable by postgres).
PGDIR="${PROCESSION_PGDATA:-/tmp/procession-pgdata}"
DSN="postgresql://postgres@127.0.0.1:${PGPORT}/postgres"

pg_bin() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    su postgres -s /bin/sh -c "$1"
  else
    sh -c "$1"
  fi
}

PGBIN="$(pg_bin)"
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/pg_ctl" ]; then
  echo "services: installing PostgreSQL"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
  PGBIN="$(pg_bin)"
fi

mkdir -p "$PGDIR"
if "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"; then
  echo "services: PostgreSQL already running on 127.0.0.1:$PGPORT"
else
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$PGDIR"
  fi
  init_cluster() {
    rm -rf "$PGDIR/data"
    as_postgres "'$PGBIN/initdb' -D '$PGDIR/data' -A trust -U postgres --no-sync >'$PGDIR/initdb.log' 2>&1" \
      || { cat "$PGDIR/initdb.log" >&2; exit 1; }
  }
  start_server() {
    as_postgres "'$PGBIN/pg_ctl' -D '$PGDIR/data' -w -t 60 -l '$PGDIR/server.log' \
      -o \"-p $PGPORT -k '$PGDIR' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200\" start" \
      >/dev/null
  }
  if [ ! -f "$PGDIR/data/PG_VERSION" ]; then
    init_cluster
  fi
  # A cluster left by a killed session may refuse to start (a stale lock file, say): the data
  # is throwaway, so start again from a fresh one.
  if ! start_server; then
    echo "services: the old test cluster did not start; making a new one" >&2
    init_cluster
    start_server || { tail -n 30 "$PGDIR/server.log" >&2; exit 1; }
  fi
  echo "services: PostgreSQL started on 127.0.0.1:$PGPORT (data in $PGDIR)"
fi
mkdir -p .pgdata
echo "$DSN" >.pgdata/dsn
