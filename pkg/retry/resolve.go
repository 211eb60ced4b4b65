package retry

import (
	"slices"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Policy is what the publisher writes on a service's route: the retry (nil for none) and
// the whole-request timeout (zero for none). The zero Policy changes nothing that is
// published.
type Policy struct {
	Retry   *Retry
	Request time.Duration
}

// Retry is a resolved retry setting.
type Retry struct {
	// Attempts is how many retries a request may get after its first try.
	Attempts int32
	// Codes are the retried statuses, 500-599, sorted and unique.
	Codes []int32
	// ConnectionFailures retries a request that never reached a cluster.
	ConnectionFailures bool
	// Backoff and PerTryTimeout are zero when unset.
	Backoff       time.Duration
	PerTryTimeout time.Duration
	// BudgetPercent is the share of recent requests that may be retries; zero for no
	// budget (only Attempts bounds them).
	BudgetPercent int32
}

// Resolve is the policy for a service: each of its own blocks (checked by Validate)
// replaces the installation's block of the same name as a whole, and a retry with
// disabled set turns the installation's off.
func Resolve(serviceRetry, installationRetry *omev1beta1.PublisherRetry, serviceTimeouts, installationTimeouts *omev1beta1.PublisherTimeouts) Policy {
	var p Policy
	r := installationRetry
	if serviceRetry != nil {
		r = serviceRetry
	}
	if r != nil && !r.Disabled && r.Attempts != nil {
		out := &Retry{Attempts: *r.Attempts, ConnectionFailures: r.ConnectionFailures == nil || *r.ConnectionFailures}
		for _, c := range r.Codes {
			out.Codes = append(out.Codes, int32(c))
		}
		slices.Sort(out.Codes)
		out.Codes = slices.Compact(out.Codes)
		if r.Backoff != nil {
			out.Backoff = r.Backoff.Duration
		}
		if r.PerTryTimeout != nil {
			out.PerTryTimeout = r.PerTryTimeout.Duration
		}
		if r.BudgetPercent != nil {
			out.BudgetPercent = *r.BudgetPercent
		}
		p.Retry = out
	}
	t := installationTimeouts
	if serviceTimeouts != nil {
		t = serviceTimeouts
	}
	if t != nil && t.Request != nil {
		p.Request = t.Request.Duration
	}
	return p
}

// Service returns the retry and timeouts blocks a service sets, nil where it sets none.
func Service(isvc *omev1beta1.InferenceService) (*omev1beta1.PublisherRetry, *omev1beta1.PublisherTimeouts) {
	if isvc == nil || isvc.Spec.Routing == nil || isvc.Spec.Routing.Publisher == nil {
		return nil, nil
	}
	return isvc.Spec.Routing.Publisher.Retry, isvc.Spec.Routing.Publisher.Timeouts
}
