#!/usr/bin/env bash
# Makes sure Prometheus is there, installing Debian's prometheus with apt-get when it is
# missing and this runs as root. Elsewhere it says what to install and exits 0: the specs
# that scrape haproxy's exporter then skip, except under .ci/run, where they fail.
# Only the server binary is used (on loopback, with a config and a data directory of each
# test's own); the Debian service it brings is stopped so that it holds no port.
set -euo pipefail

if command -v prometheus >/dev/null; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo ">> prometheus is missing, and this is not root on a Debian-like system:"
	echo ">> install Prometheus (2.42 is what the tests use) so that 'prometheus' is on PATH;"
	echo ">> until then the data-plane specs that scrape haproxy's exporter skip."
	exit 0
fi
echo ">> Installing Debian's prometheus with apt-get (about a minute)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# policy-rc.d's 101 keeps the package's service from starting where there is an init system.
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod +x "$policy"
	made_policy=1
fi
rc=0
apt-get install -y -qq --no-install-recommends prometheus >/dev/null || rc=$?
if [ -n "$made_policy" ]; then rm -f "$policy"; fi
[ "$rc" = 0 ] || exit "$rc"
command -v prometheus >/dev/null || { echo ">> prometheus was installed but is not on PATH" >&2; exit 1; }
