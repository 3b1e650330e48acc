package actors

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestCtxLock(t *testing.T) {
	l := newLock()
	ctx := context.Background()
	if err := l.lock(ctx); err != nil || l.tryLock() {
		t.Fatal("lock then tryLock: want held")
	}
	c, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := l.lock(c); err == nil {
		t.Fatal("lock of a held lock ignored its deadline")
	}
	l.unlock()
	// Mutual exclusion under contention.
	var wg sync.WaitGroup
	n := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				if err := l.lock(ctx); err != nil {
					t.Error(err)
					return
				}
				n++
				l.unlock()
			}
		}()
	}
	wg.Wait()
	if n != 16000 {
		t.Fatalf("n = %d, want 16000", n)
	}
}
