#!/usr/bin/env bash
# Makes sure haproxy and Lua's json module (which HAProxy Ingress's Lua scripts require) are
# there, installing Debian's haproxy and lua-json with apt-get when they are missing and
# this runs as root. Elsewhere it says what to install and exits 0: the data-plane suite
# then skips, except under .ci/run, where it fails.
set -euo pipefail

have_haproxy() {
	command -v haproxy >/dev/null || return 1
	local dir rc=0
	dir=$(mktemp -d)
	echo 'require("json")' >"$dir/json.lua"
	printf 'global\n    lua-load %s\n' "$dir/json.lua" >"$dir/haproxy.cfg"
	# 2 is haproxy's "valid, but no listener"; 1 means the script did not load.
	haproxy -c -q -f "$dir/haproxy.cfg" >/dev/null 2>&1 || rc=$?
	rm -rf "$dir"
	[ "$rc" = 0 ] || [ "$rc" = 2 ]
}

if have_haproxy; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo ">> haproxy with Lua's json module is missing, and this is not root on a Debian-like system:"
	echo ">> install haproxy (2.6 is what the tests use) and lua-json (Lua 5.3's json module) yourself;"
	echo ">> until then the data-plane suite, the demo's requests and the failover bench skip."
	exit 0
fi
echo ">> Installing Debian's haproxy and lua-json with apt-get (about 20 seconds)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends haproxy lua-json >/dev/null
have_haproxy || { echo ">> haproxy was installed but cannot load Lua's json module" >&2; exit 1; }
