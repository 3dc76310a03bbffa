// Package certs writes a self-signed certificate and its key for the
// loopback (127.0.0.1, ::1 and localhost) into a directory, for the HTTPS
// the servers serve in the tests and under `make serve-NAME TLS=1`. The
// certificate is its own CA: a client trusts it by adding it to its roots
// (Pair.Pool). Nothing here is committed; every run makes its own.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// A Kind is the key type of a certificate.
type Kind int

const (
	ECDSA Kind = iota // ECDSA on P-256: the default, what a bench's TLS 1.2 suite ECDHE-ECDSA-AES128-GCM-SHA256 needs
	RSA               // RSA with 2048 bits
)

func (k Kind) String() string {
	if k == RSA {
		return "rsa"
	}
	return "ecdsa"
}

// A Pair names the PEM files of a certificate and its private key.
type Pair struct {
	Cert, Key string
}

// Write writes a new certificate of kind k for the loopback, valid from an
// hour ago for a week, and its key, into dir as KIND-cert.pem and
// KIND-key.pem. The key is readable by all: lighttpd reads it again after
// it has become an unprivileged user, and it protects nothing but a
// loopback test.
func Write(dir string, k Kind) (Pair, error) {
	var (
		key crypto.Signer
		err error
	)
	switch k {
	case ECDSA:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case RSA:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		return Pair{}, fmt.Errorf("certs: unknown key kind %d", k)
	}
	if err != nil {
		return Pair{}, fmt.Errorf("certs: generating a %v key: %v", k, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return Pair{}, fmt.Errorf("certs: %v", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"hellobench"}, CommonName: "localhost"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // its own root, for the clients' pools
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if k == RSA {
		// RSA key exchange (TLS 1.2 without ECDHE) encrypts with the key.
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return Pair{}, fmt.Errorf("certs: %v", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Pair{}, fmt.Errorf("certs: %v", err)
	}
	p := Pair{
		Cert: filepath.Join(dir, k.String()+"-cert.pem"),
		Key:  filepath.Join(dir, k.String()+"-key.pem"),
	}
	if err := writePEM(p.Cert, "CERTIFICATE", der); err != nil {
		return Pair{}, err
	}
	if err := writePEM(p.Key, "PRIVATE KEY", keyDER); err != nil {
		return Pair{}, err
	}
	return p, nil
}

func writePEM(path, typ string, der []byte) error {
	b := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("certs: %v", err)
	}
	return nil
}

// Pool returns a certificate pool holding p's certificate, for a client
// to trust it.
func (p Pair) Pool() (*x509.CertPool, error) {
	b, err := os.ReadFile(p.Cert)
	if err != nil {
		return nil, fmt.Errorf("certs: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, errors.New("certs: no certificate in " + p.Cert)
	}
	return pool, nil
}
