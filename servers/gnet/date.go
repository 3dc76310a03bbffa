//go:build linux

package main

import (
	"net/http" // for TimeFormat only; gnet's logger, zap, links net/http in anyway
	"time"
)

// clock caches the Date value of the current second. Each event loop owns
// one and refreshes it on every tick, so a response copies 29 bytes instead
// of formatting a time.
type clock struct {
	sec  int64
	date [len(http.TimeFormat)]byte
}

// update reformats the date, in the IMF-fixdate of RFC 9110 section 5.6.7,
// if now is in another second than the cached one.
func (c *clock) update(now time.Time) {
	if s := now.Unix(); s != c.sec {
		c.sec = s
		now.UTC().AppendFormat(c.date[:0], http.TimeFormat)
	}
}
