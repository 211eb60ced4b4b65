package modelserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ome-routing/operator/internal/poll"
)

// Background load fills the queue (its slot busy, the rest waiting) and leaves it when
// stopped; it is not traffic, so Received does not count it.
func TestBackgroundLoadKeepsTheQueueBusyUntilStopped(t *testing.T) {
	s, err := StartServers("background.test", []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.SetQueue("a", Queue{Slots: 1, ServiceTime: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	e := s.Endpoints["a"]
	b := e.StartBackground(3)
	wait := func(what string, ok func(waiting, running int) bool) {
		t.Helper()
		if err := poll.Until(context.Background(), 5*time.Millisecond, 10*time.Second, func(context.Context) error {
			if w, r := e.QueueState(); !ok(w, r) {
				return fmt.Errorf("%d waiting, %d running", w, r)
			}
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	wait("the queue fills", func(w, r int) bool { return r == 1 && w >= 1 })
	b.Stop()
	wait("the queue empties", func(w, r int) bool { return w == 0 && r == 0 })
	if got := s.Received()["a"]; got != 0 {
		t.Fatalf("background load counted as %d traffic requests", got)
	}
}
