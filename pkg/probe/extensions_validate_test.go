package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

func TestValidateOptionalFields(t *testing.T) {
	damping := func(window time.Duration, maxFactor int32) *FlapDampingSpec {
		return &FlapDampingSpec{Window: ptr(window), MaxFactor: ptr(maxFactor)}
	}
	tests := []struct {
		name string
		spec Spec
		path string
		want []string
	}{
		{name: "all three", path: ServicePath, spec: step1Spec(func(s *Spec) {
			s.Mode, s.FlapDamping, s.RampUp = ptr("Shadow"), damping(10*time.Minute, 8), ptr(time.Minute)
		})},
		{name: "disabled with mode", path: ServicePath, spec: Spec{Disabled: true, Mode: ptr("Shadow")},
			want: []string{"spec.routing.probe: disabled must not be combined with probe configuration fields"}},
		{name: "disabled with rampUp", path: ServicePath, spec: Spec{Disabled: true, RampUp: ptr(time.Minute)},
			want: []string{"spec.routing.probe: disabled must not be combined with probe configuration fields"}},
		{name: "optional fields without the nine", path: ServicePath, spec: Spec{Mode: ptr("Enforce")},
			want: []string{"spec.routing.probe: an enabled probe must specify path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, and allFailedPolicy (missing: path, method, acceptStatuses, gateStatuses, period, timeout, failureThreshold, successThreshold, allFailedPolicy)"}},
		{name: "mode unknown", path: ServicePath, spec: step1Spec(func(s *Spec) { s.Mode = ptr("shadow") }),
			want: []string{`spec.routing.probe.mode must be Enforce or Shadow, got "shadow"`}},
		{name: "mode unknown, installation", path: InstallationPath, spec: step1Spec(func(s *Spec) { s.Mode = ptr("") }),
			want: []string{`routing.probe.mode must be Enforce or Shadow, got ""`}},
		{name: "rampUp 0s", path: ServicePath, spec: step1Spec(func(s *Spec) { s.RampUp = ptr(time.Duration(0)) }),
			want: []string{
				"spec.routing.probe.rampUp must be positive",
				"spec.routing.probe.rampUp (0s) must be at least spec.routing.probe.period (10s)",
			}},
		{name: "rampUp under period", path: InstallationPath, spec: step1Spec(func(s *Spec) { s.RampUp = ptr(5 * time.Second) }),
			want: []string{"routing.probe.rampUp (5s) must be at least routing.probe.period (10s)"}},
		{name: "rampUp equal to period", path: InstallationPath, spec: step1Spec(func(s *Spec) { s.RampUp = ptr(10 * time.Second) })},
		{name: "window and maxFactor missing", path: ServicePath, spec: step1Spec(func(s *Spec) { s.FlapDamping = &FlapDampingSpec{} }),
			want: []string{
				"spec.routing.probe.flapDamping.window is required",
				"spec.routing.probe.flapDamping.maxFactor is required",
			}},
		{name: "window not positive, maxFactor too small", path: InstallationPath,
			spec: step1Spec(func(s *Spec) { s.FlapDamping = damping(-time.Second, 1) }),
			want: []string{
				"routing.probe.flapDamping.window must be positive",
				"routing.probe.flapDamping.window (-1s) must be at least routing.probe.period (10s)",
				"routing.probe.flapDamping.maxFactor must be between 2 and 64, got 1",
			}},
		{name: "window under period", path: ServicePath, spec: step1Spec(func(s *Spec) { s.FlapDamping = damping(9*time.Second, 64) }),
			want: []string{"spec.routing.probe.flapDamping.window (9s) must be at least spec.routing.probe.period (10s)"}},
		{name: "maxFactor too large", path: ServicePath, spec: step1Spec(func(s *Spec) { s.FlapDamping = damping(time.Hour, 65) }),
			want: []string{"spec.routing.probe.flapDamping.maxFactor must be between 2 and 64, got 65"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := Validate(tt.spec, tt.path)
			if got := errorStrings(errs); !reflect.DeepEqual(got, tt.want) && (len(got) > 0 || len(tt.want) > 0) {
				t.Fatalf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestValidateReturnsTheOptionalFields(t *testing.T) {
	rp := step1API()
	rp.Mode = v1beta1.ProbeModeShadow
	rp.FlapDamping = &v1beta1.ProbeFlapDamping{Window: &metav1.Duration{Duration: 10 * time.Minute}, MaxFactor: ptr[int32](8)}
	rp.RampUp = &metav1.Duration{Duration: time.Minute}
	p, errs := Validate(SpecFromAPI(rp), ServicePath)
	if len(errs) > 0 {
		t.Fatalf("Validate: %v", errs)
	}
	want := step1Policy()
	want.Mode = v1beta1.ProbeModeShadow
	want.FlapDamping = &FlapDamping{Window: 10 * time.Minute, MaxFactor: 8}
	want.RampUp = time.Minute
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("policy:\n got %+v\nwant %+v", p, want)
	}
	c := p.DeepCopy()
	c.FlapDamping.MaxFactor = 2
	if p.FlapDamping.MaxFactor != 8 {
		t.Fatal("DeepCopy shares flapDamping")
	}
	if !p.Shadow() || step1Policy().Shadow() {
		t.Fatal("Shadow() does not follow the mode")
	}
}

// The optional settings add their lines only when set, so that a probe without them keeps
// its digest; mode never adds one.
func TestDigestOfTheOptionalSettings(t *testing.T) {
	base := step1DigestText
	sha := func(text string) string {
		sum := sha256.Sum256([]byte(text))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	tests := []struct {
		name   string
		change func(*Policy)
		text   string
	}{
		{"none", func(*Policy) {}, base},
		{"mode Shadow", func(p *Policy) { p.Mode = v1beta1.ProbeModeShadow }, base},
		{"mode Enforce", func(p *Policy) { p.Mode = v1beta1.ProbeModeEnforce }, base},
		{"flapDamping", func(p *Policy) { p.FlapDamping = &FlapDamping{Window: time.Minute, MaxFactor: 8} },
			base + "flapDamping=window=60000000000,maxFactor=8\n"},
		{"rampUp", func(p *Policy) { p.RampUp = 2 * time.Minute }, base + "rampUp=120000000000\n"},
		{"both, and Shadow", func(p *Policy) {
			p.Mode, p.RampUp = v1beta1.ProbeModeShadow, time.Minute
			p.FlapDamping = &FlapDamping{Window: time.Hour, MaxFactor: 64}
		}, base + "flapDamping=window=3600000000000,maxFactor=64\nrampUp=60000000000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := step1Policy()
			tt.change(&p)
			if got, want := Digest(p), sha(tt.text); got != want {
				t.Fatalf("Digest = %s, want %s of\n%s", got, want, tt.text)
			}
		})
	}
	// Any change to either setting is a new digest.
	a, b := step1Policy(), step1Policy()
	a.FlapDamping = &FlapDamping{Window: time.Minute, MaxFactor: 8}
	b.FlapDamping = &FlapDamping{Window: time.Minute, MaxFactor: 4}
	if Digest(a) == Digest(b) {
		t.Fatal("maxFactor does not change the digest")
	}
}

func TestResolveKeepsTheDigestAcrossModes(t *testing.T) {
	enforce := step1API()
	shadow := step1API()
	shadow.Mode = v1beta1.ProbeModeShadow
	re, err := Resolve(nil, enforce, Limits{MinPeriod: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Resolve(nil, shadow, Limits{MinPeriod: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if re.Digest != rs.Digest || !rs.Policy.Shadow() || re.Policy.Shadow() {
		t.Fatalf("enforce %+v, shadow %+v: want the same digest and each its mode", re, rs)
	}
	bad := step1API()
	bad.RampUp = &metav1.Duration{Duration: time.Second}
	if _, err := Resolve(nil, bad, Limits{}); err == nil ||
		err.Error() != "validate routing policy: spec.routing.probe.rampUp (1s) must be at least spec.routing.probe.period (10s)" {
		t.Fatalf("Resolve of a short rampUp: %v", err)
	}
}
