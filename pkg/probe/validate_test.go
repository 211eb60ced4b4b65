package probe

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	const svc = ServicePath
	tests := []struct {
		name string
		spec Spec
		path string
		want []string
	}{
		{name: "step 1 probe", spec: step1Spec(), path: svc},
		{name: "disabled alone", spec: Spec{Disabled: true}, path: svc},
		{
			name: "disabled with path",
			spec: Spec{Disabled: true, Path: ptr("/v1/models")},
			path: svc,
			want: []string{"spec.routing.probe: disabled must not be combined with probe configuration fields"},
		},
		{
			name: "disabled with a bad field reports both",
			spec: Spec{Disabled: true, Timeout: ptr(time.Duration(0))},
			path: InstallationPath,
			want: []string{
				"routing.probe: disabled must not be combined with probe configuration fields",
				"routing.probe.timeout must be positive when routing.probe.path is set",
			},
		},
		{
			name: "nothing set",
			spec: Spec{},
			path: svc,
			want: []string{"spec.routing.probe: an enabled probe must specify path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, and allFailedPolicy (missing: path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, allFailedPolicy)"},
		},
		{
			name: "period and timeout missing",
			spec: step1Spec(func(s *Spec) { s.Period, s.Timeout = nil, nil }),
			path: InstallationPath,
			want: []string{
				"routing.probe.period must be positive when routing.probe.path is set",
				"routing.probe.timeout must be positive when routing.probe.path is set",
			},
		},
		{
			name: "empty path",
			spec: step1Spec(func(s *Spec) { s.Path = ptr("") }),
			path: svc,
			want: []string{"spec.routing.probe.path must not be empty"},
		},
		{
			name: "path without slash",
			spec: step1Spec(func(s *Spec) { s.Path = ptr("v1/models") }),
			path: svc,
			want: []string{`spec.routing.probe.path must start with "/", got "v1/models"`},
		},
		{
			name: "path of 2048 characters, some of them multi-byte",
			spec: step1Spec(func(s *Spec) { s.Path = ptr("/" + strings.Repeat("é", 2047)) }),
			path: svc,
		},
		{
			name: "path of 2049 characters",
			spec: step1Spec(func(s *Spec) { s.Path = ptr("/" + strings.Repeat("a", 2048)) }),
			path: svc,
			want: []string{"spec.routing.probe.path must be at most 2048 characters, got 2049"},
		},
		{
			name: "method PUT",
			spec: step1Spec(func(s *Spec) { s.Method = ptr("PUT") }),
			path: svc,
			want: []string{`spec.routing.probe.method must be one of GET, HEAD, POST, got "PUT"`},
		},
		{
			name: "method in lower case",
			spec: step1Spec(func(s *Spec) { s.Method = ptr("get") }),
			path: svc,
			want: []string{`spec.routing.probe.method must be one of GET, HEAD, POST, got "get"`},
		},
		{
			name: "empty acceptStatuses",
			spec: step1Spec(func(s *Spec) { s.AcceptStatuses = []int32{} }),
			path: svc,
			want: []string{"spec.routing.probe.acceptStatuses must have at least 1 item"},
		},
		{
			name: "501 gateStatuses",
			spec: step1Spec(func(s *Spec) { s.GateStatuses = repeatStatus(503, 501) }),
			path: svc,
			want: []string{"spec.routing.probe.gateStatuses must have at most 500 items, got 501"},
		},
		{
			name: "500 gateStatuses",
			spec: step1Spec(func(s *Spec) { s.GateStatuses = repeatStatus(503, 500) }),
			path: svc,
		},
		{
			name: "statuses out of range",
			spec: step1Spec(func(s *Spec) { s.AcceptStatuses, s.GateStatuses = []int32{200, 99}, []int32{600} }),
			path: svc,
			want: []string{
				"spec.routing.probe.acceptStatuses[1] must be between 100 and 599, got 99",
				"spec.routing.probe.gateStatuses[0] must be between 100 and 599, got 600",
			},
		},
		{
			name: "statuses at the bounds",
			spec: step1Spec(func(s *Spec) { s.AcceptStatuses, s.GateStatuses = []int32{100}, []int32{599} }),
			path: svc,
		},
		{
			name: "gate 429 and 401",
			spec: step1Spec(func(s *Spec) { s.GateStatuses = []int32{503, 429, 401} }),
			path: svc,
			want: []string{"spec.routing.probe.gateStatuses must not contain 401, 403, or 429"},
		},
		{
			name: "403 in acceptStatuses is allowed",
			spec: step1Spec(func(s *Spec) { s.AcceptStatuses = []int32{200, 403} }),
			path: svc,
		},
		{
			name: "503 in both lists",
			spec: step1Spec(func(s *Spec) { s.AcceptStatuses = []int32{200, 503} }),
			path: svc,
			want: []string{"spec.routing.probe status 503 is in both acceptStatuses and gateStatuses"},
		},
		{
			name: "each overlapping status once, in acceptStatuses order",
			spec: step1Spec(func(s *Spec) { s.AcceptStatuses = []int32{503, 200, 500, 503} }),
			path: InstallationPath,
			want: []string{
				"routing.probe: status 503 is in both acceptStatuses and gateStatuses",
				"routing.probe: status 500 is in both acceptStatuses and gateStatuses",
			},
		},
		{
			name: "period 0s, which the timeout is then not shorter than",
			spec: step1Spec(func(s *Spec) { s.Period = ptr(time.Duration(0)) }),
			path: svc,
			want: []string{
				"spec.routing.probe.period must be positive",
				"spec.routing.probe.timeout (3s) must be shorter than spec.routing.probe.period (0s)",
			},
		},
		{
			name: "timeout 0s",
			spec: step1Spec(func(s *Spec) { s.Timeout = ptr(time.Duration(0)) }),
			path: svc,
			want: []string{"spec.routing.probe.timeout must be positive"},
		},
		{
			name: "negative timeout",
			spec: step1Spec(func(s *Spec) { s.Timeout = ptr(-time.Second) }),
			path: svc,
			want: []string{"spec.routing.probe.timeout must be positive"},
		},
		{
			name: "timeout equal to period",
			spec: step1Spec(func(s *Spec) { s.Timeout = ptr(10 * time.Second) }),
			path: InstallationPath,
			want: []string{"routing.probe.timeout (10s) must be shorter than routing.probe.period (10s)"},
		},
		{
			name: "timeout over period, printed as Go durations",
			spec: step1Spec(func(s *Spec) { s.Period, s.Timeout = ptr(90*time.Second), ptr(2*time.Minute) }),
			path: svc,
			want: []string{"spec.routing.probe.timeout (2m0s) must be shorter than spec.routing.probe.period (1m30s)"},
		},
		{
			name: "timeout 900ms under period 1s",
			spec: step1Spec(func(s *Spec) { s.Period, s.Timeout = ptr(time.Second), ptr(900*time.Millisecond) }),
			path: svc,
		},
		{
			name: "thresholds 0",
			spec: step1Spec(func(s *Spec) { s.FailureThreshold, s.SuccessThreshold = ptr[int32](0), ptr[int32](-1) }),
			path: svc,
			want: []string{
				"spec.routing.probe.failureThreshold must be at least 1, got 0",
				"spec.routing.probe.successThreshold must be at least 1, got -1",
			},
		},
		{
			name: "unknown allFailedPolicy",
			spec: step1Spec(func(s *Spec) { s.AllFailedPolicy = ptr("Preserve") }),
			path: svc,
			want: []string{`spec.routing.probe.allFailedPolicy must be PreserveTraffic or Drain, got "Preserve"`},
		},
		{
			name: "every problem, not only the first",
			spec: step1Spec(func(s *Spec) {
				s.Method, s.GateStatuses, s.SuccessThreshold = ptr("PUT"), []int32{429}, nil
			}),
			path: svc,
			want: []string{
				"spec.routing.probe: an enabled probe must specify path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, and allFailedPolicy (missing: successThreshold)",
				`spec.routing.probe.method must be one of GET, HEAD, POST, got "PUT"`,
				"spec.routing.probe.gateStatuses must not contain 401, 403, or 429",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, errs := Validate(tt.spec, tt.path)
			if got := errorStrings(errs); !reflect.DeepEqual(got, tt.want) && len(got)+len(tt.want) > 0 {
				t.Fatalf("errors:\n got %q\nwant %q", got, tt.want)
			}
			if len(errs) > 0 || tt.spec.Disabled {
				if !reflect.DeepEqual(p, Policy{}) {
					t.Errorf("policy = %+v, want the zero Policy", p)
				}
			}
		})
	}
}

