# Sourced by the Postgres probes: a scratch database named "$1_<pid>" on $PGURL (default the local
# server), with `admin` (psql on the postgres database) and `db` (psql on the scratch one), dropped
# when the probe exits, however it exits.
PGURL="${PGURL:-postgresql://postgres@127.0.0.1:5432}"
DB="$1_$$"
admin() { psql -q -X -v ON_ERROR_STOP=1 "$PGURL/postgres" "$@"; }
db() { psql -q -X -v ON_ERROR_STOP=1 "$PGURL/$DB" "$@"; }
admin -c "CREATE DATABASE $DB"
trap 'admin -c "DROP DATABASE IF EXISTS $DB" >/dev/null' EXIT
