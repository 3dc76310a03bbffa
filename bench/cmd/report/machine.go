package main

import (
	"os/exec"
	"regexp"
	"runtime"
	"strings"

	"hellobench/internal/proc"
)

// Machine is what the report records of the machine it ran on, so that
// readers compare across machines by ratios to the floor and to nginx.
type Machine struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
	Nginx    string `json:"nginx"`
	Lighttpd string `json:"lighttpd"`
}

const dateFormat = "2006-01-02 15:04 MST"

func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	m.CPU = proc.CPUModel()
	if k := proc.Kernel(); k != "" {
		m.Kernel = "Linux " + k
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.Go = strings.TrimSpace(string(out))
	}
	m.Nginx = version(`nginx/(\S+)`, "nginx", "-v")
	m.Lighttpd = version(`lighttpd/(\S+)`, "lighttpd", "-v")
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
