//go:build linux

package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// QUICBuffer is what quic-go's documentation asks net.core.rmem_max and
// wmem_max to be at least (about 7.5 MB), for the 7 MiB UDP buffers it
// asks for on each socket it opens; below it, quic-go logs a warning once
// per process and works with what the kernel gives.
const QUICBuffer = 7500000

// udpLimits are the sysctls that cap a socket's UDP buffers.
var udpLimits = []string{"rmem_max", "wmem_max"}

// UDPBuffers returns net.core.rmem_max and wmem_max, in bytes.
func UDPBuffers() (rmem, wmem int, err error) {
	var v [2]int
	for i, name := range udpLimits {
		b, err := os.ReadFile("/proc/sys/net/core/" + name)
		if err != nil {
			return 0, 0, err
		}
		if v[i], err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			return 0, 0, fmt.Errorf("net.core.%s: %v", name, err)
		}
	}
	return v[0], v[1], nil
}

// RaiseUDPBuffers raises net.core.rmem_max and wmem_max to QUICBuffer
// where they are lower, never lowering them. Only root may: otherwise the
// error names the limit that stays low.
func RaiseUDPBuffers() error {
	for _, name := range udpLimits {
		path := "/proc/sys/net/core/" + name
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return fmt.Errorf("net.core.%s: %v", name, err)
		}
		if n >= QUICBuffer {
			continue
		}
		if os.Geteuid() != 0 {
			return fmt.Errorf("net.core.%s is %d, below the %d quic-go asks for, and only root may raise it", name, n, QUICBuffer)
		}
		if err := os.WriteFile(path, []byte(strconv.Itoa(QUICBuffer)), 0o644); err != nil {
			return fmt.Errorf("net.core.%s: raising it to %d: %v", name, QUICBuffer, err)
		}
	}
	return nil
}

// udpSegment is Linux's UDP_SEGMENT socket option (linux/udp.h): the
// segment size of UDP segmentation offload (GSO).
const udpSegment = 103

// GSO says whether this kernel offers UDP segmentation offload on a UDP
// socket, as quic-go probes it (reading UDP_SEGMENT): quic-go then sends
// several packets of a connection in one system call, unless the
// environment sets QUIC_GO_DISABLE_GSO.
func GSO() (bool, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return false, err
	}
	defer syscall.Close(fd)
	_, err = syscall.GetsockoptInt(fd, syscall.IPPROTO_UDP, udpSegment)
	return err == nil, nil
}
