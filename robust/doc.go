// Package robust is the robustness suite: every hellobench server, started
// as a real process pinned to one CPU with GOMAXPROCS=1, against hostile
// clients and faults. Its tests hold slow-header (slowloris), slow-read and
// slow-body (R-U-Dead-Yet) connections, pipeline a great many requests on
// a connection that never reads and on many at once, hold many idle
// keep-alive connections, exhaust the open-file
// limit, reset connections mid-request and mid-response and stop a server
// under load. On the servers that serve HTTP/3 (-h3) they fetch the page
// and /json with clients not written in Go (ngtcp2's; h2load where it
// speaks HTTP/3), flood the UDP port with garbage, hanging handshakes and
// replayed Initials, and count what a server sends an address that never
// proves it is one against RFC 9000's limit of three times what it
// received. TestSoak keeps churning keep-alive load on them for minutes
// and checks that memory, threads and descriptors stay flat.
//
// Each test asserts what a server must hold, against the server's own
// process (its open descriptors, threads, CPU time and resident memory from
// /proc) and against real clients: slowhttptest from Debian, the suite's
// raw sockets and the load generator (bench/cmd/loadgen), and
// ngtcp2-client's gtlsclient. A missing tool
// skips the tests that need it, or fails them when HELLOBENCH_REQUIRE_TOOLS=1.
//
// go test runs a quick variant of each test. Flags, after -args:
//
//	-full         the full sizes (make robust)
//	-report FILE  write this run's results as markdown (results/ROBUSTNESS.md)
//	-soak D       run TestSoak for D (make soak); it skips without
//
// Every test records one row per server (held or failed, the size it ran
// at and what it measured) for the report.
package robust
