#!/bin/sh
# deps.sh installs the Debian packages the tests and benchmarks drive (curl,
# ab, wrk, lighttpd, nginx, slowhttptest, HdrHistogram's Java tools) when they
# are missing and this is root with apt-get; otherwise it names what is
# missing, so the tests that need it say they were skipped. Usage: deps.sh [--require] (fail when anything is missing).
set -u

PATH=$PATH:/usr/sbin:/usr/local/sbin
missing=""
for pair in curl:curl ab:apache2-utils wrk:wrk lighttpd:lighttpd nginx:nginx-light slowhttptest:slowhttptest prlimit:util-linux setpriv:util-linux; do
	cmd=${pair%%:*}
	pkg=${pair#*:}
	command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
# HdrHistogram's own Java tools read loadgen's histogram logs in a test.
command -v java >/dev/null 2>&1 || missing="$missing default-jre-headless"
[ -e /usr/share/java/hdrhistogram.jar ] || missing="$missing libhdrhistogram-java"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get install -y -q $missing >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $missing >/dev/null; }; then
		# The packages start system services on port 80; the tests start
		# their own instances, so stop those.
		for svc in lighttpd nginx; do service "$svc" stop >/dev/null 2>&1 || true; done
		exit 0
	fi
	echo "deps: apt-get install$missing failed" >&2
fi
echo "deps: missing Debian packages:$missing; the tests that need them will be skipped" >&2
[ "${1-}" = --require ] && exit 1
exit 0
