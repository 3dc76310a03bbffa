//go:build linux && (armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64)

package uring

// BufRing.Publish writes entry 0's buffer id and the ring's tail with one
// 32-bit store, the id in its low half: right on a little-endian machine
// only. Building here fails on this undefined name rather than run wrong.
var _ = bufRingPublishNeedsLittleEndian
