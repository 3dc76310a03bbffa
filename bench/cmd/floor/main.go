//go:build linux

// Command floor is the bench's syscall floor: a deliberately stripped HTTP
// responder that no real server should be. One thread runs an epoll loop
// (or, with -engine io_uring, an io_uring ring: uring.go);
// for every complete request (bytes up to a blank line, "\r\n\r\n") it
// writes the same canned 200 response carrying the hellobench page. It
// parses nothing else: no method, no path, no headers, except for two
// substrings that say whether to close the connection after the answer, so
// that one-connection-per-request clients work too. A request body would be
// taken for the next request.
//
// What it costs per request is the accept/read/write/close work every
// server must do, plus almost nothing: the yardstick the real servers are
// measured against.
package main

import (
	"bytes"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hellobench/page"
)

func main() {
	addr := flag.String("addr", ":8086", "listen `address` (host:port)")
	engine := flag.String("engine", "epoll", "the event loop: `epoll` or io_uring")
	// Multishot receives cost the io_uring floor less CPU per request than a
	// receive posted after each send: results/uring-floor-runs.txt.
	multishot := flag.Bool("multishot", true, "io_uring: one multishot receive per connection into a ring of provided buffers; false: a receive linked after each send")
	flag.Parse()
	if *engine != "epoll" && *engine != "io_uring" {
		log.Fatalf("floor: -engine %q: epoll or io_uring", *engine)
	}
	// One OS thread does all the work.
	runtime.LockOSThread()

	lfd, err := listen(*addr)
	if err != nil {
		log.Fatalf("floor: %v", err)
	}
	if *engine == "io_uring" {
		serveURing(*addr, lfd, *multishot)
		return
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		log.Fatalf("floor: epoll: %v", err)
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, lfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(lfd)}); err != nil {
		log.Fatalf("floor: epoll: %v", err)
	}

	// A signal stops the loop through a pipe that epoll watches.
	stop := make([]int, 2)
	if err := unix.Pipe2(stop, unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		log.Fatalf("floor: %v", err)
	}
	unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, stop[0], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(stop[0])})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		unix.Write(stop[1], []byte{1})
	}()

	log.Printf("floor: listening on %s (GOMAXPROCS=%d)", *addr, runtime.GOMAXPROCS(0))
	serve(ep, lfd, stop[0])
}

// listen opens a non-blocking listening socket on addr.
func listen(addr string) (int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return -1, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return -1, err
	}
	var ip [4]byte
	if host != "" {
		a := net.ParseIP(host).To4()
		if a == nil {
			return -1, errors.New("floor: listens on IPv4 addresses only, not " + host)
		}
		copy(ip[:], a)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: p, Addr: ip}); err != nil {
		return -1, err
	}
	return fd, unix.Listen(fd, 4096)
}

// A conn is what the loop keeps per connection: unanswered request bytes
// and response bytes the socket has not taken yet. Buffers are reused.
type conn struct {
	in, out []byte
	sent    int  // bytes of out already written
	polling bool // EPOLLOUT requested
	closing bool // close once out is written
	// io_uring with multishot receives: the answers in the send in flight,
	// while out gathers the next.
	wire    []byte
	sending bool
}

var (
	head = "HTTP/1.1 200 OK\r\nServer: floor\r\nContent-Type: " + page.ContentType +
		"\r\nContent-Length: " + strconv.Itoa(len(page.HTML)) + "\r\nDate: "
	closeHeader     = []byte("Connection: close\r\n")
	keepAliveHeader = []byte("Connection: keep-alive\r\n")
	crlf2           = []byte("\r\n\r\n")
)

// response is the canned answer, rebuilt when the second changes so that
// Date stays true.
type response struct {
	sec  int64
	date []byte // head + date + "\r\n"
}

func (r *response) refresh() {
	now := time.Now()
	if now.Unix() == r.sec {
		return
	}
	r.sec = now.Unix()
	r.date = append(append([]byte(head), now.UTC().Format(http.TimeFormat)...), "\r\n"...)
}

