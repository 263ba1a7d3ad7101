#!/bin/bash
# Entrypoint of coderunner/postgres:15 (compose/fleet.yaml, compose/README.md).
#
# Environment:
#   POSTGRES_PASSWORD          required: the password of POSTGRES_USER
#   POSTGRES_USER              the role coderunner connects as (coderunner)
#   POSTGRES_DB                its database, owned by it (coderunner)
#   POSTGRES_LISTEN_ADDRESSES  listen_addresses (*; compose/fleet.yaml uses
#                              127.0.0.1, it runs on the host's network)
#   POSTGRES_PORT              port (5432)
#   PGDATA                     the cluster, a volume (/var/lib/postgresql/data)
#
# On the first start (PGDATA empty) initdb's a cluster there as the postgres
# user: local (socket) connections by peer, every TCP connection by
# scram-sha-256 only; then it creates the role and the database. Later
# starts reuse the cluster: the password is only set at creation. The
# server runs in the foreground as postgres (SIGINT: fast shutdown).
set -euo pipefail
die() { echo "postgres-entrypoint: $*" >&2; exit 2; }

: "${POSTGRES_PASSWORD:?postgres-entrypoint: set POSTGRES_PASSWORD}"
[[ $POSTGRES_USER =~ ^[a-z_][a-z0-9_]*$ ]] || die "POSTGRES_USER '$POSTGRES_USER' is not a plain identifier"
[[ $POSTGRES_DB =~ ^[a-z_][a-z0-9_]*$ ]] || die "POSTGRES_DB '$POSTGRES_DB' is not a plain identifier"
as_pg() { setpriv --reuid postgres --regid postgres --init-groups "$@"; }

install -d -o postgres -g postgres -m 0700 "$PGDATA"
install -d -o postgres -g postgres -m 0775 /run/postgresql
chown postgres:postgres "$PGDATA"

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  pwfile=$(mktemp /run/postgresql/.pw.XXXXXX)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  # The superuser gets the same password; only the socket (peer) needs none.
  as_pg initdb -D "$PGDATA" -U postgres --pwfile="$pwfile" --auth-local=peer \
    --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  # A server on the socket only, to create the role and the database.
  as_pg pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=/run/postgresql" start >/dev/null
  # The password comes from the environment (\getenv), not argv; :'pw'
  # quotes it as a literal.
  as_pg psql -v ON_ERROR_STOP=1 -h /run/postgresql -U postgres -d postgres -q <<SQL
\\getenv pw POSTGRES_PASSWORD
CREATE ROLE $POSTGRES_USER LOGIN PASSWORD :'pw';
CREATE DATABASE $POSTGRES_DB OWNER $POSTGRES_USER;
SQL
  as_pg pg_ctl -D "$PGDATA" -w -m fast stop >/dev/null
  echo "postgres-entrypoint: initialised $PGDATA (role and database $POSTGRES_USER/$POSTGRES_DB)"
fi

exec setpriv --reuid postgres --regid postgres --init-groups \
  postgres -D "$PGDATA" -c listen_addresses="$POSTGRES_LISTEN_ADDRESSES" -c port="$POSTGRES_PORT" \
  -c unix_socket_directories=/run/postgresql -c password_encryption=scram-sha-256 -c jit=off
