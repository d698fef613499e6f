#!/bin/sh
# Certificates for mTLS between the office's workers and clients, the Temporal UI and the Temporal frontend
# (infra/docker-compose.yaml mounts ./certs). One CA signs a server certificate for the frontend (its service
# name `temporal`) and one client certificate per component, so the server can tell them apart (its authorizer
# and claim mapper see each client's subject; see infra/README.md). Keys are created owner-only.
#   sh infra/gen-certs.sh [DIR]        (default: infra/certs; existing files are kept)
set -eu
DIR=${1:-$(dirname "$0")/certs}
DAYS=${CERT_DAYS:-365}
umask 077
mkdir -p "$DIR"
cd "$DIR"

if [ ! -f ca.key ]; then
  openssl req -x509 -newkey rsa:4096 -nodes -sha256 -days "$DAYS" \
    -subj "/CN=office-temporal-ca" -keyout ca.key -out ca.pem
fi

issue() { # name, subject CN, extensions
  [ -f "$1.pem" ] && return 0
  openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=$2" -keyout "$1.key" -out "$1.csr"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days "$DAYS" \
    -extfile "$1.ext" -out "$1.pem"
  rm -f "$1.csr" "$1.ext"
}

SERVER_EXT="subjectAltName=DNS:temporal,DNS:localhost
extendedKeyUsage=serverAuth,clientAuth"
issue server temporal "$SERVER_EXT" # the frontend, and the cluster's own internode traffic
for client in office-worker office-setup temporal-ui; do
  issue "$client" "$client" "extendedKeyUsage=clientAuth"
done
chmod 0644 ./*.pem # certificates are public; the keys stay 0600
echo "certificates in $DIR: ca.pem, server, office-worker, office-setup, temporal-ui (.pem/.key)"
