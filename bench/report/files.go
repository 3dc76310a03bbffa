package report

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// results/ keeps the summaries of re-runs and other hosts, and may keep
// any summary, gzip-compressed as NAME.gz: ReadFile and Stat take NAME
// and find either, NAME first (a run writes it plain).

// ReadFile reads name, or when there is none, name.gz decompressed. With
// neither, the error is name's.
func ReadFile(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	z, zerr := os.ReadFile(name + ".gz")
	if errors.Is(zerr, fs.ErrNotExist) {
		return nil, err
	}
	if zerr != nil {
		return nil, zerr
	}
	zr, zerr := gzip.NewReader(bytes.NewReader(z))
	if zerr == nil {
		b, zerr = io.ReadAll(zr)
	}
	if zerr != nil {
		return nil, fmt.Errorf("%s.gz: %v", name, zerr)
	}
	return b, nil
}

// Stat reports whether name, or name.gz, exists: nil if either does,
// else name's error.
func Stat(name string) error {
	_, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if _, zerr := os.Stat(name + ".gz"); zerr == nil {
			return nil
		}
	}
	return err
}

// WriteGzip writes b to name.gz, compressed, and removes a plain name.
func WriteGzip(name string, b []byte) error {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b) // a bytes.Buffer takes every byte
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(name+".gz", z.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
