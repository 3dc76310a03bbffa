package report

// The sections of a report: each part's key in Read's map and in
// Report.Sections, and (but for CeilingsSection, bench.txt) its file's
// name in the output directory, with .txt.
const (
	CeilingsSection     = "ceilings"      // make bench-ceilings: every mode, in-memory costs
	SweepSection        = "sweep"         // the concurrency sweep and idle connections
	ScaleSection        = "scale"         // the ceilings on several core counts
	WorkSection         = "work"          // handler work at the ceiling
	LatencySection      = "latency"       // fixed rates, with HdrHistogram logs
	LoadSection         = "load"          // shares of the ceilings and the ladder
	AtLoadSection       = "atload"        // a quarter of the ceilings beside nginx
	CapacitySection     = "capacity"      // the rate held within a p99 bound, alone
	WhySection          = "why"           // the kernel's work per request, alone
	ReadinessSection    = "readiness"     // the floors' kernel work, saturated
	TLSSection          = "tls"           // the modes over TLS and HTTP/2
	TLSKeepAliveSection = "tls-keepalive" // keep-alive over TLS, with its own blocks
	TLSHandshakeSection = "tls-handshake" // nethttp's and nginx's handshakes
	NewConnSection      = "newconn"       // a new connection per request
	// PickSection is make bench's one run, every figure of the pick
	// table from one invocation (pick.txt); ReadPick reads it alone.
	PickSection = "pick"
	// ProtocolsSection is make bench-tls PART=h3's section (protocols.txt).
	ProtocolsSection = "protocols"
	// UringSection is make bench-work PART=uring's section (uring.txt):
	// uring's rows of the waits and the idle connections alone.
	UringSection = "uring"
	// MinWaitSection is the min-wait run's key in Report.Sections, and
	// its file's name, minwait.txt; AddMinWait reads it, not Read.
	MinWaitSection = "minwait"
)
