#!/usr/bin/env bash
# Makes sure shellcheck is there for `make verify`, installing Debian's package with apt-get
# when it is missing and this runs as root. shellcheck is a Haskell program: no Go module
# builds it, so it comes from the distribution, as haproxy does. Elsewhere this says what to
# install and exits 0; hack/shellcheck.sh then fails and says the same.
set -euo pipefail

if command -v shellcheck >/dev/null; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo ">> shellcheck is missing, and this is not root on a Debian-like system:"
	echo ">> install shellcheck (0.9 is what CI uses) yourself; make verify needs it."
	exit 0
fi
echo ">> Installing Debian's shellcheck with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends shellcheck >/dev/null
command -v shellcheck >/dev/null || { echo ">> shellcheck was installed but is not on PATH" >&2; exit 1; }
