package tlsflag

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hellobench/internal/certs"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	ec, err := certs.Write(dir, certs.ECDSA)
	if err != nil {
		t.Fatal(err)
	}
	other, err := certs.Write(dir, certs.RSA)
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cfg, err := Load("", "", true)
	if cfg != nil || err != nil {
		t.Errorf("neither flag: %v, %v; want nil, nil", cfg, err)
	}
	cfg, err = Load(ec.Cert, ec.Key, true)
	if err != nil || len(cfg.Certificates) != 1 || cfg.MinVersion != tls.VersionTLS12 || cfg.SessionTicketsDisabled {
		t.Fatalf("a good pair: %+v, %v", cfg, err)
	}
	cfg, err = Load(ec.Cert, ec.Key, false)
	if err != nil || !cfg.SessionTicketsDisabled {
		t.Fatalf("a good pair without tickets: %+v, %v; want tickets disabled", cfg, err)
	}
	const noCert = "-tls-tickets=false: needs -tls-cert and -tls-key, as it is about HTTPS"
	if cfg, err := Load("", "", false); cfg != nil || err == nil || err.Error() != noCert {
		t.Errorf("tickets off without a pair: %v, %v; want %q", cfg, err, noCert)
	}

	for _, c := range []struct {
		cert, key, want string
	}{
		{ec.Cert, "", "-tls-cert " + ec.Cert + ": needs -tls-key, the certificate's key"},
		{"", ec.Key, "-tls-key " + ec.Key + ": needs -tls-cert, the key's certificate"},
		{missing, ec.Key, "-tls-cert " + missing + ": open " + missing + ": no such file or directory"},
		{ec.Cert, missing, "-tls-key " + missing + ": open " + missing + ": no such file or directory"},
		{garbage, ec.Key, "-tls-cert " + garbage + ": no PEM certificate in it"},
		{ec.Key, ec.Key, "-tls-cert " + ec.Key + ": no PEM certificate in it"},
		{ec.Cert, garbage, "-tls-key " + garbage + ": tls: failed to find any PEM data in key input"},
		{ec.Cert, other.Key, "-tls-key " + other.Key + ": tls: private key type does not match public key type"},
	} {
		cfg, err := Load(c.cert, c.key, true)
		if cfg != nil || err == nil || err.Error() != c.want || strings.Contains(err.Error(), "\n") {
			t.Errorf("Load(%q, %q) = %v, %v; want the one line %q", c.cert, c.key, cfg, err, c.want)
		}
	}
}
