// Package poll waits for a condition by checking it again and again. It is the one wait
// of the demo, the bench, the soak and the tests that do not run under Ginkgo (which wait
// with Gomega's Eventually); the timeouts the suites wait with are in test/framework.
package poll

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Until calls check at once and then every interval until it returns nil, ctx ends or
// timeout has passed. A non-nil error from check says what it found instead of what it
// waits for, and is not fatal unless check wraps it in Final; Until's own error carries the
// last one, so a caller that gives up can say what it saw.
func Until(parent context.Context, interval, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		last := check(ctx)
		if last == nil {
			return nil
		}
		var final finalError
		if errors.As(last, &final) {
			return final.err
		}
		select {
		case <-ctx.Done():
			if err := parent.Err(); err != nil {
				return fmt.Errorf("%w (last: %w)", err, last)
			}
			return fmt.Errorf("not within %s: %w", timeout, last)
		case <-ticker.C:
		}
	}
}

// Holds is a check for Until from a condition that either holds or not; state, if given,
// describes what was found when it does not.
func Holds(cond func() bool, state ...func() string) func(context.Context) error {
	return func(context.Context) error {
		if cond() {
			return nil
		}
		found := "the condition does not hold"
		for i, s := range state {
			if i == 0 {
				found = s()
			} else {
				found += "; " + s()
			}
		}
		return errors.New(found)
	}
}

// Final is an error a check returns when waiting longer cannot help (the API server
// refused a request as no retry would change): Until stops at once and returns err.
func Final(err error) error { return finalError{err} }

type finalError struct{ err error }

func (f finalError) Error() string { return f.err.Error() }
func (f finalError) Unwrap() error { return f.err }
