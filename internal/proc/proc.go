//go:build linux

// Package proc starts and stops the processes hellobench measures and reads
// what the Linux kernel accounts for them. It is the one place that parses
// /proc and the one that starts a process group: a command is started
// pinned to a CPU set with GOMAXPROCS, in its own process group, waited on
// until it listens, measured (CPU time, resident memory) and stopped
// gracefully, then for sure, with proof that nothing of it is left.
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat. USER_HZ is 100
// on every Linux architecture Go supports (sysconf(_SC_CLK_TCK) reports the
// same constant), so it needs no cgo.
const clockTick = 10 * time.Millisecond

// A Stat is what /proc/PID/stat says of a process.
type Stat struct {
	PID   int
	Comm  string // the command name, at most 15 bytes
	State byte   // R, S, D, Z, X, ...
	PPID  int
	PGID  int
	User  time.Duration // CPU time in user mode, threads included
	Sys   time.Duration // CPU time in the kernel, threads included
}

// CPU is the process's user and system CPU time together.
func (s Stat) CPU() time.Duration { return s.User + s.Sys }

// Live reports whether the process is running or able to (not a zombie).
func (s Stat) Live() bool { return s.State != 'Z' && s.State != 'X' }

// ReadStat reads /proc/PID/stat.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return parseStat(pid, b)
}

func parseStat(pid int, b []byte) (Stat, error) {
	// The command name (field 2) is in parentheses and may contain spaces
	// and parentheses, so fields are counted from the last ')'.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Stat{}, fmt.Errorf("proc: malformed /proc/%d/stat: %.60q", pid, b)
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state); ppid is 4, pgrp 5, utime 14, stime 15.
	if len(f) < 13 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("proc: short /proc/%d/stat: %d fields", pid, len(f)+2)
	}
	s := Stat{PID: pid, Comm: string(b[open+1 : end]), State: f[0][0]}
	nums := []*int{&s.PPID, &s.PGID}
	for i, p := range nums {
		v, err := strconv.Atoi(f[1+i])
		if err != nil {
			return Stat{}, fmt.Errorf("proc: /proc/%d/stat field %d: %v", pid, 4+i, err)
		}
		*p = v
	}
	for i, p := range []*time.Duration{&s.User, &s.Sys} {
		v, err := strconv.ParseUint(f[11+i], 10, 64)
		if err != nil {
			return Stat{}, fmt.Errorf("proc: /proc/%d/stat field %d: %v", pid, 14+i, err)
		}
		*p = time.Duration(v) * clockTick
	}
	return s, nil
}

// Alive reports whether pid is a live (not zombie) process.
func Alive(pid int) bool {
	s, err := ReadStat(pid)
	return err == nil && s.Live()
}

// All returns the stat of every process readable now.
func All() []Stat {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	var all []Stat
	for _, p := range paths {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil {
			continue
		}
		if s, err := ReadStat(pid); err == nil { // else exited meanwhile
			all = append(all, s)
		}
	}
	return all
}

// Group returns the live processes of process group pgid.
func Group(pgid int) []Stat {
	var g []Stat
	for _, s := range All() {
		if s.PGID == pgid && s.Live() {
			g = append(g, s)
		}
	}
	return g
}

// Memory is a process's resident memory, in bytes.
type Memory struct {
	RSS  int64 // resident now (VmRSS)
	Peak int64 // the most it has been resident (VmHWM)
}

// ReadMemory reads VmRSS and VmHWM from /proc/PID/status.
func ReadMemory(pid int) (Memory, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		var dst *int64
		switch name {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.Peak
		}
		if !ok || dst == nil {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("proc: %s of %d: %v", name, pid, err)
		}
		*dst = kb << 10
		found++
	}
	if found != 2 {
		return Memory{}, fmt.Errorf("proc: no VmRSS and VmHWM in /proc/%d/status (a kernel thread or a zombie?)", pid)
	}
	return m, nil
}

