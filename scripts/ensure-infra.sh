#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS JetStream are up on 127.0.0.1 (architecture page,
# "Infrastructure on the build machines"): starts them where installed but stopped, and installs
# them with apt-get on a bare Debian machine.
set -uo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 60); do port_open "$1" && return 0; sleep 0.5; done
  echo "ensure-infra: $2 did not come up on port $1" >&2
  return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=0
install_pkgs() {
  if ! command -v apt-get >/dev/null; then echo "ensure-infra: cannot install $* (no apt-get)" >&2; return 1; fi
  [ $apt_updated = 1 ] || { as_root apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# PostgreSQL
if ! port_open 5432; then
  ls /etc/postgresql >/dev/null 2>&1 || install_pkgs postgresql
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  wait_port 5432 PostgreSQL || exit 1
fi

# Redis
if ! port_open 6379; then
  command -v redis-server >/dev/null || install_pkgs redis-server
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_port 6379 Redis || exit 1
fi

# NATS with JetStream
if ! port_open 4222; then
  [ -x /usr/sbin/nats-server ] || command -v nats-server >/dev/null || install_pkgs nats-server
  mkdir -p /var/lib/nats-server 2>/dev/null || true
  as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_port 4222 NATS || exit 1
fi

# Chromium (Debian's package) for the browser test of the OAuth consent page (test/browser, driven
# with playwright-core): installed once; when present this costs one lookup.
if [ ! -x /usr/bin/chromium ]; then
  install_pkgs --no-install-recommends chromium || exit 1
fi

# poppler-utils (pdftotext, pdfinfo, pdffonts): the report tests read the PDFs they generate as a
# user's PDF reader would (text, fonts, dates), not by inspecting pdfkit's output.
if ! command -v pdftotext >/dev/null || ! command -v pdffonts >/dev/null || ! command -v pdfinfo >/dev/null; then
  install_pkgs --no-install-recommends poppler-utils || exit 1
fi

# Go with Debian's sprig, YAML and JSON-schema packages: test/deploy renders the Helm chart with
# them (helm's own template engine; no helm binary here), built offline from /usr/share/gocode.
go_pkgs=""
command -v go >/dev/null || go_pkgs="golang-go"
for pkg in Masterminds/sprig ghodss/yaml xeipuuv/gojsonschema; do
  if [ ! -d "/usr/share/gocode/src/github.com/$pkg" ]; then
    go_pkgs="$go_pkgs golang-github-$(echo "$pkg" | tr '[:upper:]/' '[:lower:]-')-dev"
  fi
done
if [ -n "$go_pkgs" ]; then
  # shellcheck disable=SC2086 # one word per package
  install_pkgs --no-install-recommends $go_pkgs || exit 1
fi

# PostgreSQL with trust auth must accept the test role over TCP.
if command -v psql >/dev/null && ! psql -h 127.0.0.1 -U postgres -d postgres -Atc 'select 1' >/dev/null 2>&1; then
  echo "ensure-infra: PostgreSQL is up but user postgres cannot connect over 127.0.0.1 (trust auth expected)" >&2
  exit 1
fi
echo "ensure-infra: PostgreSQL, Redis and NATS JetStream are up; Chromium, poppler-utils and Go (for the chart tests) are installed"
