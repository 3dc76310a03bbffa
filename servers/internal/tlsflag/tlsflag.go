// Package tlsflag checks the TLS flags of the servers that serve HTTPS,
// -tls-cert, -tls-key and -tls-tickets, and loads the pair. Given both, a server
// serves HTTPS on its address with its stack's own TLS; given neither,
// plain HTTP. Each server checks them after flag.Parse and, on an error,
// prints it as its one line on stderr and exits with status 2, the flag
// package's status for bad usage, before it listens:
//
//	tlsConfig, err := tlsflag.Load(*certFile, *keyFile, *tickets)
//	if err != nil {
//		fmt.Fprintf(os.Stderr, "nethttp: %v\n", err)
//		os.Exit(2)
//	}
package tlsflag

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// Load returns the TLS configuration serving the certificate in certFile
// with the key in keyFile (PEM files), or nil and no error when both are
// empty. Its error is one line naming the flag and the file: only one of
// the two given, a file that cannot be read, a certificate file with no
// certificate, a key that does not load or does not match, tickets turned
// off without a certificate.
//
// Without tickets the server issues no session ticket, and crypto/tls
// keeps no session cache, so every new connection makes a full handshake,
// in TLS 1.3 too, where a client that was sent a ticket always offers it
// back: that is how a bench measures a full TLS 1.3 handshake.
//
// The configuration negotiates TLS 1.3 with a client that offers it, as
// crypto/tls does by default, and allows TLS 1.2 as its minimum, so that a
// bench can ask for TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256 (an ECDSA
// certificate); nothing older.
func Load(certFile, keyFile string, tickets bool) (*tls.Config, error) {
	switch {
	case certFile == "" && keyFile == "" && !tickets:
		return nil, fmt.Errorf("-tls-tickets=false: needs -tls-cert and -tls-key, as it is about HTTPS")
	case certFile == "" && keyFile == "":
		return nil, nil
	case keyFile == "":
		return nil, fmt.Errorf("-tls-cert %s: needs -tls-key, the certificate's key", certFile)
	case certFile == "":
		return nil, fmt.Errorf("-tls-key %s: needs -tls-cert, the key's certificate", keyFile)
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("-tls-cert %s: %v", certFile, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("-tls-key %s: %v", keyFile, err)
	}
	if err := checkCert(certPEM); err != nil {
		return nil, fmt.Errorf("-tls-cert %s: %v", certFile, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// The certificate parsed: what is wrong is the key, or the pair.
		return nil, fmt.Errorf("-tls-key %s: %v", keyFile, err)
	}
	return &tls.Config{
		Certificates:           []tls.Certificate{cert},
		MinVersion:             tls.VersionTLS12,
		SessionTicketsDisabled: !tickets,
	}, nil
}

// checkCert returns an error unless b's first PEM block is a certificate
// that parses.
func checkCert(b []byte) error {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" {
		return fmt.Errorf("no PEM certificate in it")
	}
	if _, err := x509.ParseCertificate(block.Bytes); err != nil {
		return err
	}
	return nil
}
