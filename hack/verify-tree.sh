#!/usr/bin/env bash
# Checks of the tree that need no generator: no big file is tracked, every Go module is
# tidy, and every Go file is gofmt'ed. `make verify` runs it after regenerating; each
# problem is printed with how to fix it, and the script fails if there was one.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# A compiled binary or a data dump committed by mistake is downloaded by every clone and
# lands in every image build context.
limit=$((1024 * 1024))
while IFS= read -r -d '' f; do
	if [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt "$limit" ]; then
		echo "tracked file over 1 MiB: $f ($(stat -c %s "$f") bytes); remove it with git rm --cached and ignore it"
		status=1
	fi
done < <(git ls-files -z)

# go mod tidy -diff prints what tidy would change and fails, without touching the files.
while IFS= read -r mod; do
	dir=$(dirname "$mod")
	if ! out=$(cd "$dir" && go mod tidy -diff 2>&1); then
		echo "go.mod or go.sum in $dir is not tidy; run (cd $dir && go mod tidy):"
		echo "$out" | head -20
		status=1
	fi
done < <(git ls-files -- 'go.mod' '*/go.mod')

unformatted=$(git ls-files -z -- '*.go' | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
	echo "not gofmt'ed (run make fmt):"
	echo "$unformatted"
	status=1
fi
exit $status
