// Command fiber serves the hellobench page with github.com/gofiber/fiber/v2,
// the Express-style router on top of fasthttp. At /json it sends a Message
// that c.JSON encodes for each request with fiber's default JSONEncoder,
// encoding/json's json.Marshal: 27 bytes.
//
// Around the app (server.go): the guards of servers/internal/fasthttpguard,
// which refuse requests whose framing RFC 9112 asks a server to refuse and
// fasthttp accepts, unless -bare; HTTPS (HTTP/1.1: fiber has no HTTP/2) on
// crypto/tls's listener, under the guard, with -tls-cert and -tls-key.
package main

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"hellobench/page"
	"hellobench/servers/internal/serve"
)

// work is the handler's optional work, -work-cpu and -work-wait (page.Work).
var work page.Work

func newApp(headerTimeout, idleTimeout time.Duration) *fiber.App {
	app := fiber.New(fiber.Config{
		ServerHeader:          "fiber",
		DisableStartupMessage: true, // one log line, ours
		// Only /hello/world itself: not /hello/world/ nor /Hello/World.
		StrictRouting: true,
		CaseSensitive: true,
		// fasthttp's ReadTimeout runs from a request's first byte to its end,
		// so it bounds slow headers; IdleTimeout bounds the wait for the next.
		ReadTimeout: headerTimeout,
		IdleTimeout: idleTimeout,
		// The read buffer must hold the whole header section: 8 KiB caps it
		// there, and fasthttp answers 431 past it.
		ReadBufferSize: 8 << 10,
		// No handler reads a header by name, so skip canonicalising them.
		DisableHeaderNormalizing: true,
	})
	guard(app) // the contract's refusals fiber does not make (server.go)

	// Get registers HEAD too; fiber drops the body of a HEAD response.
	app.Get(page.Path, func(c *fiber.Ctx) error {
		if work.On() {
			work.Do() // blocks only this connection's worker goroutine
		}
		c.Set(fiber.HeaderContentType, page.ContentType)
		return c.Send(page.HTML)
	})
	// Fiber answers other methods 405 on its own but without Allow.
	app.All(page.Path, notAllowed)

	// c.JSON encodes with the app's JSONEncoder, json.Marshal unless
	// fiber.Config sets another, and sets Content-Type application/json.
	app.Get(page.JSONPath, func(c *fiber.Ctx) error {
		return c.JSON(page.Message{Message: page.Greeting})
	})
	app.All(page.JSONPath, notAllowed)
	return app
}

// notAllowed answers a method a route does not take: 405 with the Allow
// that fiber's own 405 leaves out.
func notAllowed(c *fiber.Ctx) error {
	c.Set(fiber.HeaderAllow, page.Allow)
	return fiber.ErrMethodNotAllowed
}

func main() {
	f := serve.FastHTTPFlags("fiber", ":8082", &work)
	f.Parse()
	run(newApp(f.HeaderTimeout, f.IdleTimeout), f) // server.go
}
