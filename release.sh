#!/usr/bin/env bash
# release.sh VERSION [--dry-run]: releases the root module, gosdk and mcpgo
# at VERSION (vX.Y.Z). It checks that the work tree is clean, that no tag
# of VERSION exists and that `make check` passes; sets the requires of the
# nested modules (gosdk and mcpgo on the root, examples on all three) to
# VERSION and commits that; then tags VERSION, gosdk/VERSION and
# mcpgo/VERSION, in that order. It pushes nothing: it prints the command
# that publishes the tags. With --dry-run it runs the checks that change
# nothing and prints every other step instead of running it.
#
# RELEASE_CHECK replaces `make check` (for the script's own tests).
set -euo pipefail
cd "$(dirname "$0")"

version=${1:-}
dry=false
case "${2:-}" in
"") ;;
--dry-run) dry=true ;;
*) echo "release: usage: release.sh VERSION [--dry-run]" >&2; exit 2 ;;
esac

die() { echo "release: $*" >&2; exit 1; }
step() {
	if $dry; then
		echo "would run: $*"
	else
		echo "+ $*"
		"$@"
	fi
}

[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION must look like v1.2.3, not \"$version\""
[ -z "$(git status --porcelain)" ] || die "the work tree is not clean: commit or stash first"
tags=("$version" "gosdk/$version" "mcpgo/$version")
for t in "${tags[@]}"; do
	if git rev-parse -q --verify "refs/tags/$t" >/dev/null; then
		die "tag $t exists already"
	fi
done

step ${RELEASE_CHECK:-make check}

root=github.com/mcpid/mcpid
step go -C gosdk mod edit -require="$root@$version"
step go -C mcpgo mod edit -require="$root@$version"
step go -C examples mod edit -require="$root@$version" -require="$root/gosdk@$version" -require="$root/mcpgo@$version"
if $dry || [ -n "$(git status --porcelain)" ]; then
	step git commit -q -am "Release $version: the nested modules require $version"
fi
for t in "${tags[@]}"; do
	step git tag -a "$t" -m "mcpid $t"
done
echo "release: to publish, push the commit and then the tags, in this order:"
echo "  git push origin HEAD ${tags[*]}"
