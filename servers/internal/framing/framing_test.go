package framing

import (
	"errors"
	"fmt"
	"testing"
)

// result is what a Body made of a stream: how many bytes it took, whether
// the body ended, and the status of its error (0 for none).
type result struct {
	n      int
	done   bool
	status int
}

func (r result) String() string {
	return fmt.Sprintf("%d bytes, done %v, status %d", r.n, r.done, r.status)
}

// scan feeds data to b in pieces of the given sizes (used in turn) until
// the body ends or fails.
func scan(b Body, data []byte, sizes ...int) result {
	var r result
	for i := 0; r.n < len(data); i++ {
		k := min(sizes[i%len(sizes)], len(data)-r.n)
		n, done, err := b.Scan(data[r.n : r.n+k])
		if n > k || n < k && !done && err == nil {
			panic(fmt.Sprintf("Scan of %d bytes took %d, not done, no error", k, n))
		}
		r.n += n
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				panic(err)
			}
			r.status = fe.Status
			return r
		}
		if r.done = done; done {
			return r
		}
	}
	return r
}

var (
	strict = Rules{}                                  // net/http's guard
	lines  = Rules{MaxDigits: 15, LineTrailers: true} // fasthttp's
)

func TestBody(t *testing.T) {
	const next = "GET / HTTP/1.1\r\n\r\n"
	all := -1
	tests := []struct {
		name   string
		body   Body
		in     string
		n      int // bytes of the body; all for the whole input
		done   bool
		status int
	}{
		{"length", Length(5), "hello" + next, 5, true, 0},
		{"length cut short", Length(5), "hel", all, false, 0},
		{"no body", Body{}, next, 0, true, 0},
		{"chunks", Chunked(strict), "5\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n" + next, len("5\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n"), true, 0},
		{"extensions", Chunked(strict), "2 ; a = b\t;c\r\nhi\r\n2;q=\"a \\\" ;\\\\ \xff\"\r\nhi\r\n2;x=\"\"\r\nhi\r\n00;last\r\n\r\n", all, true, 0},
		{"trailers", Chunked(lines), "0\r\nX-T: 1\r\nY:\r\n\r\n" + next, len("0\r\nX-T: 1\r\nY:\r\n\r\n"), true, 0},
		{"chunked cut short", Chunked(strict), "5\r\nhel", all, false, 0},
		{"leading zeros", Chunked(strict), "0000000000000002\r\naa\r\n0\r\n\r\n", all, true, 0},

		{"size with space", Chunked(strict), "a \r\n", 2, false, 400},
		{"size 0x", Chunked(strict), "0x2\r\n", 1, false, 400},
		{"no size", Chunked(strict), "\r\n", 0, false, 400},
		{"empty extension", Chunked(strict), "2;\r\n", 2, false, 400},
		{"extension without value", Chunked(strict), "2;a=\r\n", 4, false, 400},
		{"unbalanced quote", Chunked(strict), "2;a=\"b\r\n", 6, false, 400},
		{"text after quote", Chunked(strict), "2;a=\"b\"c\r\n", 7, false, 400},
		{"NUL in extension", Chunked(strict), "2;a=\"\x00\"\r\n", 5, false, 400},
		{"bare LF after size", Chunked(strict), "2\naa\r\n", 1, false, 400},
		{"data too long", Chunked(strict), "2\r\naaa\r\n", 5, false, 400},
		{"data bare LF", Chunked(strict), "2\r\naa\n", 5, false, 400},
		{"trailer name with space", Chunked(strict), "0\r\nBad Name: v\r\n\r\n", 6, false, 400},
		{"trailer bare LF", Chunked(lines), "0\r\nT: v\n\r\n", 7, false, 400},
		{"trailer bare LF, strict", Chunked(strict), "0\r\nT: v\n\r\n", 7, false, 400},
		{"bare CR ending trailers", Chunked(strict), "0\r\n\rX", 4, false, 400},

		// The rules.
		{"digits over the cap", Chunked(lines), "0000000000000002\r\n", 15, false, 400},
		{"size over int64", Chunked(strict), "10000000000000002\r\n", 16, false, 400},
		{"NUL in trailer, strict", Chunked(strict), "0\r\nT: a\x00b\r\n\r\n", 7, false, 400},
		{"NUL in trailer, lines", Chunked(lines), "0\r\nT: a\x00b\r\n\r\n", all, true, 0},
		{"CR in trailer, strict", Chunked(strict), "0\r\nT: a\rb\r\n\r\n", 8, false, 400},
		{"CR in trailer, lines", Chunked(lines), "0\r\nT: a\rb\r\n\r\n", all, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := result{tt.n, tt.done, tt.status}
			if tt.n == all {
				want.n = len(tt.in)
			}
			for _, sizes := range [][]int{{len(tt.in)}, {1}, {2, 3}, {7, 1, 13}} {
				if got := scan(tt.body, []byte(tt.in), sizes...); got != want {
					t.Errorf("%q in pieces %v: %v; want %v", tt.in, sizes, got, want)
				}
			}
		})
	}
}

