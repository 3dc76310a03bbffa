//go:build linux

package main

import (
	"fmt"
	"net"
	"strconv"

	"golang.org/x/sys/unix"
)

// listen opens a listening socket on addr that shares its port with the
// other loops' (SO_REUSEPORT). TCP_NODELAY is set on it for the connections
// it accepts, which inherit it: answers leave at once, with no Nagle delay
// and no system call per connection to ask for it.
func listen(addr string) (int, error) {
	sa, family, err := sockaddr(addr)
	if err != nil {
		return -1, err
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err == unix.EAFNOSUPPORT && family == unix.AF_INET6 && wildcard(sa) {
		// No IPv6 here: every IPv4 address, as net.Listen does.
		sa, family = &unix.SockaddrInet4{Port: sa.(*unix.SockaddrInet6).Port}, unix.AF_INET
		fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	}
	if err != nil {
		return -1, err
	}
	opts := [][3]int{
		{unix.SOL_SOCKET, unix.SO_REUSEADDR, 1},
		{unix.SOL_SOCKET, unix.SO_REUSEPORT, 1},
		{unix.IPPROTO_TCP, unix.TCP_NODELAY, 1},
	}
	if family == unix.AF_INET6 && wildcard(sa) {
		// Dual stack, as net.Listen("tcp", ":port") listens: IPv4
		// clients arrive as IPv4-mapped IPv6 addresses.
		opts = append(opts, [3]int{unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0})
	}
	for _, o := range opts {
		if err := unix.SetsockoptInt(fd, o[0], o[1], o[2]); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 4096); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// sockaddr resolves addr ("host:port") to a socket address and its
// family. An empty host, 0.0.0.0 or :: is every address, IPv6 and IPv4
// (the unspecified IPv6 address, dual stack), as for net.Listen.
func sockaddr(addr string) (unix.Sockaddr, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, 0, err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return nil, 0, fmt.Errorf("port %q: want 0 to 65535", port)
	}
	ip := net.IPv6unspecified
	if host != "" {
		ips, err := net.LookupIP(host)
		if err != nil {
			return nil, 0, err
		}
		ip = ips[0]
	}
	if ip.IsUnspecified() {
		return &unix.SockaddrInet6{Port: p}, unix.AF_INET6, nil
	}
	if ip4 := ip.To4(); ip4 != nil {
		return &unix.SockaddrInet4{Port: p, Addr: [4]byte(ip4)}, unix.AF_INET, nil
	}
	return &unix.SockaddrInet6{Port: p, Addr: [16]byte(ip.To16())}, unix.AF_INET6, nil
}

// wildcard reports whether sa is the unspecified IPv6 address.
func wildcard(sa unix.Sockaddr) bool {
	a, ok := sa.(*unix.SockaddrInet6)
	return ok && a.Addr == [16]byte{}
}
