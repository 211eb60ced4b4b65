#!/usr/bin/env bash
# Builds HAProxy Ingress, at the version go.mod pins, into the path given as $1.
#
# One change is made at build time: v0.14.0's controller serves its /healthz on every
# interface (":<healthz-port>", with no setting for the address), and the tests must listen
# on loopback only. So the build runs in a copy of the module's go.mod, go.sum and pkg/,
# with that one line rewritten to listen on 127.0.0.1; the check below fails the build if
# the line is not found or anything else would differ. haproxy's configuration, the Gateway
# API conversion and the dependencies (from the module's own go.sum) are as released.
set -euo pipefail
out=$1
cd "$(dirname "$0")"
module=github.com/jcmoraisjr/haproxy-ingress
go mod download "$module"
dir=$(go list -m -f '{{.Dir}}' "$module")
file=pkg/common/ingress/controller/launch.go
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -R "$dir/go.mod" "$dir/go.sum" "$dir/pkg" "$work/"
chmod -R u+w "$work"
sed 's|Addr:    fmt.Sprintf(":%v", port),|Addr:    fmt.Sprintf("127.0.0.1:%v", port),|' "$dir/$file" >"$work/$file"
if [ "$(diff "$dir/$file" "$work/$file" | grep -c '^[<>]')" != 2 ] || ! grep -q '"127.0.0.1:%v"' "$work/$file"; then
	echo "build.sh: $file of $module no longer has the one listen address this script rewrites; update the script" >&2
	exit 1
fi
(cd "$work" && go build -o "$out" ./pkg)
