package waitpool

import (
	"sync"
	"testing"
	"time"
)

// TestPool: no more than Size jobs run at once, the rest wait their turn,
// every job runs once, and the pool is idle after.
func TestPool(t *testing.T) {
	p := &Pool{Size: 2}
	var mu sync.Mutex
	running, most := 0, 0
	var order []int
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		p.Submit(func() {
			defer wg.Done()
			mu.Lock()
			running++
			most = max(most, running)
			order = append(order, i)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
		})
	}
	if !p.Busy() {
		t.Error("not busy with six jobs submitted")
	}
	wg.Wait()
	for deadline := time.Now().Add(time.Second); p.Busy(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still busy a second after the last job")
		}
	}
	if most != 2 || len(order) != 6 {
		t.Fatalf("%d at once (want 2), %d jobs run (want 6)", most, len(order))
	}
}
