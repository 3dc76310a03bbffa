//go:build linux

package main

import "time"

// timeFormat is the IMF-fixdate of RFC 9110 section 5.6.7 (net/http's
// TimeFormat, without linking net/http for one constant).
const timeFormat = "Mon, 02 Jan 2006 15:04:05 GMT"

// clock caches the Date value of the current second. Each loop owns one
// and refreshes it after every wait, so a response copies 29 bytes instead
// of formatting a time.
type clock struct {
	sec  int64
	date [len(timeFormat)]byte
}

// update reformats the date if now is in another second than the cached
// one.
func (c *clock) update(now time.Time) {
	if s := now.Unix(); s != c.sec {
		c.sec = s
		now.UTC().AppendFormat(c.date[:0], timeFormat)
	}
}
