#!/bin/sh
# bench-commits.sh OLD NEW ROUNDS BENCH PKG...: the in-memory benchmarks
# matching BENCH of each PKG, built at commits OLD and NEW, run alternately
# (old, new) ROUNDS times, pinned to CPU 0, then compared by benchstat: the
# way to show that a refactoring changed no cost, since two binaries run
# side by side share the machine's slow and fast moments.
set -eu
[ $# -ge 5 ] || { echo "usage: $0 OLD NEW ROUNDS BENCH PKG..." >&2; exit 2; }
old=$1 new=$2 rounds=$3 bench=$4
shift 4
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/src" 2>/dev/null; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach -q "$work/src" "$old"
for pkg in "$@"; do
	name=$(echo "$pkg" | tr / _)
	(cd "$work/src" && go test -c -o "$work/old-$name.test" "./$pkg")
	git -C "$work/src" checkout -q --detach "$new"
	(cd "$work/src" && go test -c -o "$work/new-$name.test" "./$pkg")
	git -C "$work/src" checkout -q --detach "$old"
done
for i in $(seq "$rounds"); do
	for v in old new; do
		for pkg in "$@"; do
			name=$(echo "$pkg" | tr / _)
			(cd "$root/$pkg" && taskset -c 0 "$work/$v-$name.test" -test.run '^$' -test.bench "$bench" -test.benchtime 0.3s) >>"$work/$v.txt"
		done
	done
	echo "round $i of $rounds" >&2
done
cd "$work" && "$root/bin/benchstat" old.txt new.txt