// FuzzBody checks that a chunked body, under either stack's rules, ends or
// fails at the same byte whether read whole, byte by byte or in pieces.
func FuzzBody(f *testing.F) {
	f.Add([]byte("5;a=\"b\\\"\"\r\nhello\r\n0\r\nT: 1\r\n\r\nGET"))
	f.Add([]byte("2 ; a = b\t;c\r\nhi\r\n000\r\nT: a\rb\r\n\r\n"))
	f.Add([]byte("0000000000000002\r\naa\r\n0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range []Rules{strict, lines} {
			whole := scan(Chunked(r), data, len(data)+1)
			sizes := []int{1}
			if len(data) > 0 {
				sizes = append(sizes, int(data[0]%17)+1, int(data[len(data)-1]%5)+1)
			}
			for _, s := range [][]int{{1}, sizes} {
				if split := scan(Chunked(r), data, s...); split != whole {
					t.Fatalf("%q, rules %+v, in pieces %v: %v; whole: %v", data, r, s, split, whole)
				}
			}
		}
	})
}

func TestContentLength(t *testing.T) {
	for _, tt := range []struct {
		values []string
		n      int64
		ok     bool
	}{
		{[]string{"0"}, 0, true},
		{[]string{"5", "5"}, 5, true},
		{[]string{"000000000000000005"}, 5, true},
		{[]string{"999999999999999999"}, 999999999999999999, true},
		{[]string{"0000000000000000005"}, 0, false}, // 19 digits
		{[]string{""}, 0, false},
		{[]string{"+5"}, 0, false},
		{[]string{"5 5"}, 0, false},
		{[]string{"5", "6"}, 0, false},
	} {
		var cl ContentLength
		var err error
		for _, v := range tt.values {
			if err = cl.Add([]byte(v)); err != nil {
				break
			}
		}
		if ok := err == nil; ok != tt.ok || ok && (cl.N != tt.n || !cl.Set) {
			t.Errorf("%q: %+v, error %v; want %d, ok %v", tt.values, cl, err, tt.n, tt.ok)
		}
	}
}

func TestFrame(t *testing.T) {
	for _, tt := range []struct {
		te     bool
		cl     ContentLength
		done   bool
		status int
	}{
		{false, ContentLength{}, true, 0},
		{false, ContentLength{N: 0, Set: true}, true, 0},
		{false, ContentLength{N: 3, Set: true}, false, 0},
		{true, ContentLength{}, false, 0},
		{true, ContentLength{N: 0, Set: true}, true, 400},
	} {
		b, err := Frame(tt.te, tt.cl, strict)
		status := 0
		if fe := (*Error)(nil); errors.As(err, &fe) {
			status = fe.Status
		}
		if b.Done() != tt.done || status != tt.status {
			t.Errorf("Frame(%v, %+v): done %v, error %v; want done %v, status %d", tt.te, tt.cl, b.Done(), err, tt.done, tt.status)
		}
	}
}

func TestCodings(t *testing.T) {
	for _, tt := range []struct {
		v           string
		chunked     int
		last, empty bool
	}{
		{"chunked", 1, true, false},
		{"gzip, Chunked", 1, true, false},
		{"chunked, gzip", 1, false, false},
		{"chunked,chunked", 2, true, false},
		{", chunked", 1, true, true},
		{"chun\u212Aed", 0, false, false}, // Kelvin sign: tokens compare in ASCII
		{"", 0, false, true},
	} {
		c, l, e := Codings([]byte(tt.v))
		if c != tt.chunked || l != tt.last || e != tt.empty {
			t.Errorf("Codings(%q) = %d, %v, %v; want %d, %v, %v", tt.v, c, l, e, tt.chunked, tt.last, tt.empty)
		}
	}
}
