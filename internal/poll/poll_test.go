package poll

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestUntilChecksAtOnceAndStopsWhenTheCheckHolds(t *testing.T) {
	calls := 0
	err := Until(context.Background(), time.Millisecond, time.Minute, func(context.Context) error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Until = %v after %d checks, want nil after 3", err, calls)
	}
}

func TestUntilGivesUpWithTheLastStateItSaw(t *testing.T) {
	calls := 0
	err := Until(context.Background(), time.Millisecond, 20*time.Millisecond, func(context.Context) error {
		calls++
		return errors.New("3 homes gated")
	})
	if err == nil || !strings.Contains(err.Error(), "not within 20ms: 3 homes gated") {
		t.Fatalf("Until = %v, want it to name the timeout and the last state", err)
	}
	if calls < 2 {
		t.Errorf("%d checks in 20ms at 1ms intervals, want several", calls)
	}
}

func TestUntilEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Until(ctx, time.Millisecond, time.Minute, func(context.Context) error { return errors.New("waiting") })
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting") {
		t.Fatalf("Until on a cancelled context = %v, want context.Canceled and the last state", err)
	}
}

func TestHoldsDescribesWhatItFound(t *testing.T) {
	if err := Holds(func() bool { return true })(context.Background()); err != nil {
		t.Errorf("a holding condition: %v", err)
	}
	err := Holds(func() bool { return false }, func() string { return "2 maps" }, func() string { return "1 route" })(context.Background())
	if err == nil || err.Error() != "2 maps; 1 route" {
		t.Errorf("a failing condition with two states: %v", err)
	}
	if err := Holds(func() bool { return false })(context.Background()); err == nil {
		t.Error("a failing condition without a state: nil")
	}
}

func TestUntilStopsAtAFinalError(t *testing.T) {
	refused := errors.New("forbidden")
	calls := 0
	err := Until(context.Background(), time.Millisecond, time.Minute, func(context.Context) error {
		calls++
		return Final(refused)
	})
	if err != refused || calls != 1 { //nolint:errorlint // Until returns the very error
		t.Fatalf("Until = %v after %d checks, want the final error itself after 1", err, calls)
	}
}
