//go:build linux

package loadgen_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"hellobench/bench/loadgen"
)

// Run drives a server on loopback with a fixed number of requests over a
// few keep-alive connections, and counts what came back.
func ExampleRun() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello, world\n"))
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := loadgen.Run(ctx, loadgen.Config{
		URL:         srv.URL + "/hello",
		Requests:    200,
		Concurrency: 4,
		KeepAlive:   true,
		Timeout:     5 * time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("complete:", r.Complete, "failed:", r.Failed)
	fmt.Println("200 OK:", r.Status[200], "keep-alive:", r.KeepAliveRequests)
	fmt.Println("connections:", r.Connections, "document length:", r.DocumentLength)
	fmt.Println("latencies recorded:", r.Latency.TotalCount())
	// Output:
	// complete: 200 failed: 0
	// 200 OK: 200 keep-alive: 200
	// connections: 4 document length: 13
	// latencies recorded: 200
}
