#!/usr/bin/env bash
# Runs shellcheck over every shell script in the tree: each tracked file whose name ends in
# .sh or whose first line is a sh or bash shebang (.ci/run, the kubectl plugin's completion
# helper, the scripts under hack/ and config/samples). `make verify` runs it after
# `make shellcheck` has installed shellcheck where it can.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v shellcheck >/dev/null; then
	echo "shellcheck is missing: run 'make shellcheck' as root on a Debian-like system, or install it yourself" >&2
	exit 1
fi

scripts=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	first=$(head -n 1 -- "$f")
	case "$f" in
	*.sh) scripts+=("$f") ;;
	*) case "$first" in '#!'*[/\ ]sh | '#!'*[/\ ]bash | '#!'*[/\ ]sh\ * | '#!'*[/\ ]bash\ *) scripts+=("$f") ;; esac ;;
	esac
done < <(git ls-files -z)

if [ "${#scripts[@]}" -lt 5 ]; then
	echo "found only ${#scripts[@]} shell scripts: the search is broken" >&2
	exit 1
fi
shellcheck "${scripts[@]}"
