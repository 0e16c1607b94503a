#!/bin/sh
# Usage: scripts/nats-dev-certs.sh DIR
#
# Makes what a secure local NATS needs, in DIR:
#   ca.pem, ca-key.pem            a throwaway CA
#   server-cert.pem, server-key.pem   the server's certificate, for 127.0.0.1 and localhost
#   nats.conf                     the shipped configuration (deploy/nats/config.yaml) with only the
#                                 lines marked "local:" changed: listen address, monitor port,
#                                 pid file, certificate paths, store folder; no cluster routes
#   server.env                    the passwords nats-server reads, random, made once (mode 600)
#   node/, operator/, viewer/     one folder per user (mode 700), to hand to that user alone:
#     USER.env                    NATS_USER, NATS_PASSWORD, and NATS_CA, NATS_CERT, NATS_KEY naming
#     ca.pem, cert.pem, key.pem   the CA and the user's own client certificate (mutual TLS: the
#                                 server refuses a client without one)
#   The node's password is in node/ only, never beside an operator's.
#
# NATS_PORT (default 4333: not 4222, where another server on the machine may answer) and
# NATS_HTTP_PORT (default: no monitor port) set the ports. Certificates and passwords already in
# DIR are kept; nats.conf is written again every time. Then:
#   set -a; . DIR/server.env; set +a; nats-server -c DIR/nats.conf
#   set -a; . DIR/viewer/viewer.env; set +a; metalfleet nodes --nats nats://127.0.0.1:4333
set -eu

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
command -v openssl >/dev/null 2>&1 || { echo "$0: openssl is needed" >&2; exit 1; }

DIR=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PORT=${NATS_PORT:-4333}
HTTP_PORT=${NATS_HTTP_PORT:-}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
umask 077

# Everything openssl prints goes to a log, shown only when a step fails.
LOG="$DIR/openssl.log"
run() {
  if ! "$@" >>"$LOG" 2>&1; then
    echo "$0: failed: $*" >&2
    cat "$LOG" >&2
    exit 1
  fi
}

# ECDSA P-256, as cert-manager issues in deploy/nats/tls.yaml.
key() {
  [ -f "$1" ] || run openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"
}

if [ ! -f "$DIR/ca.pem" ]; then
  key "$DIR/ca-key.pem"
  run openssl req -x509 -new -key "$DIR/ca-key.pem" -sha256 -days 365 -subj "/CN=metalfleet local NATS CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$DIR/ca.pem"
fi

# leaf CERT KEY SUBJECT EXTENSIONS: a certificate signed by the CA.
leaf() {
  [ -f "$1" ] && return 0
  key "$2"
  printf '%s\n' "$4" >"$1.ext"
  run openssl req -new -key "$2" -subj "$3" -out "$1.csr"
  run openssl x509 -req -in "$1.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca-key.pem" -CAcreateserial \
    -days 365 -sha256 -extfile "$1.ext" -out "$1"
  rm -f "$1.csr" "$1.ext"
}

leaf "$DIR/server-cert.pem" "$DIR/server-key.pem" "/CN=localhost" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost"
USERS="node operator viewer"
for user in $USERS; do
  mkdir -p "$DIR/$user"
  chmod 700 "$DIR/$user"
  cp "$DIR/ca.pem" "$DIR/$user/ca.pem"
  leaf "$DIR/$user/cert.pem" "$DIR/$user/key.pem" "/CN=$user" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
done
rm -f "$DIR/openssl.log" "$DIR/ca.srl"

