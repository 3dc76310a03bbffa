package report

import (
	"regexp"
	"strings"

	"hellobench/bench"
)

// The categories a profile's samples are sorted into, in the order the
// page stacks them.
const (
	CatTCP     = "kernel TCP"
	CatSyscall = "system-call entry and exit"
	CatSched   = "scheduler and netpoller"
	CatGC      = "garbage collection"
	CatParse   = "reading and parsing"
	CatRoute   = "routing"
	CatWrite   = "writing and flushing"
	CatHandler = "handler and server code"
	CatOther   = "other"
)

// Categories are every category, in the page's order.
var Categories = []string{CatTCP, CatSyscall, CatSched, CatGC, CatParse, CatRoute, CatWrite, CatHandler, CatOther}

// A CategoryRule gives the functions whose name matches Pattern a
// category; an empty Category passes the frame over (allocation, copying:
// work done for the caller, which it is counted to).
type CategoryRule struct {
	Category string
	Pattern  *regexp.Regexp
	Why      string // what the rule catches, for the page
}

// kernel matches a kernel function of the folded stacks (bench.FoldPerf
// marks them): name is a regular expression of the bare names.
func kernel(names string) *regexp.Regexp {
	return regexp.MustCompile(`^(?:` + names + `)` + regexp.QuoteMeta(bench.KernelSuffix) + `$`)
}

