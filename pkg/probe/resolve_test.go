package probe

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

func TestResolve(t *testing.T) {
	installation := step1Policy()
	step2 := step1API()
	step2.Period = &metav1.Duration{Duration: 30 * time.Second}
	step2.Timeout = &metav1.Duration{Duration: 5 * time.Second}
	step2.AllFailedPolicy = v1beta1.AllFailedDrain
	step2Policy := step1Policy()
	step2Policy.Period, step2Policy.Timeout, step2Policy.AllFailedPolicy = 30*time.Second, 5*time.Second, v1beta1.AllFailedDrain

	overlap := step1API()
	overlap.AcceptStatuses = []v1beta1.HTTPStatus{200, 503}
	twoProblems := step1API()
	twoProblems.AcceptStatuses = []v1beta1.HTTPStatus{200, 503}
	twoProblems.Timeout = &metav1.Duration{Duration: 10 * time.Second}
	fast := step1API()
	fast.Period = &metav1.Duration{Duration: 500 * time.Millisecond}
	fast.Timeout = &metav1.Duration{Duration: 100 * time.Millisecond}
	partial := &v1beta1.RoutingProbe{Period: &metav1.Duration{Duration: 30 * time.Second}}

	limits := Limits{MinPeriod: time.Second}
	tests := []struct {
		name         string
		installation *Policy
		service      *v1beta1.RoutingProbe
		limits       Limits
		want         Resolution
		wantErr      string
	}{
		{name: "no probe anywhere", limits: limits, want: Resolution{Mode: ModeNone}},
		{name: "installation probe", installation: &installation, limits: limits,
			want: Resolution{Mode: ModePolicy, Policy: installation, Digest: Digest(installation)}},
		{name: "service probe replaces the installation's", installation: &installation, service: step2, limits: limits,
			want: Resolution{Mode: ModePolicy, Policy: step2Policy, Digest: Digest(step2Policy)}},
		{name: "service probe without an installation probe", service: step2, limits: limits,
			want: Resolution{Mode: ModePolicy, Policy: step2Policy, Digest: Digest(step2Policy)}},
		{name: "service disables the installation probe", installation: &installation,
			service: &v1beta1.RoutingProbe{Disabled: true}, limits: limits, want: Resolution{Mode: ModeDisabled}},
		{name: "service disabled without an installation probe",
			service: &v1beta1.RoutingProbe{Disabled: true}, limits: limits, want: Resolution{Mode: ModeDisabled}},
		{name: "a partial service probe is not merged with the installation's", installation: &installation,
			service: partial, limits: limits,
			wantErr: "validate routing policy: spec.routing.probe: an enabled probe must specify path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, and allFailedPolicy (missing: path, method, acceptStatuses, gateStatuses, timeout, failureThreshold, successThreshold, allFailedPolicy)"},
		{name: "overlap", installation: &installation, service: overlap, limits: limits,
			wantErr: "validate routing policy: spec.routing.probe status 503 is in both acceptStatuses and gateStatuses"},
		{name: "every problem on one line", service: twoProblems, limits: limits,
			wantErr: "validate routing policy: spec.routing.probe status 503 is in both acceptStatuses and gateStatuses; spec.routing.probe.timeout (10s) must be shorter than spec.routing.probe.period (10s)"},
		{name: "period under the observer's floor", service: fast, limits: limits,
			wantErr: "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"},
		{name: "timeout over the observer's maximum", service: step2, limits: Limits{MinPeriod: time.Second, MaxPeriod: time.Hour, MaxTimeout: time.Second},
			wantErr: "resolve probe policy: spec.routing.probe.timeout (5s) must be at most routing.observer.maxTimeout (1s)"},
		{name: "period and timeout over the maxima, on one line", service: step2, limits: Limits{MaxPeriod: 10 * time.Second, MaxTimeout: time.Second},
			wantErr: "resolve probe policy: spec.routing.probe.period (30s) must be at most routing.observer.maxPeriod (10s); spec.routing.probe.timeout (5s) must be at most routing.observer.maxTimeout (1s)"},
		{name: "at the maxima", service: step2, limits: Limits{MaxPeriod: 30 * time.Second, MaxTimeout: 5 * time.Second},
			want: Resolution{Mode: ModePolicy, Policy: step2Policy, Digest: Digest(step2Policy)}},
		{name: "the installation's probe is not checked again", installation: &installation, limits: Limits{MaxPeriod: time.Second, MaxTimeout: time.Millisecond},
			want: Resolution{Mode: ModePolicy, Policy: installation, Digest: Digest(installation)}},
		{name: "no floor", service: fast, want: func() Resolution {
			p := step1Policy()
			p.Period, p.Timeout = 500*time.Millisecond, 100*time.Millisecond
			return Resolution{Mode: ModePolicy, Policy: p, Digest: Digest(p)}
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.installation, tt.service, tt.limits)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Resolve error:\n got %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Resolve:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestResolveCopiesTheInstallationPolicy(t *testing.T) {
	installation := step1Policy()
	got, err := Resolve(&installation, nil, Limits{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	got.Policy.GateStatuses[0] = 418
	if installation.GateStatuses[0] != 404 {
		t.Errorf("the resolution shares its status list with the installation's policy")
	}
}
