package capacity

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ome-routing/operator/api/v1beta1"
)

// MaxPathLength is the CRD's bound on spec.routing.capacity.path.
const MaxPathLength = 2048

var validMethods = []string{
	string(v1beta1.ProbeMethodGet), string(v1beta1.ProbeMethodHead), string(v1beta1.ProbeMethodPost),
}

// Validate applies the shape rules of a capacity poll to spec and returns the policy, or
// every problem found, each naming its field under path (InstallationPath or ServicePath).
//
// The two sources phrase a missing field differently, as each is read by a different
// person: the installation's path is the switch that turns the poll on, so every other
// field is "required when routing.capacity.path is set"; a service's block mirrors the
// CRD's CEL rules, which name every field at once. Limits that depend on the installation
// (format registry, minPeriod, maxSamples) are Check's.
//
// A disabled service spec with no other field is valid: Validate returns the zero Policy
// and the caller reads spec.Disabled. So is an empty installation block, which sets no
// poll (as OME reads it): the zero Policy, which has no path.
func Validate(spec Spec, path string) (Policy, []error) {
	v := &shape{path: path, installation: path == InstallationPath}
	v.check(spec)
	if len(v.errs) > 0 {
		return Policy{}, v.errs
	}
	if spec.Disabled || spec.Path == nil {
		return Policy{}, nil
	}
	return Policy{
		Path: *spec.Path, Method: *spec.Method, Format: *spec.Format, Options: spec.Options,
		Samples: *spec.Samples, Quorum: *spec.Quorum,
		Period: *spec.Period, Timeout: *spec.Timeout, MaxAge: *spec.MaxAge,
	}, nil
}

type shape struct {
	path         string
	installation bool
	errs         []error
}

func (v *shape) add(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf(format, args...))
}

// fieldNames are an enabled poll's fields, all required but options.
var fieldNames = []string{"path", "method", "format", "period", "timeout", "samples", "quorum", "maxAge"}

func present(s Spec) map[string]bool {
	return map[string]bool{
		"path": s.Path != nil, "method": s.Method != nil, "format": s.Format != nil,
		"period": s.Period != nil, "timeout": s.Timeout != nil, "samples": s.Samples != nil,
		"quorum": s.Quorum != nil, "maxAge": s.MaxAge != nil,
	}
}

func (v *shape) check(s Spec) {
	has := present(s)
	var set, missing []string
	for _, f := range fieldNames {
		if has[f] {
			set = append(set, f)
		} else {
			missing = append(missing, f)
		}
	}
	if s.Options != nil {
		set = append(set, "options")
	}
	switch {
	case s.Disabled:
		if len(set) > 0 {
			v.add("%s: disabled must not be combined with capacity configuration fields", v.path)
		}
		return
	case v.installation && s.Path == nil:
		if len(set) > 0 {
			// The path is the switch; settings without it would silently do nothing.
			v.add("%s.path is required when other %s fields are set (set: %s)", v.path, v.path, strings.Join(set, ", "))
		}
		return
	case !v.installation && len(missing) > 0:
		v.add("%s: an enabled capacity poll must specify path, method, format, period, timeout, samples, "+
			"quorum, and maxAge (missing: %s)", v.path, strings.Join(missing, ", "))
	}

	if s.Path != nil {
		p := *s.Path
		switch {
		case p == "" && !v.installation:
			v.add("%s.path must not be empty", v.path)
		case !strings.HasPrefix(p, "/"):
			v.add("%s.path %q must begin with \"/\"", v.path, p)
		}
		if n := utf8.RuneCountInString(p); n > MaxPathLength {
			v.add("%s.path must be at most %d characters, got %d", v.path, MaxPathLength, n)
		}
	}
	v.required(s.Method == nil, "method")
	if s.Method != nil && !slices.Contains(validMethods, *s.Method) {
		v.add("%s.method %q must be GET, HEAD, or POST", v.path, *s.Method)
	}
	v.required(s.Format == nil, "format")
	if s.Format != nil && *s.Format == "" {
		v.add("%s.format must not be empty", v.path)
	}
	period := v.duration(s.Period, "period")
	timeout := v.duration(s.Timeout, "timeout")
	maxAge := v.duration(s.MaxAge, "maxAge")
	samples := v.count(s.Samples, "samples")
	quorum := v.count(s.Quorum, "quorum")

	if period > 0 && timeout > 0 && timeout >= period {
		v.add("%s.timeout (%s) must be shorter than %s.period (%s)", v.path, timeout, v.path, period)
	}
	if samples > 0 && quorum > samples {
		v.add("%s.quorum (%d) must not exceed %s.samples (%d)", v.path, quorum, v.path, samples)
	}
	if period > 0 && maxAge > 0 {
		if maxAge < period {
			v.add("%s.maxAge (%s) must be at least %s.period (%s)", v.path, maxAge, v.path, period)
		}
		// A quorum of readings can only stand together if each lives through quorum
		// periods; otherwise the oldest expires before the quorum-th arrives.
		if quorum > 1 && int64(maxAge/period) < int64(quorum) {
			periodName := "period"
			if v.installation {
				periodName = v.path + ".period"
			}
			v.add("%s.maxAge (%s) must span at least quorum (%d) %s intervals", v.path, maxAge, quorum, periodName)
		}
	}
}