// OpenFiles counts the file descriptors pid has open.
func OpenFiles(pid int) (int, error) {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return 0, err
	}
	return len(ents), nil
}

// Threads counts pid's threads.
func Threads(pid int) (int, error) {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return 0, err
	}
	return len(ents), nil
}

// ErrGone is returned when a process was expected and is not there.
var ErrGone = errors.New("no such process")

// TCPSegments returns the TCP segments the machine has sent since boot
// (OutSegs in /proc/net/snmp, retransmissions excluded), for a count of
// the segments a run caused: over loopback, each is also received once.
func TCPSegments() (int64, error) {
	b, err := os.ReadFile("/proc/net/snmp")
	if err != nil {
		return 0, err
	}
	return parseSNMP(b, "Tcp", "OutSegs")
}

// parseSNMP finds a counter in /proc/net/snmp's format: per protocol, a
// line of names, then a line of values, both led by "Proto:".
func parseSNMP(b []byte, proto, name string) (int64, error) {
	lines := strings.Split(string(b), "\n")
	for i := 0; i+1 < len(lines); i++ {
		names, values := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(names) == 0 || names[0] != proto+":" || len(values) != len(names) || values[0] != names[0] {
			continue
		}
		for j, n := range names {
			if n == name {
				v, err := strconv.ParseInt(values[j], 10, 64)
				if err != nil {
					return 0, fmt.Errorf("proc: snmp %s %s: %v", proto, name, err)
				}
				return v, nil
			}
		}
	}
	return 0, fmt.Errorf("proc: snmp has no %s %s", proto, name)
}

// CPUModel returns the first "model name" in /proc/cpuinfo, or "" if there
// is none (some architectures do not name one).
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// A CPUID is what /proc/cpuinfo says identifies the processor: a model
// name such as "AMD EPYC" is shared by generations a VM cannot tell apart,
// its family, model and stepping are not.
type CPUID struct {
	Vendor    string // vendor_id, e.g. "AuthenticAMD"
	Family    string // cpu family, decimal
	Model     string // model, decimal
	Stepping  string
	Microcode string // e.g. "0xb002116"; some VMs do not show it
}

// ReadCPUID reads the first processor's CPUID from /proc/cpuinfo.
func ReadCPUID() (CPUID, error) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return CPUID{}, err
	}
	return ParseCPUID(b), nil
}

// ParseCPUID reads the first processor's block of /proc/cpuinfo; a field
// it does not have is left "".
func ParseCPUID(b []byte) CPUID {
	var id CPUID
	fields := map[string]*string{"vendor_id": &id.Vendor, "cpu family": &id.Family, "model": &id.Model, "stepping": &id.Stepping, "microcode": &id.Microcode}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" && id != (CPUID{}) {
			break // the end of the first processor's block
		}
		k, v, ok := strings.Cut(line, ":")
		if f := fields[strings.TrimSpace(k)]; ok && f != nil && *f == "" {
			*f = strings.TrimSpace(v)
		}
	}
	return id
}

// Kernel returns the kernel's release, as uname -r, or "" if unknown.
func Kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Listening returns the inodes of the IPv4 TCP sockets listening on port
// (from /proc/net/tcp), to match against a process's Sockets.
func Listening(port int) (map[string]bool, error) {
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	suffix := fmt.Sprintf(":%04X", port)
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		// sl local_address rem_address st ... inode; st 0A is LISTEN.
		if len(f) > 9 && strings.HasSuffix(f[1], suffix) && f[3] == "0A" {
			inodes[f[9]] = true
		}
	}
	return inodes, nil
}

// Sockets returns the inodes of the sockets among process pid's open
// descriptors.
func Sockets(pid int) (map[string]bool, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, e := range ents {
		l, err := os.Readlink(filepath.Join(dir, e.Name()))
		if inode, ok := strings.CutPrefix(l, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return inodes, nil
}
