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

	w := wordingFor(path)
	has := present(spec)
	if spec.Disabled {
		if len(fieldsWhere(has, true)) > 0 || hasOptional(spec) {
			add("%s: disabled must not be combined with probe configuration fields", path)
		}
	} else if missing := fieldsWhere(has, false); len(missing) > 0 {
		errs = append(errs, w.missing(missing)...)
	}

	// Fields that are present are checked even next to a missing or disabled one, as the
	// API server evaluates every rule and reports every failure.
	if spec.Path != nil {
		switch p := *spec.Path; {
		case p == "":
			add("%s.path must not be empty", path)
		case !strings.HasPrefix(p, "/"):
			errs = append(errs, w.pathSlash(p))
		}
		if hasDotSegment(*spec.Path) {
			add("%s.path must not contain a '.' or '..' segment, plain or percent-encoded", path)
		}
		// OpenAPI maxLength counts characters, not bytes.
		if n := utf8.RuneCountInString(*spec.Path); n > MaxPathLength {
			add("%s.path must be at most %d characters, got %d", path, MaxPathLength, n)
		}
	}
	if spec.Method != nil && !slices.Contains(validMethods, *spec.Method) {
		errs = append(errs, w.method(*spec.Method))
	}
	errs = append(errs, checkStatuses(w, spec.AcceptStatuses, "acceptStatuses")...)
	errs = append(errs, checkStatuses(w, spec.GateStatuses, "gateStatuses")...)
	errs = append(errs, w.gateForbidden(forbiddenGates(spec.GateStatuses))...)
	for _, s := range overlap(spec.AcceptStatuses, spec.GateStatuses) {
		errs = append(errs, w.overlap(s))
	}
	if spec.Period != nil && *spec.Period <= 0 {
		errs = append(errs, w.notPositive("period"))
	}
	if spec.Timeout != nil && *spec.Timeout <= 0 {
		errs = append(errs, w.notPositive("timeout"))
	}
	if spec.Period != nil && spec.Timeout != nil && *spec.Timeout >= *spec.Period {
		add("%s.timeout (%s) must be shorter than %s.period (%s)", path, *spec.Timeout, path, *spec.Period)
	}
	checkThreshold := func(v *int32, name string) {
		if v != nil && *v < MinThreshold {
			errs = append(errs, w.threshold(name, *v))
		}
	}
	checkThreshold(spec.FailureThreshold, "failureThreshold")
	checkThreshold(spec.SuccessThreshold, "successThreshold")
	if spec.AllFailedPolicy != nil && !slices.Contains(validAllFailed, *spec.AllFailedPolicy) {
		errs = append(errs, w.allFailedPolicy(*spec.AllFailedPolicy))
	}
	errs = append(errs, checkOptional(spec, path)...)

	if len(errs) > 0 || spec.Disabled {
		return Policy{}, errs
	}
	return withOptional(Policy{
		Path:             *spec.Path,
		Method:           *spec.Method,
		AcceptStatuses:   slices.Clone(spec.AcceptStatuses),
		GateStatuses:     slices.Clone(spec.GateStatuses),
		Period:           *spec.Period,
		Timeout:          *spec.Timeout,
		FailureThreshold: *spec.FailureThreshold,
		SuccessThreshold: *spec.SuccessThreshold,
		AllFailedPolicy:  v1beta1.AllFailedPolicy(*spec.AllFailedPolicy),
	}, spec), nil
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

// fieldNames lists the nine required configuration fields in the order messages name
// them; optionalFieldNames has the others.
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
func checkStatuses(w wording, list []int32, field string) []error {
	if list == nil {
		return nil
	}
	var errs []error
	switch {
	case len(list) == 0:
		errs = append(errs, w.emptyStatuses(field))
	case len(list) > MaxStatuses:
		errs = append(errs, fmt.Errorf("%s.%s must have at most %d items, got %d", w.path, field, MaxStatuses, len(list)))
	}
	for i, s := range list {
		if s < MinStatus || s > MaxStatus {
			errs = append(errs, w.statusRange(field, i, s))
		}
	}
	return errs
}

// forbiddenGates returns the statuses of gate that must not gate, once each, in gate's
// order.
func forbiddenGates(gate []int32) []int32 {
	var found []int32
	for _, s := range gate {
		if slices.Contains(gateForbidden, s) && !slices.Contains(found, s) {
			found = append(found, s)
		}
	}
	return found
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
