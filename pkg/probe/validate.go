package probe

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ome-routing/operator/api/v1beta1"
)

// gateForbidden are statuses that mean the endpoint is up but busy or wants credentials,
// so gating on them would take traffic from a working cluster.
var gateForbidden = []int32{401, 403, 429}

var (
	validMethods = []string{
		string(v1beta1.ProbeMethodGet), string(v1beta1.ProbeMethodHead), string(v1beta1.ProbeMethodPost),
	}
	validAllFailed = []string{string(v1beta1.AllFailedPreserveTraffic), string(v1beta1.AllFailedDrain)}
)

// Validate applies the probe rules to spec and returns the policy, or every problem found,
// each naming its field under path (InstallationPath or ServicePath). The rules accept and
// reject what the CRD's OpenAPI and CEL rules on RoutingProbe do; the shared table in
// test/probecases holds both to that.
//
// A disabled spec with no other field is valid: Validate returns the zero Policy and no
// error, and the caller reads spec.Disabled. The observer's minimum period is not checked
// here, because it is an installation limit, not a property of the probe: see
// CheckMinPeriod.
func Validate(spec Spec, path string) (Policy, []error) {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}

	has := present(spec)
	if spec.Disabled {
		if len(fieldsWhere(has, true)) > 0 {
			add("%s: disabled must not be combined with probe configuration fields", path)
		}
	} else if missing := fieldsWhere(has, false); len(missing) > 0 {
		add("%s: an enabled probe must specify path, method, acceptStatuses, gateStatuses, "+
			"period, timeout, failureThreshold, successThreshold, and allFailedPolicy (missing: %s)",
			path, strings.Join(missing, ", "))
	}

	// Fields that are present are checked even next to a missing or disabled one, as the
	// API server evaluates every rule and reports every failure.
	if spec.Path != nil {
		switch p := *spec.Path; {
		case p == "":
			add("%s.path must not be empty", path)
		case !strings.HasPrefix(p, "/"):
			add("%s.path must start with \"/\", got %q", path, p)
		}
		// OpenAPI maxLength counts characters, not bytes.
		if n := utf8.RuneCountInString(*spec.Path); n > MaxPathLength {
			add("%s.path must be at most %d characters, got %d", path, MaxPathLength, n)
		}
	}
	if spec.Method != nil && !slices.Contains(validMethods, *spec.Method) {
		add("%s.method must be one of %s, got %q", path, strings.Join(validMethods, ", "), *spec.Method)
	}
	errs = append(errs, checkStatuses(spec.AcceptStatuses, path+".acceptStatuses")...)
	errs = append(errs, checkStatuses(spec.GateStatuses, path+".gateStatuses")...)
	if slices.ContainsFunc(spec.GateStatuses, func(s int32) bool { return slices.Contains(gateForbidden, s) }) {
		add("%s.gateStatuses must not contain 401, 403, or 429", path)
	}
	for _, s := range overlap(spec.AcceptStatuses, spec.GateStatuses) {
		add("%s status %d is in both acceptStatuses and gateStatuses", path, s)
	}
	if spec.Period != nil && *spec.Period <= 0 {
		add("%s.period must be positive", path)
	}
	if spec.Timeout != nil && *spec.Timeout <= 0 {
		add("%s.timeout must be positive", path)
	}
	if spec.Period != nil && spec.Timeout != nil && *spec.Timeout >= *spec.Period {
		add("%s.timeout (%s) must be shorter than %s.period (%s)", path, *spec.Timeout, path, *spec.Period)
	}
	checkThreshold := func(v *int32, name string) {
		if v != nil && *v < MinThreshold {
			add("%s.%s must be at least %d, got %d", path, name, MinThreshold, *v)
		}
	}
	checkThreshold(spec.FailureThreshold, "failureThreshold")
	checkThreshold(spec.SuccessThreshold, "successThreshold")
	if spec.AllFailedPolicy != nil && !slices.Contains(validAllFailed, *spec.AllFailedPolicy) {
		add("%s.allFailedPolicy must be %s or %s, got %q", path, validAllFailed[0], validAllFailed[1], *spec.AllFailedPolicy)
	}

	if len(errs) > 0 || spec.Disabled {
		return Policy{}, errs
	}
	return Policy{
		Path:             *spec.Path,
		Method:           *spec.Method,
		AcceptStatuses:   slices.Clone(spec.AcceptStatuses),
		GateStatuses:     slices.Clone(spec.GateStatuses),
		Period:           *spec.Period,
		Timeout:          *spec.Timeout,
		FailureThreshold: *spec.FailureThreshold,
		SuccessThreshold: *spec.SuccessThreshold,
		AllFailedPolicy:  v1beta1.AllFailedPolicy(*spec.AllFailedPolicy),
	}, nil
}