// TestValidateInstallationSpeaksOME holds the installation's probe to the messages OME's
// manager logs at startup, word for word, so that one grep finds a bad chart value in
// either operator's log.
func TestValidateInstallationSpeaksOME(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want []string
	}{
		{"path without slash", step1Spec(func(s *Spec) { s.Path = ptr("v1/models") }),
			[]string{`routing.probe.path "v1/models" must begin with "/"`}},
		{"no method", step1Spec(func(s *Spec) { s.Method = nil }),
			[]string{"routing.probe.method is required when routing.probe.path is set"}},
		{"method put", step1Spec(func(s *Spec) { s.Method = ptr("PUT") }),
			[]string{`routing.probe.method "PUT" must be GET, HEAD, or POST`}},
		{"no acceptStatuses", step1Spec(func(s *Spec) { s.AcceptStatuses = nil }),
			[]string{"routing.probe.acceptStatuses is required when routing.probe.path is set"}},
		{"empty gateStatuses", step1Spec(func(s *Spec) { s.GateStatuses = []int32{} }),
			[]string{"routing.probe.gateStatuses is required when routing.probe.path is set"}},
		{"statuses out of range", step1Spec(func(s *Spec) { s.AcceptStatuses, s.GateStatuses = []int32{200, 99}, []int32{600} }),
			[]string{"routing.probe.acceptStatuses contains invalid HTTP status 99", "routing.probe.gateStatuses contains invalid HTTP status 600"}},
		{"gate 429, 401 and 429 again", step1Spec(func(s *Spec) { s.GateStatuses = []int32{503, 429, 401, 429} }),
			[]string{"routing.probe.gateStatuses must not contain 429", "routing.probe.gateStatuses must not contain 401"}},
		{"gate 403", step1Spec(func(s *Spec) { s.GateStatuses = []int32{403} }),
			[]string{"routing.probe.gateStatuses must not contain 403"}},
		{"503 in both", step1Spec(func(s *Spec) { s.AcceptStatuses = []int32{200, 503} }),
			[]string{"routing.probe: status 503 is in both acceptStatuses and gateStatuses"}},
		{"period and timeout 0", step1Spec(func(s *Spec) { s.Period, s.Timeout = ptr(time.Duration(0)), ptr(-time.Second) }),
			[]string{"routing.probe.period must be positive when routing.probe.path is set", "routing.probe.timeout must be positive when routing.probe.path is set"}},
		{"thresholds 0 and missing", step1Spec(func(s *Spec) { s.FailureThreshold, s.SuccessThreshold = ptr[int32](0), nil }),
			[]string{"routing.probe.successThreshold must be positive when routing.probe.path is set", "routing.probe.failureThreshold must be positive when routing.probe.path is set"}},
		{"allFailedPolicy Preserve", step1Spec(func(s *Spec) { s.AllFailedPolicy = ptr("Preserve") }),
			[]string{`routing.probe.allFailedPolicy "Preserve" must be "PreserveTraffic" or "Drain" when routing.probe.path is set`}},
		{"timeout equal to period", step1Spec(func(s *Spec) { s.Timeout = ptr(10 * time.Second) }),
			[]string{"routing.probe.timeout (10s) must be shorter than routing.probe.period (10s)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := Validate(tt.spec, InstallationPath)
			if got := errorStrings(errs); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func repeatStatus(s int32, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestValidateReturnsPolicy(t *testing.T) {
	spec := step1Spec()
	p, errs := Validate(spec, ServicePath)
	if len(errs) > 0 {
		t.Fatalf("Validate: %v", errs)
	}
	if want := step1Policy(); !reflect.DeepEqual(p, want) {
		t.Fatalf("policy:\n got %+v\nwant %+v", p, want)
	}
	spec.AcceptStatuses[0] = 204
	if p.AcceptStatuses[0] != 200 {
		t.Errorf("policy shares its status list with the spec")
	}
}

func TestCheckMinPeriod(t *testing.T) {
	tests := []struct {
		name      string
		period    time.Duration
		path      string
		minPeriod time.Duration
		want      string
	}{
		{name: "under the floor", period: 500 * time.Millisecond, path: ServicePath, minPeriod: time.Second,
			want: "spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"},
		{name: "installation under the floor", period: 500 * time.Millisecond, path: InstallationPath, minPeriod: time.Second,
			want: "routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"},
		{name: "at the floor", period: time.Second, path: ServicePath, minPeriod: time.Second},
		{name: "above the floor", period: 10 * time.Second, path: ServicePath, minPeriod: time.Second},
		{name: "no floor", period: time.Millisecond, path: ServicePath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := step1Policy()
			p.Period = tt.period
			err := CheckMinPeriod(p, tt.path, tt.minPeriod)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("CheckMinPeriod: %v, want nil", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Fatalf("CheckMinPeriod: %v, want %q", err, tt.want)
			}
		})
	}
}
