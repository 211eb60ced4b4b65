package probe

import (
	"fmt"
	"strings"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
)

// ResolutionMode says whether a service is probed.
type ResolutionMode string

const (
	// ModePolicy means the service is probed with Resolution.Policy.
	ModePolicy ResolutionMode = "Policy"
	// ModeDisabled means the service turned probing off with `disabled: true`.
	ModeDisabled ResolutionMode = "Disabled"
	// ModeNone means neither the service nor the installation sets a probe.
	ModeNone ResolutionMode = "None"
)

// Limits are the installation settings a service's probe must respect.
type Limits struct {
	// MinPeriod is routing.observer.minPeriod. Zero means no floor.
	MinPeriod time.Duration
	// MaxPeriod and MaxTimeout are routing.observer.maxPeriod and maxTimeout. Zero means
	// no ceiling.
	MaxPeriod  time.Duration
	MaxTimeout time.Duration
}

// Resolution is the probe that applies to one service.
type Resolution struct {
	Mode ResolutionMode
	// Policy and Digest are set only for ModePolicy.
	Policy Policy
	Digest string
}

// Resolve picks the probe for a service. A service's own probe replaces the installation's
// as a whole, so nothing is merged field by field; without one, the installation's policy
// applies, or none. installation must have passed Validate, CheckMinPeriod and CheckMaxima when the
// configuration was loaded; it is not checked again.
//
// An error means the service's probe is unusable. It is written for the log, so that the
// user finds the field to fix: validation problems start with "validate routing policy: ",
// a period under the observer's floor, or a period or timeout over its maxima, with
// "resolve probe policy: ".
func Resolve(installation *Policy, service *v1beta1.RoutingProbe, limits Limits) (Resolution, error) {
	if service == nil {
		if installation == nil {
			return Resolution{Mode: ModeNone}, nil
		}
		p := installation.DeepCopy()
		return Resolution{Mode: ModePolicy, Policy: p, Digest: Digest(p)}, nil
	}

	spec := SpecFromAPI(service)
	p, errs := Validate(spec, ServicePath)
	if len(errs) > 0 {
		return Resolution{}, fmt.Errorf("validate routing policy: %w", joinErrors(errs))
	}
	if spec.Disabled {
		return Resolution{Mode: ModeDisabled}, nil
	}
	var outside []error
	if err := CheckMinPeriod(p, ServicePath, limits.MinPeriod); err != nil {
		outside = append(outside, err)
	}
	outside = append(outside, CheckMaxima(p, ServicePath, limits.MaxPeriod, limits.MaxTimeout)...)
	if len(outside) > 0 {
		return Resolution{}, fmt.Errorf("resolve probe policy: %w", joinErrors(outside))
	}
	return Resolution{Mode: ModePolicy, Policy: p, Digest: Digest(p)}, nil
}

// joinErrors keeps every error for errors.Is and errors.As but prints them on one line, as
// a log message or an event wants them; errors.Join would separate them with newlines.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return multiError(errs)
}

type multiError []error

func (m multiError) Error() string {
	msgs := make([]string, len(m))
	for i, err := range m {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (m multiError) Unwrap() []error { return m }
