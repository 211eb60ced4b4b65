package retry

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Where a setting lives, as its errors name it.
const (
	ServicePath      = "spec.routing.publisher"
	InstallationPath = "routing.publisher"
)

// The bounds of a retry setting; the CRD's markers hold the same numbers.
const (
	MinAttempts      = 1
	MaxAttempts      = omev1beta1.MaxRetryAttempts
	MaxCodes         = omev1beta1.MaxRetryCodes
	MinBudgetPercent = 1
	MaxBudgetPercent = 100
)

// The rules' messages, as the CRD's CEL rules print them.
const (
	MsgDisabledCombined = "disabled must not be combined with other retry fields"
	MsgAttemptsRequired = "an enabled retry must specify attempts"
	MsgNothingRetried   = "an enabled retry must retry connectionFailures, codes, or both"
	MsgCodes5xx         = "codes must be 5xx statuses (500-599): a 4xx answer is never retried"
	MsgBackoffPositive  = "backoff must be positive"
	MsgPerTryPositive   = "perTryTimeout must be positive"
	MsgRequestRequired  = "timeouts must set request"
	MsgRequestPositive  = "request must be positive"
	MsgPerTryOverBudget = "retry.perTryTimeout must not be longer than timeouts.request"
)

// Validate checks the retry and timeouts blocks under path (spec.routing.publisher, or
// the installation's routing.publisher) and returns every rule they break, each naming its
// field. Nil blocks are valid: they change nothing.
func Validate(r *omev1beta1.PublisherRetry, t *omev1beta1.PublisherTimeouts, path string) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if r != nil {
		at := path + ".retry"
		others := r.Attempts != nil || r.Codes != nil || r.ConnectionFailures != nil || r.Backoff != nil ||
			r.PerTryTimeout != nil || r.BudgetPercent != nil
		if r.Disabled && others {
			add("%s: %s", at, MsgDisabledCombined)
		}
		if !r.Disabled {
			if r.Attempts == nil {
				add("%s: %s", at, MsgAttemptsRequired)
			}
			if len(r.Codes) == 0 && r.ConnectionFailures != nil && !*r.ConnectionFailures {
				add("%s: %s", at, MsgNothingRetried)
			}
		}
		if a := r.Attempts; a != nil && (*a < MinAttempts || *a > MaxAttempts) {
			add("%s.attempts must be between %d and %d, got %d", at, MinAttempts, MaxAttempts, *a)
		}
		if len(r.Codes) > MaxCodes {
			add("%s.codes must have at most %d statuses, got %d", at, MaxCodes, len(r.Codes))
		}
		seen := map[omev1beta1.HTTPStatus]bool{}
		for _, c := range r.Codes {
			if c < 500 || c > 599 {
				add("%s.codes: %s, got %d", at, MsgCodes5xx, c)
			} else if seen[c] {
				add("%s.codes lists %d more than once", at, c)
			}
			seen[c] = true
		}
		positive(add, r.Backoff, at+".backoff", MsgBackoffPositive)
		positive(add, r.PerTryTimeout, at+".perTryTimeout", MsgPerTryPositive)
		if b := r.BudgetPercent; b != nil && (*b < MinBudgetPercent || *b > MaxBudgetPercent) {
			add("%s.budgetPercent must be between %d and %d, got %d", at, MinBudgetPercent, MaxBudgetPercent, *b)
		}
	}
	if t != nil {
		at := path + ".timeouts"
		if t.Request == nil {
			add("%s: %s", at, MsgRequestRequired)
		}
		positive(add, t.Request, at+".request", MsgRequestPositive)
	}
	if r != nil && t != nil && r.PerTryTimeout != nil && t.Request != nil && t.Request.Duration > 0 &&
		r.PerTryTimeout.Duration > t.Request.Duration {
		add("%s: %s (%s over %s)", path, MsgPerTryOverBudget, r.PerTryTimeout.Duration, t.Request.Duration)
	}
	return errs
}

// positive reports a duration that is zero or negative. The message names the field by
// its last segment, as the CEL rule on the block does, after the full path.
func positive(add func(string, ...any), d *metav1.Duration, path, msg string) {
	if d != nil && d.Duration <= 0 {
		add("%s: %s, got %s", path, msg, d.Duration)
	}
}
