#!/usr/bin/env bash
# release.sh VERSION [--dry-run]: releases every module that modules.txt
# marks "release" at VERSION (vX.Y.Z). It checks that the work tree is
# clean, that no tag of VERSION exists and that `make check` passes; sets
# every require of a released module, in every other module of the list
# (gosdk and mcpgo on the root, the stores on the root, examples on the
# root and the adapters, ...), to VERSION and commits that; then tags the
# released modules in the list's order: VERSION for the root, <dir>/VERSION
# for the others (gosdk/VERSION, mcpgo/VERSION, ...). It pushes nothing: it
# prints the command that publishes the tags. With --dry-run it runs the
# checks that change nothing and prints every other step instead of
# running it.
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
# modules prints the directories of modules.txt, or with an argument only
# those whose second column is that argument.
modules() { awk -v want="${1:-}" 'NF && $1 !~ /^#/ && (want == "" || $2 == want) { print $1 }' modules.txt; }
# modpath prints the module path that the go.mod in directory $1 declares.
modpath() { awk '$1 == "module" { print $2; exit }' "$1/go.mod"; }
# requires prints the module paths that the go.mod in directory $1
# requires, one a line.
requires() {
	awk '$1 == "require" && $2 == "(" { block = 1; next }
		block && $1 == ")" { block = 0; next }
		block && NF { print $1 }
		$1 == "require" && $2 != "(" { print $2 }' "$1/go.mod"
}

[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION must look like v1.2.3, not \"$version\""
[ -z "$(git status --porcelain)" ] || die "the work tree is not clean: commit or stash first"
released=() tags=()
for dir in $(modules release); do
	released+=("$(modpath "$dir")")
	if [ "$dir" = . ]; then tags+=("$version"); else tags+=("$dir/$version"); fi
done
[ ${#tags[@]} -gt 0 ] || die "modules.txt marks no module release"
for t in "${tags[@]}"; do
	if git rev-parse -q --verify "refs/tags/$t" >/dev/null; then
		die "tag $t exists already"
	fi
done

step ${RELEASE_CHECK:-make check}

for dir in $(modules); do
	[ "$dir" != . ] || continue
	edits=()
	for req in $(requires "$dir"); do
		for path in "${released[@]}"; do
			[ "$req" != "$path" ] || edits+=("-require=$path@$version")
		done
	done
	[ ${#edits[@]} -eq 0 ] || step go -C "$dir" mod edit "${edits[@]}"
	# An adapter's newest.mod (make sdk-floors) requires the same.
	[ ${#edits[@]} -eq 0 ] || [ ! -f "$dir/newest.mod" ] || step go -C "$dir" mod edit "${edits[@]}" newest.mod
done
if $dry || [ -n "$(git status --porcelain)" ]; then
	step git commit -q -am "Release $version: the nested modules require $version"
fi
for t in "${tags[@]}"; do
	step git tag -a "$t" -m "mcpid $t"
done
echo "release: to publish, push the commit and then the tags, in this order:"
echo "  git push origin HEAD ${tags[*]}"
