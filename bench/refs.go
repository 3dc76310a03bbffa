package bench

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"text/template"

	"hellobench/bench/proc"
	"hellobench/page"
)

var (
	//go:embed refs/nginx.conf
	nginxConf string
	//go:embed refs/lighttpd-static.conf
	lighttpdStaticConf string
)

// command returns the command that starts the named server on addr, with
// its files (configs, sockets, copies of binaries) in dir.
func (c Config) command(name, addr, dir string) (*exec.Cmd, error) {
	switch name {
	case "nginx":
		return c.nginx(addr, dir)
	case "lighttpd-static":
		return c.lighttpdStatic(addr, dir)
	case "fcgi":
		return c.fcgi(addr, dir)
	}
	if _, ok := sources[name]; !ok || name == "loadgen" {
		return nil, fmt.Errorf("bench: unknown server %q (known: %s)", name, strings.Join(append(append([]string{}, Go...), Refs...), ", "))
	}
	bin, err := c.Binary(name)
	if err != nil {
		return nil, err
	}
	cmd := proc.Pinned(c.ServerCPU, bin, "-addr", addr)
	cmd.Env = os.Environ()
	return cmd, nil
}

// lookSbin finds a program that Debian puts in /usr/sbin, which a normal
// user's PATH may lack.
func lookSbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("bench: %s is not installed (%w; Debian package: %s)", name, ErrMissing, map[string]string{"nginx": "nginx-light", "lighttpd": "lighttpd"}[name])
}

// nginxBody quotes the page for nginx's return directive. Single quotes
// keep the page's double quotes and newlines; a $ would start a variable.
func nginxBody(b []byte) (string, error) {
	if strings.ContainsAny(string(b), `'\$`) {
		return "", errors.New(`bench: the page contains ', \ or $, which nginx's return cannot carry verbatim`)
	}
	return "'" + string(b) + "'", nil
}

func (c Config) nginx(addr, dir string) (*exec.Cmd, error) {
	bin, err := lookSbin("nginx")
	if err != nil {
		return nil, err
	}
	body, err := nginxBody(page.HTML)
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := writeTemplate(conf, nginxConf, map[string]string{"Dir": dir, "Addr": addr, "Body": body}); err != nil {
		return nil, err
	}
	cmd := proc.Pinned(c.ServerCPU, bin, "-p", dir, "-c", conf, "-e", "stderr")
	cmd.Env = os.Environ()
	return cmd, nil
}

func (c Config) lighttpdStatic(addr, dir string) (*exec.Cmd, error) {
	bin, err := lookSbin("lighttpd")
	if err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "root", "hello")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	// MkdirTemp makes dir private; the user lighttpd becomes must read it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "world"), page.HTML, 0o644); err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "lighttpd.conf")
	if err := writeTemplate(conf, lighttpdStaticConf, map[string]string{"Dir": dir, "Host": host, "Port": port, "User": dropUser()}); err != nil {
		return nil, err
	}
	cmd := proc.Pinned(c.ServerCPU, bin, "-D", "-f", conf)
	cmd.Env = os.Environ()
	return cmd, nil
}

// fcgi starts lighttpd with servers/fcgi/lighttpd.conf, which spawns the
// application; the variables are those that file documents.
func (c Config) fcgi(addr, dir string) (*exec.Cmd, error) {
	bin, err := lookSbin("lighttpd")
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(c.Root, "servers", "fcgi", "lighttpd.conf")
	if _, err := os.Stat(conf); err != nil {
		return nil, fmt.Errorf("bench: fcgi: %s not yet in the tree (%w)", conf, ErrMissing)
	}
	app, err := c.Binary("fcgi")
	if err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	// A copy in dir: the user lighttpd becomes must run it and create the
	// socket next to it.
	appCopy := filepath.Join(dir, "fcgi")
	if err := copyFile(appCopy, app); err != nil {
		return nil, err
	}
	user := dropUser()
	if user != "" {
		if err := chownUser(dir, user); err != nil {
			return nil, err
		}
	}
	cmd := proc.Pinned(c.ServerCPU, bin, "-D", "-f", conf)
	cmd.Dir = filepath.Dir(conf)
	cmd.Env = append(os.Environ(),
		"FCGI_HOST="+host, "FCGI_PORT="+port, "FCGI_BIN="+appCopy,
		"FCGI_SOCKET="+filepath.Join(dir, "app.sock"))
	if user != "" {
		cmd.Env = append(cmd.Env, "FCGI_USER="+user)
	}
	return cmd, nil
}

// dropUser returns the user lighttpd should become when started by root,
// or "" when it runs as the invoking user.
func dropUser() string {
	if os.Geteuid() != 0 {
		return ""
	}
	return "nobody"
}

func chownUser(path, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("bench: user %s: %v", name, err)
	}
	var uid, gid int
	fmt.Sscan(u.Uid, &uid)
	fmt.Sscan(u.Gid, &gid)
	return os.Chown(path, uid, gid)
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeTemplate(path, text string, data any) error {
	t, err := template.New(filepath.Base(path)).Parse(text)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.Execute(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