func serve(ep, lfd, stop int) {
	conns := &table{}
	events := make([]unix.EpollEvent, 256)
	buf := make([]byte, 64<<10)
	var resp response
	var pause backoff
	for {
		n, err := unix.EpollWait(ep, events, pause.waitMs())
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			log.Fatalf("floor: epoll_wait: %v", err)
		}
		resp.refresh()
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			switch {
			case fd == stop:
				return
			case fd == lfd:
				accept(ep, lfd, conns, &pause)
			default:
				c := conns.get(fd)
				if c == nil {
					continue
				}
				if ev.Events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR) != 0 && !c.closing {
					if !read(fd, c, buf, &resp) {
						closeConn(fd, conns, &pause)
						continue
					}
				}
				if !flush(ep, fd, c) {
					closeConn(fd, conns, &pause)
				}
			}
		}
		if pause.resume() {
			epollCtl(ep, unix.EPOLL_CTL_ADD, lfd, unix.EPOLLIN)
			accept(ep, lfd, conns, &pause)
		}
	}
}

// A backoff pauses accepting after an error that the next accept would
// repeat at once (the process or the system out of descriptors, the
// kernel out of memory): with a listening socket still readable, or a
// multishot accept re-armed on its failure, the loop would spin. Accepting
// resumes when a connection closes, which frees a descriptor, or when the
// pause ends, 5 ms doubling to 1 s. Each error is logged once.
type backoff struct {
	paused bool
	freed  bool // a connection closed during the pause
	until  time.Time
	delay  time.Duration
	said   map[unix.Errno]bool
}

// failed reports whether accept's error errno pauses accepting, and
// pauses it if so. The errors accept(2) says are one connection's
// (aborted, refused by a firewall, a network error) do not: the next
// connection may well be accepted.
func (b *backoff) failed(errno unix.Errno) bool {
	switch errno {
	case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED, unix.EPERM, unix.EPROTO,
		unix.ENETDOWN, unix.ENOPROTOOPT, unix.EHOSTDOWN, unix.ENONET,
		unix.EHOSTUNREACH, unix.EOPNOTSUPP, unix.ENETUNREACH:
		return false
	}
	b.delay = min(max(2*b.delay, 5*time.Millisecond), time.Second)
	b.paused, b.freed, b.until = true, false, time.Now().Add(b.delay)
	if !b.said[errno] {
		if b.said == nil {
			b.said = map[unix.Errno]bool{}
		}
		b.said[errno] = true
		log.Printf("floor: accept: %v; accepting again when a connection closes, or in at most %v (said once)", errno, time.Second)
	}
	return true
}

// accepted ends the backoff's doubling: accepts work again.
func (b *backoff) accepted() { b.delay = 0 }

// closed notes that a connection closed, freeing a descriptor.
func (b *backoff) closed() { b.freed = true }

// resume reports whether a pause has ended, and ends it.
func (b *backoff) resume() bool {
	if !b.paused || !b.freed && time.Now().Before(b.until) {
		return false
	}
	b.paused = false
	return true
}

// wait is how long the loop may wait before it must look at the pause
// again: until its end, or for ever (-1) when not paused.
func (b *backoff) wait() time.Duration {
	if !b.paused {
		return -1
	}
	return max(time.Until(b.until), time.Millisecond)
}

// waitMs is wait as epoll_wait's timeout, in whole milliseconds, rounded
// up so that the pause has ended when it returns.
func (b *backoff) waitMs() int {
	d := b.wait()
	if d < 0 {
		return -1
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// The calls below never block (every socket is non-blocking), so they are
// raw system calls: without the Go scheduler's bookkeeping around a call
// that might block, which a floor should not pay. Only epoll_wait blocks.
// accept4 goes without the peer's address, which nobody reads, and no
// socket option is set: the floor makes the fewest calls a request needs.

func accept(ep, lfd int, conns *table, pause *backoff) {
	for {
		r, _, errno := unix.RawSyscall6(unix.SYS_ACCEPT4, uintptr(lfd), 0, 0, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
		if errno == unix.EAGAIN {
			return // no more for now
		}
		if errno != 0 {
			if pause.failed(errno) {
				// Readable still, the socket would end every wait.
				epollCtl(ep, unix.EPOLL_CTL_DEL, lfd, 0)
				return
			}
			continue
		}
		pause.accepted()
		fd := int(r)
		if !epollCtl(ep, unix.EPOLL_CTL_ADD, fd, unix.EPOLLIN|unix.EPOLLRDHUP) {
			closeFd(fd)
			continue
		}
		conns.open(fd)
	}
}

func epollCtl(ep, op, fd int, events uint32) bool {
	ev := unix.EpollEvent{Events: events, Fd: int32(fd)}
	_, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(ep), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(&ev)), 0, 0)
	return errno == 0
}

func rawRead(fd int, b []byte) (int, unix.Errno) {
	r, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), errno
}

