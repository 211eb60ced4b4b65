package capacity

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
)

func servicePoll() *v1beta1.RoutingCapacitySpec {
	return &v1beta1.RoutingCapacitySpec{
		Path: "/capacity", Method: "GET", Format: "Report",
		Period:  &metav1.Duration{Duration: 10 * time.Second},
		Timeout: &metav1.Duration{Duration: 3 * time.Second},
		MaxAge:  &metav1.Duration{Duration: 30 * time.Second},
		Samples: ptr.To[int32](10), Quorum: ptr.To[int32](2),
	}
}

func editPoll(edit func(*v1beta1.RoutingCapacitySpec)) *v1beta1.RoutingCapacitySpec {
	s := servicePoll()
	edit(s)
	return s
}

var limits = Limits{MinPeriod: time.Second, MaxSamples: 10}

func TestResolve(t *testing.T) {
	installation := &Policy{Path: "/load", Method: "POST", Format: "Report", Samples: 3, Quorum: 1,
		Period: 5 * time.Second, Timeout: time.Second, MaxAge: 5 * time.Second}
	cases := []struct {
		name         string
		installation *Policy
		service      *v1beta1.RoutingCapacitySpec
		mode         ResolutionMode
		path         string
		wantErr      string
	}{
		{name: "none anywhere", mode: ModeNone},
		{name: "installation applies", installation: installation, mode: ModePolicy, path: "/load"},
		{name: "service replaces the installation", installation: installation, service: servicePoll(), mode: ModePolicy, path: "/capacity"},
		{name: "service disables", installation: installation, service: &v1beta1.RoutingCapacitySpec{Disabled: true}, mode: ModeDisabled},
		{name: "maxAge not spanning quorum periods", service: editPoll(func(s *v1beta1.RoutingCapacitySpec) {
			s.Quorum, s.MaxAge = ptr.To[int32](3), &metav1.Duration{Duration: 20 * time.Second}
		}), wantErr: "validate routing policy: spec.routing.capacity.maxAge (20s) must span at least quorum (3) period intervals"},
		{name: "format not registered", service: editPoll(func(s *v1beta1.RoutingCapacitySpec) { s.Format = "report" }),
			wantErr: `resolve capacity policy: spec.routing.capacity.format "report" is not registered in this build (available: [Report])`},
		{name: "period under minPeriod", service: editPoll(func(s *v1beta1.RoutingCapacitySpec) {
			s.Period, s.Timeout, s.Quorum, s.MaxAge = &metav1.Duration{Duration: 500 * time.Millisecond},
				&metav1.Duration{Duration: 100 * time.Millisecond}, ptr.To[int32](1), &metav1.Duration{Duration: time.Second}
		}), wantErr: "resolve capacity policy: spec.routing.capacity.period (500ms) must be at least routing.observer.minPeriod (1s)"},
		{name: "samples over maxSamples", service: editPoll(func(s *v1beta1.RoutingCapacitySpec) { s.Samples = ptr.To[int32](11) }),
			wantErr: "resolve capacity policy: spec.routing.capacity.samples (11) must not exceed routing.observer.maxSamples (10)"},
		{name: "options for Report", service: editPoll(func(s *v1beta1.RoutingCapacitySpec) { s.Options = map[string]string{"x": "1"} }),
			wantErr: `resolve capacity policy: spec.routing.capacity.options: format "Report" takes no options, got [x]`},
		{name: "disabled with a field, as an object written before the rule", service: &v1beta1.RoutingCapacitySpec{Disabled: true, Path: "/c"},
			wantErr: "validate routing policy: spec.routing.capacity: disabled must not be combined with capacity configuration fields"},
		{name: "missing fields", service: &v1beta1.RoutingCapacitySpec{Path: "/c", Method: "GET"},
			wantErr: "validate routing policy: spec.routing.capacity: an enabled capacity poll must specify path, method, format, period, timeout, samples, quorum, and maxAge (missing: format, period, timeout, samples, quorum, maxAge)"},
		{name: "two shape problems on one line", service: editPoll(func(s *v1beta1.RoutingCapacitySpec) {
			s.Timeout = &metav1.Duration{Duration: 10 * time.Second}
			s.Quorum = ptr.To[int32](11)
		}), wantErr: "validate routing policy: spec.routing.capacity.timeout (10s) must be shorter than spec.routing.capacity.period (10s); " +
			"spec.routing.capacity.quorum (11) must not exceed spec.routing.capacity.samples (10); " +
			"spec.routing.capacity.maxAge (30s) must span at least quorum (11) period intervals"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Resolve(tc.installation, tc.service, limits)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Resolve() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve() error = %v", err)
			}
			if res.Mode != tc.mode || res.Policy.Path != tc.path {
				t.Errorf("Resolve() = %s %q, want %s %q", res.Mode, res.Policy.Path, tc.mode, tc.path)
			}
			if res.Enabled() != (tc.mode == ModePolicy) {
				t.Errorf("Enabled() = %v for mode %s", res.Enabled(), res.Mode)
			}
			if tc.mode == ModePolicy && !strings.HasPrefix(res.Digest, "sha256:") {
				t.Errorf("Digest = %q", res.Digest)
			}
		})
	}
}

