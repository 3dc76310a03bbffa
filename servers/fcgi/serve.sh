#!/bin/sh
# serve.sh runs the fcgi application behind lighttpd in the foreground:
#
#   serve.sh [CPU [PROCS [ADDR [ARG...]]]]
#
# CPU is the core lighttpd and the application are pinned to (default 0;
# empty: not pinned), PROCS the application's GOMAXPROCS (default 1), ADDR
# lighttpd's listen address, host:port or :port (default :8085). The ARGs
# are the application's (-work-cpu 20us -work-wait 1ms): lighttpd's bin-path
# carries them, split at spaces, so none may hold a space, tab, newline,
# quote or backslash. The application checks them before lighttpd starts.
#
# The application is built (or, with FCGI_BIN set, copied) into a fresh
# temporary directory that also holds the FastCGI socket; the directory is
# removed on exit. INT and TERM both stop lighttpd gracefully: in-flight
# responses finish, then lighttpd stops the application. (A shell cannot
# trap a signal ignored when it started, as INT is for a background job of
# a script: stop such a run with TERM.) Other FCGI_* variables of
# lighttpd.conf (timeouts, user, FCGI_TLS_CERT and FCGI_TLS_KEY for HTTPS)
# pass through.
set -eu

tmp=
pid=
stopping=
signals=0
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT

# ready reports whether lighttpd has a SIGINT handler (bit 1 of the last hex
# digit of SigCgt) or can no longer get one (exited, or a zombie).
ready() {
	awk '/^State:/ && $2 == "Z" { done = 1 }
		/^SigCgt:/ && index("2367abef", substr($2, length($2))) { done = 1 }
		END { exit !done }' "/proc/$pid/status" 2>/dev/null || ! kill -0 $pid 2>/dev/null
}

# stop asks lighttpd for its graceful stop, SIGINT (its SIGTERM drops
# requests in flight). A background job starts with SIGINT ignored and
# lighttpd installs its handler only once started up, which can take
# seconds on a busy machine: a signal sent before then would be lost.
stop() {
	stopping=1
	signals=$((signals + 1))
	[ -n "$pid" ] || return 0 # not started: checked before and after
	until ready; do
		sleep 0.1
	done
	kill -INT $pid 2>/dev/null || true
}
trap stop INT TERM

cpu=${1-0}
procs=${2-1}
addr=${3-:8085}
dir=$(cd "$(dirname "$0")" && pwd)
case $addr in
*:*) ;;
*) addr=none: ;;
esac
case ${addr##*:} in
'' | *[!0-9]*)
	echo "serve.sh: bad address ${3-}: want host:port or :port" >&2
	exit 2
	;;
esac
# What follows ADDR is the application's.
if [ $# -gt 3 ]; then
	shift 3
else
	set --
fi
bad=$(printf ' \t\n"\\')
for arg; do
	case $arg in
	'' | *["$bad"]*)
		echo "serve.sh: application argument '$arg': empty, or with a space, tab, newline, quote or backslash, which lighttpd's bin-path cannot carry" >&2
		exit 2
		;;
	esac
done

# HTTPS: FCGI_TLS_CERT and FCGI_TLS_KEY, both or neither, readable files
# whose names lighttpd.conf can quote.
tls_cert=${FCGI_TLS_CERT-}
tls_key=${FCGI_TLS_KEY-}
if [ -n "$tls_cert$tls_key" ]; then
	if [ -z "$tls_cert" ] || [ -z "$tls_key" ]; then
		echo "serve.sh: FCGI_TLS_CERT '$tls_cert' and FCGI_TLS_KEY '$tls_key': HTTPS needs both" >&2
		exit 2
	fi
	for f in "$tls_cert" "$tls_key"; do
		case $f in
		*[\"\\]*)
			echo "serve.sh: $f: a quote or backslash, which lighttpd.conf cannot carry" >&2
			exit 2
			;;
		esac
		if ! [ -f "$f" ] || ! [ -r "$f" ]; then
			echo "serve.sh: $f: no such readable file" >&2
			exit 2
		fi
	done
fi
case ${FCGI_TLS_TICKETS-} in
'') ;;
off)
	if [ -z "$tls_cert" ]; then
		echo "serve.sh: FCGI_TLS_TICKETS=off is about HTTPS: it needs FCGI_TLS_CERT and FCGI_TLS_KEY" >&2
		exit 2
	fi
	;;
*)
	echo "serve.sh: FCGI_TLS_TICKETS '$FCGI_TLS_TICKETS': the one value is off" >&2
	exit 2
	;;
esac

# lighttpd lives in sbin, which a normal user's PATH may lack.
PATH=$PATH:/usr/sbin:/usr/local/sbin
if ! command -v lighttpd >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "serve.sh: lighttpd not found; installing it with apt-get" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y lighttpd >&2
		# The package starts its system service on port 80; we want only ours.
		service lighttpd stop >/dev/null 2>&1 || true
	else
		echo "serve.sh: lighttpd not found: make deps installs it (as root)" >&2
		exit 1
	fi
fi
# lighttpd's TLS is a module of a package of its own on Debian.
if [ -n "$tls_cert" ] && command -v dpkg >/dev/null && ! dpkg -s lighttpd-mod-openssl >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "serve.sh: lighttpd-mod-openssl not installed; installing it with apt-get" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y lighttpd-mod-openssl >&2
	else
		echo "serve.sh: lighttpd's TLS module is not installed: make deps installs it (as root)" >&2
		exit 1
	fi
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hellobench-fcgi.XXXXXX")
if [ -n "${FCGI_BIN-}" ]; then
	cp "$FCGI_BIN" "$tmp/fcgi"
else
	(cd "$dir" && go build -o "$tmp/fcgi" .)
fi
# A bad argument stops here with the application's own message (exit 2).
"$tmp/fcgi" -check "$@" || exit $?
# Started by root, lighttpd serves as FCGI_USER, which must be able to run
# the binary and create the socket here.
if [ "$(id -u)" = 0 ]; then
	chown "${FCGI_USER:-nobody}" "$tmp"
	chmod 755 "$tmp/fcgi"
fi

host=${addr%:*}
host=${host#[}
host=${host%]}
export FCGI_HOST="${host:-0.0.0.0}"
export FCGI_PORT="${addr##*:}"
export FCGI_BIN="$tmp/fcgi"
export FCGI_SOCKET="$tmp/app.sock"
export FCGI_ARGS="$*"
export GOMAXPROCS="$procs"

# lighttpd dies with this script, however it dies (setpriv's parent-death
# signal), and the application dies with lighttpd (it asks for the same):
# killing the script outright leaves nothing serving.
orphan=
if command -v setpriv >/dev/null; then
	orphan="setpriv --pdeathsig KILL --"
fi
[ -z "$stopping" ] || exit 0
if [ -n "$cpu" ]; then
	$orphan taskset -c "$cpu" lighttpd -D -f "$dir/lighttpd.conf" &
else
	$orphan lighttpd -D -f "$dir/lighttpd.conf" &
fi
pid=$!
[ -z "$stopping" ] || stop

# A trapped signal interrupts wait: wait again until a wait returns without
# a signal in between, keeping lighttpd's own status (127: already taken).
status=0
while :; do
	n=$signals
	s=0
	wait $pid 2>/dev/null || s=$?
	[ $s = 127 ] || status=$s
	[ "$signals" != "$n" ] || break
done
# lighttpd signals the application on its way out but does not wait for it;
# wait here (5 s at most), so that nothing outlives the script.
for _ in $(seq 50); do
	pgrep -x -f "$tmp/fcgi" >/dev/null || break
	sleep 0.1
done
exit $status