// required reports a field missing from the installation's poll; a service's missing
// fields were reported together.
func (v *shape) required(missing bool, field string) {
	if missing && v.installation {
		v.add("%s.%s is required when %s.path is set", v.path, field, v.path)
	}
}

// duration returns a set, positive duration, or 0 having reported the problem.
func (v *shape) duration(d *time.Duration, field string) time.Duration {
	switch {
	case v.installation && (d == nil || *d <= 0):
		v.add("%s.%s must be positive when %s.path is set", v.path, field, v.path)
	case d == nil:
	case *d <= 0:
		v.add("%s.%s must be positive, got %s", v.path, field, *d)
	default:
		return *d
	}
	return 0
}

// count returns a set, positive count, or 0 having reported the problem.
func (v *shape) count(n *int32, field string) int32 {
	switch {
	case v.installation && (n == nil || *n <= 0):
		v.add("%s.%s must be positive when %s.path is set", v.path, field, v.path)
	case n == nil:
	case *n < 1:
		v.add("%s.%s must be at least 1, got %d", v.path, field, *n)
	default:
		return *n
	}
	return 0
}

// Check applies what the installation decides to a policy that passed Validate: its
// format must be registered in this build and accept its options, its period must not be
// under the observer's floor, and it must not keep more samples than the observer allows.
// It may also be given a policy whose shape failed, built from the fields that were set.
func Check(p Policy, path string, limits Limits) []error {
	// Zero values are fields that Validate has already reported, so they are skipped here.
	var errs []error
	if p.Format == "" {
	} else if f, ok := Lookup(p.Format); !ok {
		errs = append(errs, fmt.Errorf("%s.format %q is not registered in this build (available: [%s])",
			path, p.Format, strings.Join(Available(), " ")))
	} else if err := f.CheckOptions(p.Options); err != nil {
		errs = append(errs, fmt.Errorf("%s.options: %w", path, err))
	}
	if limits.MinPeriod > 0 && p.Period > 0 && p.Period < limits.MinPeriod {
		errs = append(errs, fmt.Errorf("%s.period (%s) must be at least routing.observer.minPeriod (%s)", path, p.Period, limits.MinPeriod))
	}
	if limits.MaxSamples > 0 && p.Samples > limits.MaxSamples {
		errs = append(errs, fmt.Errorf("%s.samples (%d) must not exceed routing.observer.maxSamples (%d)", path, p.Samples, limits.MaxSamples))
	}
	return errs
}
