package modelserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ome-routing/operator/internal/poll"
)

// Waiting requests get their slots in the order they came, one per slot freed; raising the
// limit lets in as many more at once, and lifting it lets in everyone left.
func TestSlotsAreHandedOutFirstComeFirstServed(t *testing.T) {
	s := &slots{}
	s.setLimit(1)
	if err := s.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 5)
	for i := range 5 {
		go func() {
			if err := s.acquire(context.Background()); err == nil {
				got <- i
			}
		}()
		// The next waiter starts only once this one is in line, so their order is known.
		waitForSlots(t, s, i+1, 1)
	}
	s.release()
	if i := <-got; i != 0 {
		t.Fatalf("the first slot freed went to waiter %d, want 0", i)
	}
	s.setLimit(3)
	if in := receiveTwo(got); in != [2]int{1, 2} {
		t.Fatalf("raising the limit to 3 let in waiters %v, want 1 and 2", in)
	}
	waitForSlots(t, s, 2, 3)
	s.setLimit(0)
	if in := receiveTwo(got); in != [2]int{3, 4} {
		t.Fatalf("lifting the limit let in waiters %v, want 3 and 4", in)
	}
	waitForSlots(t, s, 0, 5)
}

// receiveTwo is the next two waiters let in, in increasing order: two let in at once
// report in either order.
func receiveTwo(got <-chan int) [2]int {
	a, b := <-got, <-got
	return [2]int{min(a, b), max(a, b)}
}

// A waiter whose context ends leaves the line without a slot, and the next in line gets
// the slot it would have had.
func TestSlotsLetALeavingWaiterGo(t *testing.T) {
	s := &slots{}
	s.setLimit(1)
	if err := s.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, leave := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() { left <- s.acquire(ctx) }()
	waitForSlots(t, s, 1, 1)
	served := make(chan error, 1)
	go func() { served <- s.acquire(context.Background()) }()
	waitForSlots(t, s, 2, 1)
	leave()
	if err := <-left; err == nil {
		t.Fatal("a waiter whose context ended got a slot")
	}
	waitForSlots(t, s, 1, 1)
	s.release()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	waitForSlots(t, s, 0, 1)
}

// waitForSlots waits until s has waiting requests in line and running holding slots.
func waitForSlots(t *testing.T, s *slots, waiting, running int) {
	t.Helper()
	err := poll.Until(context.Background(), time.Millisecond, 5*time.Second, func(context.Context) error {
		w, r, _ := s.state()
		if w != waiting || r != running {
			return fmt.Errorf("%d waiting and %d running, want %d and %d", w, r, waiting, running)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