# The shipped nats.conf, taken out of its ConfigMap and changed only where a "# local: NAME" line
# says; a marker missing or followed by another line than expected is an error, so the shipped
# file cannot drift away from what this renders without someone noticing.
# sync_interval came with nats-server 2.10: an older one (Debian's 2.9, which the tests run)
# refuses the field, so it is left out there and only there.
VERSION=$(nats-server --version 2>/dev/null | sed -n 's/.*v\([0-9][0-9.]*\).*/\1/p')
OLD=0
case "$VERSION" in 0.*|1.*|2.[0-9]|2.[0-9].*) OLD=1 ;; esac
awk -v dir="$DIR" -v port="$PORT" -v http="$HTTP_PORT" -v old="$OLD" -v version="$VERSION" '
  function expect(key) {
    if ((getline line) <= 0) line = ""
    sub(/^    /, "", line)
    if (line !~ "^ *" key "(:| \\{)") { print "nats-dev-certs: after \"# local: " want "\" expected " key ": in deploy/nats/config.yaml" > "/dev/stderr"; bad = 1; exit 1 }
    match(line, /^ */); return substr(line, 1, RLENGTH)
  }
  /^  nats\.conf: \|$/ { inside = 1; next }
  inside && $0 != "" && $0 !~ /^    / { inside = 0 }
  !inside { next }
  { sub(/^    /, "") }
  /^ *# local: / {
    print; want = $3; seen[want] = 1
    if (want == "listen") { expect("listen"); print "listen: 127.0.0.1:" port }
    else if (want == "http") { expect("http"); if (http != "") print "http: 127.0.0.1:" http; else print "# no monitor port" }
    else if (want == "pid_file") { expect("pid_file"); print "pid_file: \"" dir "/nats.pid\"" }
    else if (want == "store_dir") { i = expect("store_dir"); print i "store_dir: \"" dir "/jetstream\"" }
    else if (want == "tls") {
      i = expect("cert_file"); print i "cert_file: \"" dir "/server-cert.pem\""
      i = expect("key_file"); print i "key_file: \"" dir "/server-key.pem\""
      i = expect("ca_file"); print i "ca_file: \"" dir "/ca.pem\""
    }
    else if (want == "sync_interval") {
      i = expect("sync_interval")
      if (old) print i "# sync_interval: always (nats-server " version " has no such setting; production runs >= 2.12.4)"
      else print line
    }
    else if (want == "cluster") {
      expect("cluster")
      # The block ends at the first "}" in the first column.
      while ((getline line) > 0 && line != "    }") {}
    }
    else { print "nats-dev-certs: unknown marker \"# local: " want "\"" > "/dev/stderr"; bad = 1; exit 1 }
    next
  }
  { print }
  END {
    if (bad) exit 1
    n = split("listen http pid_file tls store_dir sync_interval cluster", all, " ")
    for (k = 1; k <= n; k++) if (!(all[k] in seen)) { print "nats-dev-certs: no \"# local: " all[k] "\" line in deploy/nats/config.yaml" > "/dev/stderr"; exit 1 }
  }
' "$ROOT/deploy/nats/config.yaml" >"$DIR/nats.conf.tmp"
mv "$DIR/nats.conf.tmp" "$DIR/nats.conf"

# Random passwords, quoted for nats-server: it reads a variable's value as config syntax. Made
# again, all three, when a user's file is missing (or only the old flat layout is there).
password() { openssl rand -hex 24; }
rm -f "$DIR/node.env" "$DIR/operator.env" "$DIR/viewer.env" "$DIR/client-cert.pem" "$DIR/client-key.pem"
fresh=0
[ -f "$DIR/server.env" ] || fresh=1
for user in $USERS; do [ -f "$DIR/$user/$user.env" ] || fresh=1; done
if [ "$fresh" = 1 ]; then
  node=$(password); operator=$(password); viewer=$(password)
  {
    echo "SERVER_NAME=local"
    echo "NATS_NODE_PASSWORD='\"$node\"'"
    echo "NATS_OPERATOR_PASSWORD='\"$operator\"'"
    echo "NATS_VIEWER_PASSWORD='\"$viewer\"'"
  } >"$DIR/server.env"
  for user in $USERS; do
    eval "pass=\$$user"
    printf 'NATS_USER=%s\nNATS_PASSWORD=%s\nNATS_CA=%s\nNATS_CERT=%s\nNATS_KEY=%s\n' \
      "$user" "$pass" "$DIR/$user/ca.pem" "$DIR/$user/cert.pem" "$DIR/$user/key.pem" >"$DIR/$user/$user.env"
  done
fi
echo "$DIR/nats.conf"
