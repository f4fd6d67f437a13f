#!/usr/bin/env bash
# The README's quickstart as one script: sign in, an API key with the permissions the rest needs,
# a project with a monitoring point, start it, write data, read the series, a webhook to a local
# receiver, a test event and its delivery. Needs curl and jq. test/embedded/quickstart.test.ts runs
# it against `npm start`, twice in a row on the same platform.
#
#   ADMIN_PASSWORD='<printed password>' examples/quickstart.sh
#
# Addresses come from the same settings as the platform's own (MP_HTTPS_PORT, MP_DATA_DIR) and the
# receiver's (RECEIVER_PORT); API, CA and RECEIVER_URL override them. Each run makes its own
# project (numbered by the time of the run), so the script can run again on the same platform.
set -euo pipefail

API=${API:-https://localhost:${MP_HTTPS_PORT:-8443}/v3}
CA=${CA:-${MP_DATA_DIR:-.data}/tls/tls.crt}
ADMIN_USERNAME=${ADMIN_USERNAME:-admin}
: "${ADMIN_PASSWORD:?set ADMIN_PASSWORD to the password npm start printed}"
RECEIVER_URL=${RECEIVER_URL:-https://127.0.0.1:${RECEIVER_PORT:-9443}/hook}
RUN=$(date -u +%Y%m%d%H%M%S)-$$

# curl that stops the script on an error answer and prints the answer's envelope (code, field,
# suggestion) on stderr: inside $(…) the body would otherwise land in a variable, unseen.
call() {
  local body
  if ! body=$(curl -sS --fail-with-body --cacert "$CA" -H 'Content-Type: application/json' "$@"); then
    echo "quickstart: the request to ${*: -1} failed:" >&2
    [ -n "$body" ] && printf '%s\n' "$body" >&2
    exit 1
  fi
  printf '%s\n' "$body"
}

# 1. Sign in: a 7200 s access token and a refresh token.
LOGIN=$(call -d "{\"username\":\"$ADMIN_USERNAME\",\"password\":\"$ADMIN_PASSWORD\",\"grant_type\":\"password\"}" "$API/auth/login")
TOKEN=$(jq -r .data.access_token <<<"$LOGIN")
REFRESH=$(jq -r .data.refresh_token <<<"$LOGIN")

# 2. An API key for scripts, with the permissions the steps below use.
KEY=$(call -H "Authorization: Bearer $TOKEN" \
  -d '{"name":"quickstart '"$RUN"'","permissions":["project:read","project:write","data:read","data:write","report:read","report:write","system:admin"]}' \
  "$API/api-keys" | jq -r .data.key)
echo "api key: ${KEY:0:12}…"

# 3. A project (status not_started) and a monitoring point in it.
PROJECT=$(call -H "X-API-Key: $KEY" -d '{"name":"Metro Line 4 tunnel","number":"ML4-'"$RUN"'","start_date":"2026-01-01"}' \
  "$API/projects" | jq -r .data.id)
POINT=$(call -H "X-API-Key: $KEY" \
  -d '{"number":"P-01","name":"Crown settlement","sensor_type":"total_station","reference":{"x":3512345.1,"y":512345.2,"z":12.3},"thresholds":{"warning":10,"alarm":20}}' \
  "$API/projects/$PROJECT/points" | jq -r .data.id)
echo "project: $PROJECT  point: $POINT"

# 4. A webhook to the local receiver (its secret is shown only when it is made), then start the
#    project: data can be written only to a project in progress (422303 before). A tenant holds at
#    most 50 webhooks, so a later run reuses the webhook an earlier one made for the same receiver.
WEBHOOK_ID=$(call -H "X-API-Key: $KEY" "$API/webhooks?limit=100" |
  jq -r --arg url "$RECEIVER_URL" '[.data.items[] | select(.name == "quickstart receiver" and .url == $url)][0].id // empty')
if [ -n "$WEBHOOK_ID" ]; then
  echo "webhook: $WEBHOOK_ID  (made by an earlier run; its secret was shown then)"
else
  WEBHOOK=$(call -H "X-API-Key: $KEY" \
    -d "{\"name\":\"quickstart receiver\",\"url\":\"$RECEIVER_URL\",\"events\":[\"data.created\",\"data.abnormal\",\"project.status_changed\"]}" \
    "$API/webhooks")
  WEBHOOK_ID=$(jq -r .data.id <<<"$WEBHOOK")
  echo "webhook: $WEBHOOK_ID  secret: $(jq -r .data.secret <<<"$WEBHOOK" | cut -c1-10)…"
fi
call -X PUT -H "X-API-Key: $KEY" -d '{"status":"in_progress"}' "$API/projects/$PROJECT/status" | jq -r '"status: " + .data.status'

# 5. Data: three readings of the point (displacements in mm).
call -H "X-API-Key: $KEY" -d "{\"records\":[
  {\"point_id\":\"$POINT\",\"measured_at\":\"2026-03-01T08:00:00Z\",\"values\":{\"dz\":1.2}},
  {\"point_id\":\"$POINT\",\"measured_at\":\"2026-03-01T09:00:00Z\",\"values\":{\"dz\":2.5}},
  {\"point_id\":\"$POINT\",\"measured_at\":\"2026-03-01T10:00:00Z\",\"values\":{\"dz\":3.1}}]}" \
  "$API/projects/$PROJECT/data" | jq -r '"written: \(.data.total_count) records, \(.data.abnormal_count) abnormal"'

# 6. The series of the point: hourly buckets with min, avg and max of dz.
call -H "X-API-Key: $KEY" "$API/points/$POINT/series?from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z&interval_seconds=3600" |
  jq -r '"series: \(.data.buckets | map(.count) | add) readings in \(.data.buckets | length) buckets"'

# 7. A test event to the webhook, and its delivery log.
call -X POST -H "X-API-Key: $KEY" "$API/webhooks/$WEBHOOK_ID/test" | jq -r '"test event: \(.data.event_type) \(.data.status) (HTTP \(.data.http_status))"'
call -H "X-API-Key: $KEY" "$API/webhooks/$WEBHOOK_ID/deliveries?limit=5" | jq -r '.data.items[] | "delivery: \(.event_type) \(.status)"'

# 8. When the access token expires (401002), refresh it: a new access token.
call -d "{\"refresh_token\":\"$REFRESH\"}" "$API/auth/refresh" | jq -r '"refreshed: expires_in \(.data.expires_in)"'
