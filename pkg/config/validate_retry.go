package config

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/retry"
)

// retryAndTimeouts checks routing.publisher.retry and timeouts with a service's rules
// (pkg/retry, the CRD's words), with routing off too, so that turning routing on later
// does not find a bad block. It returns nil blocks when they are absent or break a rule.
func (v *validator) retryAndTimeouts(r rawRetry, t rawTimeouts, path string) (*omev1beta1.PublisherRetry, *omev1beta1.PublisherTimeouts) {
	var outR *omev1beta1.PublisherRetry
	var outT *omev1beta1.PublisherTimeouts
	ok := true
	if r.present {
		if r.disabled != nil {
			// A service turns the installation's retry off with disabled: true; the
			// installation turns it off by leaving the block out.
			v.fail("%s.retry.disabled is not supported in the installation's retry: leave %s.retry out for no retry", path, path)
			ok = false
		}
		outR = &omev1beta1.PublisherRetry{Attempts: r.attempts, ConnectionFailures: r.connectionFailures, BudgetPercent: r.budgetPercent}
		for _, c := range r.codes {
			outR.Codes = append(outR.Codes, omev1beta1.HTTPStatus(c))
		}
		if r.codes != nil && outR.Codes == nil {
			outR.Codes = []omev1beta1.HTTPStatus{}
		}
		var durOK bool
		outR.Backoff, durOK = v.apiDuration(r.backoff, path+".retry.backoff")
		ok = ok && durOK
		outR.PerTryTimeout, durOK = v.apiDuration(r.perTryTimeout, path+".retry.perTryTimeout")
		ok = ok && durOK
	}
	if t.present {
		var durOK bool
		outT = &omev1beta1.PublisherTimeouts{}
		outT.Request, durOK = v.apiDuration(t.request, path+".timeouts.request")
		ok = ok && durOK
	}
	errs := retry.Validate(outR, outT, path)
	for _, err := range errs {
		v.add(err)
	}
	if !ok || len(errs) > 0 {
		return nil, nil
	}
	return outR, outT
}

// apiDuration is a duration as the API's type holds it; nil when absent, and false when it
// is not a duration (already reported).
func (v *validator) apiDuration(raw []byte, path string) (*metav1.Duration, bool) {
	d, ok := v.duration(raw, path)
	if !ok || d == nil {
		return nil, ok
	}
	return &metav1.Duration{Duration: *d}, true
}