func TestValidateServiceShape(t *testing.T) {
	neg := -time.Second
	cases := []struct {
		name string
		spec Spec
		want []string
	}{
		{"empty path", Spec{Path: ptr.To("")}, []string{"spec.routing.capacity.path must not be empty"}},
		{"bad method", Spec{Method: ptr.To("PUT")}, []string{`spec.routing.capacity.method "PUT" must be GET, HEAD, or POST`}},
		{"empty format", Spec{Format: ptr.To("")}, []string{"spec.routing.capacity.format must not be empty"}},
		{"negative period", Spec{Period: &neg}, []string{"spec.routing.capacity.period must be positive, got -1s"}},
		{"zero samples", Spec{Samples: ptr.To[int32](0)}, []string{"spec.routing.capacity.samples must be at least 1, got 0"}},
		{"maxAge under period", Spec{Period: ptr.To(10 * time.Second), MaxAge: ptr.To(5 * time.Second)},
			[]string{"spec.routing.capacity.maxAge (5s) must be at least spec.routing.capacity.period (10s)"}},
		{"long path", Spec{Path: ptr.To("/" + strings.Repeat("a", MaxPathLength))},
			[]string{"spec.routing.capacity.path must be at most 2048 characters, got 2049"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Validate(tc.spec, ServicePath)
			var got []string
			for _, err := range errs {
				if !strings.Contains(err.Error(), "an enabled capacity poll must specify") {
					got = append(got, err.Error())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Validate() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	a := Policy{Path: "/c", Method: "GET", Format: "Report", Samples: 3, Quorum: 2, Period: 10 * time.Second,
		Timeout: time.Second, MaxAge: 30 * time.Second, Options: map[string]string{"a": "1", "b": "2"}}
	b := a.DeepCopy()
	b.Options = map[string]string{"b": "2", "a": "1"}
	if Digest(a) != Digest(b) {
		t.Errorf("equal policies have different digests")
	}
	for name, edit := range map[string]func(*Policy){
		"path":    func(p *Policy) { p.Path = "/d" },
		"method":  func(p *Policy) { p.Method = "POST" },
		"format":  func(p *Policy) { p.Format = "Other" },
		"option":  func(p *Policy) { p.Options["a"] = "3" },
		"samples": func(p *Policy) { p.Samples = 4 },
		"quorum":  func(p *Policy) { p.Quorum = 1 },
		"period":  func(p *Policy) { p.Period = 11 * time.Second },
		"timeout": func(p *Policy) { p.Timeout = 2 * time.Second },
		"maxAge":  func(p *Policy) { p.MaxAge = 31 * time.Second },
	} {
		c := a.DeepCopy()
		edit(&c)
		if Digest(c) == Digest(a) {
			t.Errorf("changing %s keeps the digest", name)
		}
	}
}
