#!/bin/sh
# deps.sh installs the Debian packages of the programs the tests and
# benchmarks run (the table in internal/deps, printed by go run
# ./internal/cmd/deps) when they are missing and this is root with apt-get;
# otherwise it names what is missing, so the tests that need it say they
# were skipped. Usage: deps.sh [--require] (fail when anything is missing).
set -u
cd "$(dirname "$0")/.." || exit 1

table=$(go run ./internal/cmd/deps) || {
	echo "deps: cannot read the table of programs (go run ./internal/cmd/deps failed)" >&2
	exit 1
}
PATH=$PATH:/usr/sbin:/usr/local/sbin
# missing lists the packages of the programs not found, each once.
missing() {
	echo "$table" | while read -r name pkg _; do
		case $name in
		/*) [ -e "$name" ] && continue ;;
		*) command -v "$name" >/dev/null 2>&1 && continue ;;
		esac
		echo "$pkg"
	done | awk '!seen[$0]++ { printf "%s%s", sep, $0; sep = " " }'
}
missing=$(missing)
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing $missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get install -y -q $missing >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $missing >/dev/null; }; then
		# The packages start system services on port 80; the tests start
		# their own instances, so stop those.
		for svc in lighttpd nginx; do service "$svc" stop >/dev/null 2>&1 || true; done
		missing=$(missing)
		[ -z "$missing" ] && exit 0
		echo "deps: still missing after apt-get install: $missing" >&2
	else
		echo "deps: apt-get install $missing failed" >&2
	fi
fi
echo "deps: missing Debian packages: $missing; the tests that need them will be skipped" >&2
[ "${1-}" = --require ] && exit 1
exit 0
