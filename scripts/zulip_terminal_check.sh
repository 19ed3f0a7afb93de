#!/usr/bin/env bash
# Runs zulip-terminal's Model (sources in ZT_SOURCES, default /work/ext: zulipterminal/*.py as
# docs/clients/zulip-terminal.md lists them) against a fresh Confab on a fresh SQLite file.
# Not run in CI. Needs a built tree (npm run build) and python3 with requests, bs4, lxml and
# typing_extensions (Debian: python3-requests python3-bs4 python3-lxml python3-typing-extensions).
# ZT_DATABASE_URL=postgres://… runs it on an empty PostgreSQL database instead.
# Usage: scripts/zulip_terminal_check.sh [transcript-file]
set -euo pipefail
cd "$(dirname "$0")/.."
SOURCES="${ZT_SOURCES:-/work/ext}"
[ -f "$SOURCES/zulipterminal/model.py" ] || { echo "no zulip-terminal sources in $SOURCES" >&2; exit 2; }
PY="${PYTHON:-/usr/bin/python3}"
PORT="${ZT_PORT:-9987}"
DATA="$(mktemp -d)"
export CONFAB_DATABASE_URL="${ZT_DATABASE_URL:-sqlite:$DATA/confab.db}" CONFAB_PORT="$PORT" CONFAB_UPLOADS_DIR="$DATA/uploads" \
  CONFAB_OUTBOX_DIR="$DATA/outbox" CONFAB_RATE_LIMITS=off
SITE="http://127.0.0.1:$PORT"

org="$(node bin/confab.js create-org --name 'Terminal Test' --owner-email terry@example.com \
  --owner-password 'terminal-pw-1' --owner-name 'Terry Terminal')"
node bin/confab.js create-user --email bob@example.com --password 'terminal-pw-2' --full-name 'Bob Builder' >/dev/null
node bin/confab.js create-user --email carol@example.com --password 'terminal-pw-3' --full-name 'Carol Coder' >/dev/null
node bin/confab.js serve >"$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 50); do curl -sf "$SITE/health" >/dev/null && break; sleep 0.2; done

key_of() { curl -sf "$SITE/api/v1/fetch_api_key" -d "username=$1" -d "password=$2" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["api_key"])'; }
export ZT_SOURCES="$SOURCES" ZT_SITE="$SITE" ZT_EMAIL=terry@example.com ZT_OTHER_EMAIL=bob@example.com
ZT_KEY="$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["api_key"])' "$org")"
ZT_OTHER_KEY="$(key_of bob@example.com terminal-pw-2)"
export ZT_KEY ZT_OTHER_KEY
# Both users in the channel the checks use.
curl -sf -u "terry@example.com:$ZT_KEY" "$SITE/api/v1/users/me/subscriptions" \
  --data-urlencode 'subscriptions=[{"name":"general"}]' --data-urlencode 'principals=["terry@example.com","bob@example.com"]' >/dev/null
# Unread messages waiting at start-up, of each kind the client counts: a mention in a topic, a DM
# and a group DM.
send_as_bob() { curl -sf -u "bob@example.com:$ZT_OTHER_KEY" "$SITE/api/v1/messages" "$@" >/dev/null; }
send_as_bob -d type=stream -d to=general -d topic=terminal --data-urlencode 'content=Welcome, @**Terry Terminal**'
send_as_bob -d type=private --data-urlencode 'to=["terry@example.com"]' -d 'content=Waiting for you'
send_as_bob -d type=private --data-urlencode 'to=["terry@example.com","carol@example.com"]' -d 'content=All three of us'

status=0
"$PY" scripts/zulip_terminal_model_check.py | tee "${1:-/dev/null}" || status=$?
exit "$status"