func rawWrite(fd int, b []byte) (int, unix.Errno) {
	r, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), errno
}

func closeFd(fd int) { unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0) }

// read reads what the socket has and answers each complete request. It
// returns false when the peer has gone.
func read(fd int, c *conn, buf []byte, resp *response) bool {
	n, errno := rawRead(fd, buf)
	if errno == unix.EAGAIN {
		return true
	}
	if errno != 0 || n <= 0 {
		return false
	}
	answer(c, buf[:n], resp)
	return true
}

// answer takes b, bytes just read, and appends to c.out the answer to each
// request they complete.
func answer(c *conn, b []byte, resp *response) {
	c.in = append(c.in, b...)
	off := 0 // start of the first unanswered request in c.in
	for {
		i := bytes.Index(c.in[off:], crlf2)
		if i < 0 {
			break
		}
		req := c.in[off : off+i+4]
		c.out = append(c.out, resp.date...)
		// The only reading of the request: HTTP/1.0 closes unless it asks
		// for keep-alive, and "close" closes.
		keep := !bytes.Contains(req, []byte("lose\r\n"))
		if bytes.Contains(req[:bytes.IndexByte(req, '\r')], []byte("HTTP/1.0")) {
			keep = bytes.Contains(req, []byte("eep-alive")) || bytes.Contains(req, []byte("eep-Alive"))
			if keep {
				c.out = append(c.out, keepAliveHeader...)
			}
		}
		if !keep {
			c.out = append(c.out, closeHeader...)
		}
		c.out = append(append(c.out, "\r\n"...), page.HTML...)
		off += i + 4
		if !keep {
			c.closing = true
			off = len(c.in)
			break
		}
	}
	// Keep a partial request, moved to the start of the buffer.
	c.in = append(c.in[:0], c.in[off:]...)
}

// flush writes pending output; it asks epoll for EPOLLOUT while the socket
// is full. It returns false when the connection should be closed.
func flush(ep, fd int, c *conn) bool {
	for c.sent < len(c.out) {
		n, errno := rawWrite(fd, c.out[c.sent:])
		if errno == unix.EAGAIN {
			if !c.polling {
				c.polling = true
				epollCtl(ep, unix.EPOLL_CTL_MOD, fd, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP)
			}
			return true
		}
		if errno != 0 {
			return false
		}
		c.sent += n
	}
	c.out, c.sent = c.out[:0], 0
	if c.polling {
		c.polling = false
		epollCtl(ep, unix.EPOLL_CTL_MOD, fd, unix.EPOLLIN|unix.EPOLLRDHUP)
	}
	return !c.closing
}

// A table holds the connections by file descriptor. A closed connection's
// struct and buffers are kept for the next one on that descriptor, so that
// a connection per request allocates nothing once warm.
type table struct {
	byFd []*conn
	live []bool
}

func (t *table) open(fd int) {
	for fd >= len(t.byFd) {
		t.byFd = append(t.byFd, &conn{})
		t.live = append(t.live, false)
	}
	c := t.byFd[fd]
	c.in, c.out, c.sent, c.polling, c.closing = c.in[:0], c.out[:0], 0, false, false
	c.wire, c.sending = c.wire[:0], false
	t.live[fd] = true
}

func (t *table) get(fd int) *conn {
	if fd < len(t.live) && t.live[fd] {
		return t.byFd[fd]
	}
	return nil
}

func closeConn(fd int, conns *table, pause *backoff) {
	conns.live[fd] = false
	closeFd(fd) // closing also removes it from the epoll set
	pause.closed()
}
