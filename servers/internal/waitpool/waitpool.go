// Package waitpool runs handler waits off an event loop, which must never
// block, on a bounded pool of goroutines: the pool gnet's and uring's
// servers share.
//
// The bound is memory: each waiting goroutine holds a stack of a few KiB,
// so 4096 of them stay within tens of MiB however many connections wait.
// When all are busy, a job queues, first in first out and on no
// goroutine, until one is free, as a request waits for a database
// connection from a pool: latency grows, not memory, and the loop never
// blocks. A server that reads no further request on a connection while one
// waits holds at most one job per connection in the queue, so its
// connection limit bounds it.
package waitpool

import "sync"

// A Pool runs jobs on at most Size goroutines, started as needed.
type Pool struct {
	Size int

	mu      sync.Mutex
	running int      // goroutines
	queue   []func() // waiting for one
}

// Submit runs job on a goroutine of the pool, or queues it when all are
// busy. It never blocks (the lock guards a few assignments), so an event
// loop may call it.
func (p *Pool) Submit(job func()) {
	p.mu.Lock()
	if p.running < p.Size {
		p.running++
		p.mu.Unlock()
		go p.serve(job)
		return
	}
	p.queue = append(p.queue, job)
	p.mu.Unlock()
}

// serve runs job, then what is queued, then ends.
func (p *Pool) serve(job func()) {
	for {
		job()
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.running--
			p.mu.Unlock()
			return
		}
		job = p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.mu.Unlock()
	}
}

// Busy reports whether any job is running or queued.
func (p *Pool) Busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running > 0
}