// CategoryRules sort a sample: its frames are read from the leaf (the
// function running) up to the root, and at each frame the rules are tried
// in this order; the first rule that matches a frame names the sample's
// category, or, with no category, passes to the caller. A sample no rule
// names is CatOther. So a kernel function below a Go write is kernel
// time, and a Go function's own time goes to the nearest of its callers
// that a rule names.
var CategoryRules = []CategoryRule{
	{CatSyscall, kernel(`entry_SYSCALL\w*|do_syscall_64|syscall_exit\w*|exit_to_user_mode\w*|syscall_enter\w*|__x64_sys_(?:read|write|readv|writev|recvfrom|sendto|recvmsg|sendmsg|sendfile64|close|accept4|io_uring_enter)|ksys_\w+|do_writev|do_readv|vfs_\w+|do_iter\w+|new_sync_\w+|rw_verify_area|__fget\w*|__fdget\w*|fdget\w*|fput\w*|__fsnotify\w*|fsnotify\w*|security_\w+|apparmor_\w+|import_iovec|__import_iovec|rseq_\w+|__rseq\w*|sock_(?:read|write)_iter|sock_(?:recvmsg|sendmsg)|__sys_\w+|io_uring\w*|io_submit\w*|io_issue\w*|io_\w+`),
		"the kernel's side of a system call: entry, exit, the file and socket layers above TCP, and io_uring's submission"},
	{CatSched, kernel(`__?schedule\w*|schedule\w*|pick_next\w*|finish_task_switch\w*|try_to_wake_up|ttwu\w*|wake_up\w*|__wake_up\w*|enqueue\w*|dequeue\w*|update_curr\w*|update_load\w*|psi_\w+|\w*futex\w*|ep_\w+|do_epoll\w*|__x64_sys_epoll\w*|do_nanosleep|hrtimer_nanosleep|__x64_sys_nanosleep|select_task_rq\w*|set_next_entity|put_prev\w*|__switch_to\w*|switch_mm\w*|sched_\w+|io_cqring_wait\w*`),
		"the kernel's scheduler: sleeping, waking a thread, switching to it; epoll and futex"},
	{CatTCP, kernel(`(?:__)?(?:tcp|ip|ipv4|inet|sk|skb|sock|net|netif|napi|dev|nf|raw|neigh|lock_sock|release_sock|kfree_skb|consume_skb|alloc_skb|build_skb|kmalloc_reserve|loopback|process_backlog|validate_xmit)\w*|do_softirq\w*|handle_softirqs|__local_bh_enable_ip|__do_softirq`),
		"the kernel's TCP/IP over loopback: send, receive, the softirq that carries a packet to the other socket"},
	{CatGC, regexp.MustCompile(`^runtime\.(?:gc\w*|scanobject|scanblock|scanstack|scanframeworker|markroot\w*|greyobject|shade|findObject|bgsweep|sweepone|bgscavenge|wbBufFlush\w*|bulkBarrier\w*|\(\*gcWork\)\.\w+|\(\*mspan\)\.sweep|\(\*sweepLocked\)\.sweep|\(\*gcControllerState\)\.\w+|\(\*mheap\)\.reclaim\w*|stopTheWorld\w*|startTheWorld\w*|forEachP|tryDeferToSpanScan|scanSpan\w*)(?:\.abi0)?$`),
		"Go's collector: marking, sweeping, assists, write barriers"},
	{"", regexp.MustCompile(`^runtime\.(?:mallocgc\w*|newobject|makeslice\w*|growslice|rawstring\w*|rawbyteslice|concatstring\w*|slicebytetostring|stringtoslicebyte|makemap\w*|mapassign\w*|mapaccess\w*|\(\*mcache\)\.\w+|\(\*mcentral\)\.\w+|\(\*mheap\)\.\w+|\(\*mspan\)\.\w+|nextFreeFast|heapSetType\w*|\(\*writeHeapBits\)\.\w+|memclrNoHeapPointers|memmove|memequal\w*|systemstack|\(\*spanSet\)\.\w+|deductAssistCredit|heapBits\w*)(?:\.abi0)?$|^\[libc\.so\.6\]$|^(?:__)?mem(?:cpy|move|set|cmp)\w*$`),
		"allocation and copying: counted to the code that asked for it"},
	{CatSched, regexp.MustCompile(`^runtime\.(?:schedule|findRunnable|findrunnable|netpoll\w*|park_m|gopark|goparkunlock|goready|ready|mcall|gosched\w*|goschedImpl|execute|runq\w+|stealWork|checkTimers|runtimer|runOneTimer|\(\*timers\)\.\w+|\(\*timer\)\.\w+|notesleep|notewakeup|notetsleep\w*|futex\w*|stopm|startm|wakep|handoffp|acquirep|releasep|mPark|newproc\w*|gfget|gfput|goexit0|goexit1|casgstatus|sysmon|usleep\w*|nanotime\w*|resetspinning|injectglist|lock2|unlock2|lockWithRank|unlockWithRank|semasleep|semawakeup|osyield\w*|mstart\w*|chansend\w*|chanrecv\w*|selectgo|gcstopm)(?:\.abi0)?$|^internal/poll\.(?:runtime_poll\w+|\(\*pollDesc\)\.\w+)$|netpoll\.\(\*Poller\)\.\w+|^ngx_(?:epoll_process_events|process_events_and_timers|event_\w+)$|^(?:__GI_)?(?:epoll_wait|epoll_pwait)$`),
		"Go's scheduler and netpoller (parking a goroutine, finding the next, epoll), gnet's poller, nginx's event loop"},
	{CatSyscall, regexp.MustCompile(`^(?:syscall|golang\.org/x/sys/unix|internal/runtime/syscall(?:/linux)?)\.\w+(?:\.abi0)?$|^runtime\.(?:entersyscall\w*|exitsyscall\w*|reentersyscall)(?:\.abi0)?$|^(?:__GI_)?_*(?:libc_)?(?:read|write|readv|writev|recv|recvfrom|send|sendto|sendfile|accept4|close|syscall)(?:64)?$`),
		"Go's and libc's system-call wrappers, and the Go scheduler's bookkeeping around a call"},
	{CatWrite, regexp.MustCompile(`(?i)write|flush|^net/http\.\(\*(?:response|chunkWriter)\)\.|^ngx_http_(?:send_header|output_filter|header_filter|\w+_body_filter)|^ngx_linux_sendfile_chain$|^ngx_writev$`),
		"building and sending the answer: buffered writers, response headers, the flush"},
	{CatRoute, regexp.MustCompile(`^net/http\.\(\*(?:ServeMux|routingNode|routingIndex|pattern)\)\.|^github\.com/gin-gonic/gin\.\(\*(?:Engine|node)\)\.|^github\.com/go-chi/chi/v5\.\(\*(?:Mux|node)\)\.|^github\.com/labstack/echo/v4\.\(\*(?:Router|Echo)\)\.|^github\.com/gofiber/fiber/v\d\.\(\*(?:App|Route)\)\.(?:next|match\w*|handler)|^github\.com/cloudwego/hertz/pkg/route\.|^ngx_http_core_\w+_phase$|^ngx_http_core_run_phases$|^ngx_http_core_find_location$`),
		"finding the handler for a path: each router's lookup"},
	{CatParse, regexp.MustCompile(`(?i)parse|^net/textproto\.|^net/url\.|^bufio\.\(\*Reader\)\.|^net/http\.(?:readRequest|\(\*conn\)\.readRequest|\(\*connReader\)\.\w+|\(\*Request\)\.\w+|Header\.\w+|CanonicalHeaderKey|\w*canonical\w*)$|^internal/poll\.\(\*FD\)\.Read|^net\.\(\*(?:conn|netFD)\)\.Read|^github\.com/valyala/fasthttp\.\(\*(?:RequestHeader|Request|URI|Args)\)\.|^github\.com/valyala/fasthttp\.(?:readRawHeaders|peekRawHeader|\w*[Nn]ormalize\w*)|^hellobench/servers/internal/(?:nethttpguard|fasthttpguard|http1|framing)\.|^github\.com/cloudwego/hertz/pkg/protocol/http1/req\.|\.\(\*eventloop\)\.read|^ngx_http_(?:process_request_line|process_request_headers|read_request_header|process_request_uri|validate_host|wait_request_handler|keepalive_handler|process_request)$|^ngx_unix_recv$`),
		"reading the request and parsing it: request line, headers, the contract's guards"},
	{CatHandler, regexp.MustCompile(`^main\.|^ngx_http_(?:static_handler|send_response|core_content_phase)$`),
		"the server's own code: package main (the handler, its wiring), nginx's content handler"},
}

// Category names the category of a folded stack's sample (CategoryRules).
func Category(stack string) string {
	frames := strings.Split(stack, ";")
	for i := len(frames) - 1; i >= 0; i-- {
		for _, r := range CategoryRules {
			if r.Pattern.MatchString(frames[i]) {
				if r.Category != "" {
					return r.Category
				}
				break // passed over: the caller decides
			}
		}
	}
	return CatOther
}

// Categorize sums folded stacks' samples by category.
func Categorize(folded map[string]int64) map[string]int64 {
	by := map[string]int64{}
	for stack, n := range folded {
		by[Category(stack)] += n
	}
	return by
}