// CheckMinPeriod refuses a policy that would probe more often than the installation's
// observer allows. path names the policy's source, as for Validate.
func CheckMinPeriod(p Policy, path string, minPeriod time.Duration) error {
	if p.Period < minPeriod {
		return fmt.Errorf("%s.period (%s) must be at least routing.observer.minPeriod (%s)", path, p.Period, minPeriod)
	}
	return nil
}

// CheckMaxima refuses a policy whose period or timeout is over the installation's maxima.
// A timeout bounds how long a probe holds one of the observer's shared slots, and a period
// how long a gate takes to close; without a ceiling one service could set either to hours.
// A zero maximum is no maximum. path names the policy's source, as for Validate.
func CheckMaxima(p Policy, path string, maxPeriod, maxTimeout time.Duration) []error {
	var errs []error
	if maxPeriod > 0 && p.Period > maxPeriod {
		errs = append(errs, fmt.Errorf("%s.period (%s) must be at most routing.observer.maxPeriod (%s)", path, p.Period, maxPeriod))
	}
	if maxTimeout > 0 && p.Timeout > maxTimeout {
		errs = append(errs, fmt.Errorf("%s.timeout (%s) must be at most routing.observer.maxTimeout (%s)", path, p.Timeout, maxTimeout))
	}
	return errs
}

// fieldNames lists the nine configuration fields in the order messages name them.
var fieldNames = []string{
	"path", "method", "acceptStatuses", "gateStatuses", "period", "timeout",
	"failureThreshold", "successThreshold", "allFailedPolicy",
}

// present says, for each of the nine fields by name, whether spec has it.
func present(spec Spec) map[string]bool {
	return map[string]bool{
		"path":             spec.Path != nil,
		"method":           spec.Method != nil,
		"acceptStatuses":   spec.AcceptStatuses != nil,
		"gateStatuses":     spec.GateStatuses != nil,
		"period":           spec.Period != nil,
		"timeout":          spec.Timeout != nil,
		"failureThreshold": spec.FailureThreshold != nil,
		"successThreshold": spec.SuccessThreshold != nil,
		"allFailedPolicy":  spec.AllFailedPolicy != nil,
	}
}

// fieldsWhere returns, in fieldNames order, the fields whose presence is want.
func fieldsWhere(has map[string]bool, want bool) []string {
	var names []string
	for _, name := range fieldNames {
		if has[name] == want {
			names = append(names, name)
		}
	}
	return names
}

// checkStatuses checks a present status list's length and each status's range.
func checkStatuses(list []int32, field string) []error {
	if list == nil {
		return nil
	}
	var errs []error
	switch {
	case len(list) == 0:
		errs = append(errs, fmt.Errorf("%s must have at least 1 item", field))
	case len(list) > MaxStatuses:
		errs = append(errs, fmt.Errorf("%s must have at most %d items, got %d", field, MaxStatuses, len(list)))
	}
	for i, s := range list {
		if s < MinStatus || s > MaxStatus {
			errs = append(errs, fmt.Errorf("%s[%d] must be between %d and %d, got %d", field, i, MinStatus, MaxStatus, s))
		}
	}
	return errs
}

// overlap returns the statuses of accept that gate also holds, once each, in accept's order.
func overlap(accept, gate []int32) []int32 {
	var both []int32
	for _, s := range accept {
		if slices.Contains(gate, s) && !slices.Contains(both, s) {
			both = append(both, s)
		}
	}
	return both
}
