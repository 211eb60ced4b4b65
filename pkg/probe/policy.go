package probe

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/passivegate"
)

// Where a probe's settings come from, as Validate and Resolve name them in messages.
const (
	// InstallationPath is the installation config's probe block.
	InstallationPath = "routing.probe"
	// ServicePath is an InferenceService's own probe.
	ServicePath = "spec.routing.probe"
)

// Bounds shared with the CRD's OpenAPI rules on RoutingProbe.
const (
	MinStatus     = 100
	MaxStatus     = 599
	MaxStatuses   = 500
	MaxPathLength = 2048
	MinThreshold  = 1
)

// Policy is a probe that passed Validate. Its status lists keep the order and duplicates
// they were written with; Digest is what treats equal policies as equal.
type Policy struct {
	Path             string
	Method           string
	AcceptStatuses   []int32
	GateStatuses     []int32
	Period           time.Duration
	Timeout          time.Duration
	FailureThreshold int32
	SuccessThreshold int32
	AllFailedPolicy  v1beta1.AllFailedPolicy

	// Mode is as written: "" (left out) and Enforce both enforce; see Shadow.
	Mode v1beta1.ProbeMode
	// FlapDamping is nil when the probe sets none.
	FlapDamping *FlapDamping
	// RampUp is zero when the probe sets none.
	RampUp time.Duration
	// PassiveGate is nil when the probe sets none.
	PassiveGate *passivegate.Policy
}

// FlapDamping is a validated flapDamping block.
type FlapDamping struct {
	Window    time.Duration
	MaxFactor int32
}

// Shadow reports whether the policy records its gates without moving traffic.
func (p Policy) Shadow() bool { return p.Mode == v1beta1.ProbeModeShadow }

// remembersLifts reports whether a lift's time matters to the policy: flap damping and the
// ramp both measure from it. Without either, nothing about a lift is kept or recorded.
func (p Policy) remembersLifts() bool { return p.FlapDamping != nil || p.RampUp > 0 }

// Accepts reports whether status counts as Passing.
func (p Policy) Accepts(status int) bool { return containsStatus(p.AcceptStatuses, status) }

// Gates reports whether status counts as Failing.
func (p Policy) Gates(status int) bool { return containsStatus(p.GateStatuses, status) }

// DeepCopy returns a copy that shares no slices with p.
func (p Policy) DeepCopy() Policy {
	p.AcceptStatuses = slices.Clone(p.AcceptStatuses)
	p.GateStatuses = slices.Clone(p.GateStatuses)
	if p.FlapDamping != nil {
		d := *p.FlapDamping
		p.FlapDamping = &d
	}
	if p.PassiveGate != nil {
		g := *p.PassiveGate
		p.PassiveGate = &g
	}
	return p
}

func containsStatus(list []int32, status int) bool {
	for _, s := range list {
		if int(s) == status {
			return true
		}
	}
	return false
}

// Spec is a probe block as written, before Validate: a nil pointer or a nil slice is a
// field that was left out. Both sources fill it, so both get the same rules and messages.
type Spec struct {
	Disabled bool

	Path            *string
	Method          *string
	AllFailedPolicy *string

	AcceptStatuses []int32
	GateStatuses   []int32

	Period  *time.Duration
	Timeout *time.Duration

	FailureThreshold *int32
	SuccessThreshold *int32

	// The optional fields; nil is left out.
	Mode        *string
	FlapDamping *FlapDampingSpec
	RampUp      *time.Duration
	PassiveGate *PassiveGateSpec
}

// PassiveGateSpec is a passiveGate block as written; a nil field was left out.
type PassiveGateSpec struct {
	Mode               *string
	FailurePercent     *int32
	MinRequests        *int32
	MaxEjectionPercent *int32
	BaseEjectionTime   *time.Duration
	MaxEjectionTime    *time.Duration
}

// FlapDampingSpec is a flapDamping block as written; a nil field was left out.
type FlapDampingSpec struct {
	Window    *time.Duration
	MaxFactor *int32
}

// SpecFromAPI converts a service's probe. The API type's string fields are omitempty, so an
// empty string reads as left out (the API server refuses an empty path or enum anyway); an
// empty but present status list stays present, so that Validate reports its length. A nil
// probe gives an enabled Spec with every field missing.
func SpecFromAPI(rp *v1beta1.RoutingProbe) Spec {
	if rp == nil {
		return Spec{}
	}
	s := Spec{
		Disabled:        rp.Disabled,
		Path:            nonEmpty(rp.Path),
		Method:          nonEmpty(string(rp.Method)),
		AcceptStatuses:  statuses(rp.AcceptStatuses),
		GateStatuses:    statuses(rp.GateStatuses),
		AllFailedPolicy: nonEmpty(string(rp.AllFailedPolicy)),
	}
	if rp.Period != nil {
		d := rp.Period.Duration
		s.Period = &d
	}
	if rp.Timeout != nil {
		d := rp.Timeout.Duration
		s.Timeout = &d
	}
	if rp.FailureThreshold != nil {
		v := *rp.FailureThreshold
		s.FailureThreshold = &v
	}
	if rp.SuccessThreshold != nil {
		v := *rp.SuccessThreshold
		s.SuccessThreshold = &v
	}
	s.Mode = nonEmpty(string(rp.Mode))
	s.RampUp = durationOf(rp.RampUp)
	if fd := rp.FlapDamping; fd != nil {
		s.FlapDamping = &FlapDampingSpec{Window: durationOf(fd.Window)}
		if fd.MaxFactor != nil {
			v := *fd.MaxFactor
			s.FlapDamping.MaxFactor = &v
		}
	}
	if pg := rp.PassiveGate; pg != nil {
		s.PassiveGate = &PassiveGateSpec{
			Mode:               nonEmpty(string(pg.Mode)),
			FailurePercent:     copyOf(pg.FailurePercent),
			MinRequests:        copyOf(pg.MinRequests),
			MaxEjectionPercent: copyOf(pg.MaxEjectionPercent),
			BaseEjectionTime:   durationOf(pg.BaseEjectionTime),
			MaxEjectionTime:    durationOf(pg.MaxEjectionTime),
		}
	}
	return s
}

func copyOf[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

func durationOf(d *metav1.Duration) *time.Duration {
	if d == nil {
		return nil
	}
	v := d.Duration
	return &v
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func statuses(in []v1beta1.HTTPStatus) []int32 {
	if in == nil {
		return nil
	}
	out := make([]int32, len(in))
	for i, s := range in {
		out[i] = int32(s)
	}
	return out
}
