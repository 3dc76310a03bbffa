#!/bin/sh
# hop.sh measures what the FastCGI hop costs, side by side in one run:
#
#   fcgi    lighttpd + the fcgi application (serve.sh)
#   nethttp servers/nethttp alone
#   static  lighttpd serving the same page as a static file
#
#   hop.sh [ROUNDS [DURATION]]    (defaults 3 rounds of 5s)
#
# All servers are pinned to CPU 0 (lighttpd and the application share it),
# GOMAXPROCS=1; wrk -t1 -c50 is pinned to CPU 1. The servers run together
# and wrk visits them in turn, ROUNDS times; each line is one wrk run, and
# the medians come last. CPU time is utime+stime from /proc/PID/stat around
# each run, per request, lighttpd's and the application's apart; srv% is
# the share of CPU 0 the server side used (below ~95%: client-bound).
set -eu

rounds=${1-3}
duration=${2-5s}
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
PATH=$PATH:/usr/sbin:/usr/local/sbin
for tool in lighttpd wrk taskset; do
	command -v $tool >/dev/null || { echo "hop.sh: $tool not found" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hellobench-hop.XXXXXX")
chmod 755 "$tmp"
pids=""
cleanup() {
	# TERM, not INT: background jobs of a script start with INT ignored,
	# and a shell cannot trap a signal ignored on entry.
	for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

(cd "$root" && go build -o "$tmp/nethttp" ./servers/nethttp && go build -o "$tmp/fcgi" ./servers/fcgi)

# The static variant: the page as a file at /hello/world, with the same
# Content-Type and keep-alive limits as lighttpd.conf, no ETag.
mkdir -p "$tmp/www/hello"
cp "$root/page/hello.html" "$tmp/www/hello/world"
chmod -R a+rX "$tmp/www"
cat >"$tmp/static.conf" <<CONF
server.document-root = "$tmp/www"
server.bind = "127.0.0.1"
server.port = 18187
server.max-keep-alive-idle = 60
server.max-keep-alive-requests = 1000
mimetype.assign = ( "" => "text/html; charset=utf-8" )
static-file.etags = "disable"
CONF
if [ "$(id -u)" = 0 ]; then
	echo 'server.username = "nobody"' >>"$tmp/static.conf"
fi

export GOMAXPROCS=1
FCGI_BIN="$tmp/fcgi" TMPDIR="$tmp" sh "$dir/serve.sh" 0 1 127.0.0.1:18185 2>"$tmp/fcgi.log" &
pids="$pids $!"
fcgi_sh=$!
taskset -c 0 "$tmp/nethttp" -addr 127.0.0.1:18186 2>"$tmp/nethttp.log" &
pids="$pids $!"
nethttp=$!
taskset -c 0 lighttpd -D -f "$tmp/static.conf" 2>"$tmp/static.log" &
pids="$pids $!"
static=$!

url() { echo "http://127.0.0.1:$1/hello/world"; }
for port in 18185 18186 18187; do
	i=0
	until curl -sf -o /dev/null "$(url $port)"; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "hop.sh: nothing answers on port $port after 30s" >&2; cat "$tmp"/*.log >&2; exit 1; }
		sleep 0.1
	done
done
lighttpd_fcgi=$(pgrep -P "$fcgi_sh" -x lighttpd)
app=$(pgrep -P "$lighttpd_fcgi")

# ticks PID: utime+stime in clock ticks (fields 14 and 15, counted after
# the parenthesised command name).
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
hz=$(getconf CLK_TCK)

# run NAME PORT LIGHTTPD_PID APP_PID: one wrk run, one result line.
run() {
	l0=0 a0=0 l1=0 a1=0
	[ "$3" = - ] || l0=$(ticks "$3")
	[ "$4" = - ] || a0=$(ticks "$4")
	out=$(taskset -c 1 wrk -t1 -c50 -d"$duration" "$(url "$2")")
	[ "$3" = - ] || l1=$(ticks "$3")
	[ "$4" = - ] || a1=$(ticks "$4")
	echo "$out" | awk -v name="$1" -v dl=$((l1 - l0)) -v da=$((a1 - a0)) -v hz="$hz" -v d="$duration" '
		/requests in/ { n = $1 }
		/Non-2xx|Socket errors/ { bad = bad " " $0 }
		END {
			if (n == 0 || bad != "") { print "hop.sh: " name ": " n " requests;" bad > "/dev/stderr"; exit 1 }
			secs = d + 0
			printf "%-8s %10.0f %10.2f %10.2f %10.2f %6.0f\n", name, n / secs,
				dl * 1e6 / hz / n, da * 1e6 / hz / n, (dl + da) * 1e6 / hz / n, (dl + da) * 100 / hz / secs
		}'
}

printf "%-8s %10s %10s %10s %10s %6s\n" server "req/s" "lighttpd" "app" "total" "srv%"
printf "%-8s %10s %10s %10s %10s %6s\n" "" "" "CPU µs/req" "CPU µs/req" "CPU µs/req" ""
for r in $(seq "$rounds"); do
	run fcgi 18185 "$lighttpd_fcgi" "$app"
	run nethttp 18186 - "$nethttp"
	run static 18187 "$static" -
done | tee "$tmp/results"

echo "median of $rounds rounds:"
for name in fcgi nethttp static; do
	grep "^$name " "$tmp/results" | awk -v name="$name" '
		{ for (i = 2; i <= 6; i++) v[i, NR] = $i }
		END {
			line = name
			for (i = 2; i <= 6; i++) {
				for (j = 1; j <= NR; j++) a[j] = v[i, j]
				for (j = 1; j <= NR; j++) for (k = j + 1; k <= NR; k++) if (a[k] < a[j]) { t = a[j]; a[j] = a[k]; a[k] = t }
				m[i] = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			}
			printf "%-8s %10.0f %10.2f %10.2f %10.2f %6.0f\n", name, m[2], m[3], m[4], m[5], m[6]
		}'
done | tee "$tmp/medians"
awk '
	{ rps[$1] = $2; cpu[$1] = $5 }
	END {
		printf "fcgi/nethttp: req/s %.2fx, CPU per request %.2fx\n", rps["fcgi"] / rps["nethttp"], cpu["fcgi"] / cpu["nethttp"]
		printf "fcgi/static:  req/s %.2fx, CPU per request %.2fx\n", rps["fcgi"] / rps["static"], cpu["fcgi"] / cpu["static"]
	}' "$tmp/medians"
