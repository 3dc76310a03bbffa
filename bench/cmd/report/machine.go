package main

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"

	"hellobench/bench"
	"hellobench/bench/report"
	"hellobench/internal/proc"
)

func machine() report.Machine {
	m := report.Machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	m.CPU = proc.CPUModel()
	if id, err := proc.ReadCPUID(); err == nil {
		m.Vendor, m.Family, m.Model, m.Stepping, m.Microcode = id.Vendor, id.Family, id.Model, id.Stepping, id.Microcode
	}
	if k := proc.Kernel(); k != "" {
		m.Kernel = "Linux " + k
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.Go = strings.TrimSpace(string(out))
	}
	m.Nginx = version(`nginx/(\S+)`, "nginx", "-v")
	m.Lighttpd = version(`lighttpd/(\S+)`, "lighttpd", "-v")
	cpu := 0
	if cpus, err := proc.ParseCPUs(os.Getenv("SERVER_CPUS")); err == nil && len(cpus) > 0 {
		cpu = cpus[0]
	}
	// 5 runs of a million calls: a few seconds at most.
	if d, err := proc.SyscallCost(cpu, 5, 1_000_000); err == nil {
		m.SyscallNS = float64(d.Nanoseconds())
	}
	m.Mitigations = proc.Mitigations()
	if rmem, wmem, err := proc.UDPBuffers(); err == nil {
		gso := "no GSO"
		if ok, err := proc.GSO(); err == nil && ok {
			gso = "GSO offered"
		}
		m.UDP = fmt.Sprintf("rmem_max %d, wmem_max %d, %s", rmem, wmem, gso)
	}
	// The stacks' versions as this build resolves them; a run goes on
	// without them, and the report says they were not recorded.
	if root, err := bench.FindRoot(); err != nil {
		log.Printf("versions not recorded: %v", err)
	} else if m.Versions, err = report.StackVersions(root); err != nil {
		log.Printf("versions not recorded: %v", err)
	}
	return m
}

// version runs a program's version option and picks the version out of
// what it prints; "" when it is not installed.
func version(pattern, name string, args ...string) string {
	path, err := exec.LookPath(name)
	if err != nil {
		path = "/usr/sbin/" + name
	}
	out, _ := exec.Command(path, args...).CombinedOutput()
	if m := regexp.MustCompile(pattern).FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}
