#!/usr/bin/env bash
# apicheck.sh: compares the exported API of each module modules.txt
# releases with its last release tag (v* for the root, <dir>/v* for the
# others: gosdk/v*, ...), with apidiff.
# An incompatible change fails the check unless CHANGELOG.md's Unreleased
# section has a line starting "- Incompatible:" that announces it. A module
# with no release tag yet passes, and the check says so.
set -euo pipefail
cd "$(dirname "$0")"
APIDIFF=${APIDIFF:-golang.org/x/exp/cmd/apidiff@v0.0.0-20261014143641-f0251eb4aa3e}

# announced reports whether the Unreleased section announces an
# incompatible change.
announced() {
	awk '/^## /{unreleased = ($0 ~ /Unreleased/)} unreleased && /^- Incompatible:/{found = 1} END {exit !found}' CHANGELOG.md
}

status=0
for dir in $(awk 'NF && $1 !~ /^#/ && $2 == "release" { print $1 }' modules.txt); do
	prefix=""
	[ "$dir" = . ] || prefix="$dir/"
	path=$(go -C "$dir" list -m)
	tag=$(git tag --list "${prefix}v*" --sort=-v:refname | head -n 1)
	if [ -z "$tag" ]; then
		echo "apicheck: $path: no release tag yet (${prefix}v*), so no API to compare with"
		continue
	fi
	old=$(mktemp -d)
	git archive "$tag" | tar -x -C "$old"
	(cd "$old/$dir" && go run "$APIDIFF" -m -w "$old/api" "$path" 2> >(grep -v "^Ignoring internal package" >&2))
	report=$(go -C "$dir" run "$APIDIFF" -m -incompatible "$old/api" "$path" 2> >(grep -v "^Ignoring internal package" >&2))
	rm -rf "$old"
	if [ -z "$report" ]; then
		echo "apicheck: $path: compatible with $tag"
	elif announced; then
		echo "apicheck: $path: incompatible with $tag, as CHANGELOG.md announces:"
		echo "$report"
	else
		echo "apicheck: $path: incompatible with $tag, and CHANGELOG.md's Unreleased section does not announce it (a line starting \"- Incompatible:\"):" >&2
		echo "$report" >&2
		status=1
	fi
done
exit $status
