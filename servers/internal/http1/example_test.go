package http1_test

import (
	"fmt"
	"strings"

	"hellobench/servers/internal/http1"
)

// A server keeps the bytes the parser is not done with and calls Parse
// again as more arrive: here two pipelined requests, the second with a
// body, arriving in three pieces that split a header and the body.
func ExampleParser() {
	var p http1.Parser
	var buf []byte
	for _, piece := range []string{
		"GET /hello/world HTTP/1.1\r\nHo",
		"st: example.com\r\n\r\nPOST /hello/world?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhel",
		"lo",
	} {
		buf = append(buf, piece...)
		for {
			n, ev := p.Parse(buf)
			buf = buf[n:]
			switch ev {
			case http1.Header:
				fmt.Printf("header: %s %s, body %d bytes, keep-alive %v\n", p.Req.Method, p.Req.Path, p.Req.Length, p.Req.KeepAlive)
				continue
			case http1.Done:
				fmt.Println("done")
				continue
			case http1.Fail:
				fmt.Println("fail:", p.Status, p.Reason)
			}
			break // More: wait for the next piece
		}
	}
	// Output:
	// header: GET /hello/world, body 0 bytes, keep-alive true
	// done
	// header: POST /hello/world, body 5 bytes, keep-alive true
	// done
}

// A request the parser refuses says which status to answer, and why; the
// parser stays failed, and the server closes the connection after the
// answer.
func ExampleParser_fail() {
	var p http1.Parser
	_, ev := p.Parse([]byte("GET /hello/world HTTP/1.1\r\n\r\n"))
	fmt.Println(ev == http1.Fail, p.Status, p.Reason)
	// Output:
	// true 400 HTTP/1.1 request without Host
}

// Route picks the answer to a request; AppendResponse writes it with the
// Date and Connection of this response.
func ExampleAppendResponse() {
	r, head := http1.Route([]byte("GET"), []byte("/missing"))
	b := http1.AppendResponse(nil, "example", r, head, http1.ConnClose, []byte("Tue, 08 Dec 2026 00:00:00 GMT"))
	fmt.Print(strings.ReplaceAll(string(b), "\r\n", "\n"))
	// Output:
	// HTTP/1.1 404 Not Found
	// Server: example
	// Date: Tue, 08 Dec 2026 00:00:00 GMT
	// Content-Type: text/plain; charset=utf-8
	// Content-Length: 14
	// Connection: close
	//
	// 404 Not Found
}
