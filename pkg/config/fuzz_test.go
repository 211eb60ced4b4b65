package config

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/test/failovercases"
	"github.com/ome-routing/operator/test/probecases"
)

// looseDoc is the document as plain encoding/json reads it. FuzzParse checks what Parse
// accepts against it, so that the check does not share Parse's decoder.
type looseDoc struct {
	Routing struct {
		Enabled  bool
		Probe    json.RawMessage
		Failover *omev1beta1.RoutingFailover
		Observer struct {
			MaxConcurrentReconciles *int
			MaxConcurrentRequests   *int64
			MaxResponseBytes        *int64
			MinPeriod               *string
			AllowLoopback           *bool
			AllowPrivateNetworks    *bool
		}
	}
}

type looseProbe struct {
	Disabled                           *bool
	Path, Method, AllFailedPolicy      *string
	AcceptStatuses, GateStatuses       []int32
	Period, Timeout                    *string
	FailureThreshold, SuccessThreshold *int32
	Mode, RampUp                       *string
	FlapDamping                        *struct {
		Window    *string
		MaxFactor *int32
	}
	PassiveGate *struct {
		Mode                                            *string
		FailurePercent, MinRequests, MaxEjectionPercent *int32
		BaseEjectionTime, MaxEjectionTime               *string
	}
}

// FuzzParse: Parse never panics, every error line carries a prefix, and a document that
// Parse accepts has a probe that probe.Validate and probe.CheckMinPeriod accept, and, with
// routing on, positive observer limits.
func FuzzParse(f *testing.F) {
	for _, tc := range acceptedCases {
		f.Add([]byte(tc.json))
	}
	for _, tc := range rejectedCases {
		f.Add([]byte(tc.json))
	}
	for _, c := range probecases.Cases {
		f.Add([]byte(`{"routing": {"enabled": true, "probe": ` + c.JSON + `, "observer": ` + mustJSON(chartObserver()) + `}}`))
	}
	for _, c := range failovercases.Cases {
		f.Add([]byte(`{"routing": {"enabled": true, "failover": ` + c.JSON + `, "observer": ` + mustJSON(chartObserver()) + `}}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			errorLines(t, err)
			return
		}
		var doc looseDoc
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatalf("Parse accepted a document that encoding/json refuses: %v", err)
			}
		}
		r, o := cfg.Routing, doc.Routing.Observer
		if r.Enabled != doc.Routing.Enabled {
			t.Fatalf("Enabled = %v, the document says %v", r.Enabled, doc.Routing.Enabled)
		}
		checkLimit(t, "maxConcurrentReconciles", int64(r.Observer.MaxConcurrentReconciles), toInt64(o.MaxConcurrentReconciles), r.Enabled)
		checkLimit(t, "maxConcurrentRequests", r.Observer.MaxConcurrentRequests, o.MaxConcurrentRequests, r.Enabled)
		checkLimit(t, "maxResponseBytes", r.Observer.MaxResponseBytes, o.MaxResponseBytes, r.Enabled)
		var minPeriod *int64
		if o.MinPeriod != nil {
			d, err := time.ParseDuration(*o.MinPeriod)
			if err != nil {
				t.Fatalf("accepted minPeriod %q: %v", *o.MinPeriod, err)
			}
			minPeriod = (*int64)(&d)
		}
		checkLimit(t, "minPeriod", int64(r.Observer.MinPeriod), minPeriod, r.Enabled)
		if got, want := r.Observer.AllowLoopback, o.AllowLoopback != nil && *o.AllowLoopback; got != want {
			t.Fatalf("AllowLoopback = %v, want %v", got, want)
		}
		if got, want := r.Observer.AllowPrivateNetworks, o.AllowPrivateNetworks != nil && *o.AllowPrivateNetworks; got != want {
			t.Fatalf("AllowPrivateNetworks = %v, want %v", got, want)
		}
		checkProbe(t, doc.Routing.Probe, r.Probe, r.Observer.MinPeriod)
		checkFailover(t, doc.Routing.Failover, r.Failover)
	})
}

// checkFailover: an accepted failover setting is the document's, and pkg/failover accepts
// it; the installation has no disabled.
func checkFailover(t *testing.T, written, got *omev1beta1.RoutingFailover) {
	t.Helper()
	switch {
	case written == nil && got != nil:
		t.Fatalf("Failover = %+v, the document sets none", *got)
	case written == nil:
		return
	case written.Disabled:
		t.Fatalf("accepted a failover setting with disabled")
	case !reflect.DeepEqual(got, written):
		t.Fatalf("Failover = %+v, the document says %+v", got, *written)
	}
	if errs := failover.Validate(got, failover.InstallationPath); len(errs) > 0 {
		t.Fatalf("accepted a failover setting that failover.Validate refuses: %v", errs)
	}
}

func toInt64(v *int) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}

// checkLimit: an accepted limit is what the document says, and positive when set or
// when routing is on.
func checkLimit(t *testing.T, name string, got int64, written *int64, required bool) {
	t.Helper()
	switch {
	case written == nil && required:
		t.Fatalf("accepted routing on without %s", name)
	case written == nil && got != 0:
		t.Fatalf("%s = %d, but the document leaves it out", name, got)
	case written != nil && (*written <= 0 || got != *written):
		t.Fatalf("%s = %d, the document says %d, and it must be positive", name, got, *written)
	}
}

func checkProbe(t *testing.T, raw json.RawMessage, got *probe.Policy, minPeriod time.Duration) {
	t.Helper()
	if noProbe(raw) {
		if got != nil {
			t.Fatalf("Probe = %+v, the document sets none", *got)
		}
		return
	}
	var p looseProbe
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("accepted a probe that encoding/json refuses: %v", err)
	}
	if p.Disabled != nil {
		t.Fatalf("accepted a probe with disabled")
	}
	spec := probe.Spec{
		Path: p.Path, Method: p.Method, AllFailedPolicy: p.AllFailedPolicy,
		AcceptStatuses: p.AcceptStatuses, GateStatuses: p.GateStatuses,
		FailureThreshold: p.FailureThreshold, SuccessThreshold: p.SuccessThreshold,
		Mode: p.Mode,
	}
	durations := []struct {
		text *string
		dst  **time.Duration
	}{{p.Period, &spec.Period}, {p.Timeout, &spec.Timeout}, {p.RampUp, &spec.RampUp}}
	if p.FlapDamping != nil {
		spec.FlapDamping = &probe.FlapDampingSpec{MaxFactor: p.FlapDamping.MaxFactor}
		durations = append(durations, struct {
			text *string
			dst  **time.Duration
		}{p.FlapDamping.Window, &spec.FlapDamping.Window})
	}
	if pg := p.PassiveGate; pg != nil {
		spec.PassiveGate = &probe.PassiveGateSpec{
			Mode: pg.Mode, FailurePercent: pg.FailurePercent, MinRequests: pg.MinRequests,
			MaxEjectionPercent: pg.MaxEjectionPercent,
		}
		durations = append(durations, struct {
			text *string
			dst  **time.Duration
		}{pg.BaseEjectionTime, &spec.PassiveGate.BaseEjectionTime}, struct {
			text *string
			dst  **time.Duration
		}{pg.MaxEjectionTime, &spec.PassiveGate.MaxEjectionTime})
	}
	for _, d := range durations {
		if d.text == nil {
			continue
		}
		v, err := time.ParseDuration(*d.text)
		if err != nil {
			t.Fatalf("accepted a probe duration %q: %v", *d.text, err)
		}
		*d.dst = &v
	}
	want, errs := probe.Validate(spec, probe.InstallationPath)
	if len(errs) > 0 {
		t.Fatalf("accepted a probe that probe.Validate refuses: %v", errs)
	}
	if err := probe.CheckMinPeriod(want, probe.InstallationPath, minPeriod); err != nil {
		t.Fatalf("accepted a probe under the floor: %v", err)
	}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("Probe = %v, want %+v", got, want)
	}
}

// noProbe reports whether a probe block sets nothing: absent, null, [], or an object whose
// members are all null.
func noProbe(raw json.RawMessage) bool {
	if raw == nil {
		return true
	}
	var list []any
	if json.Unmarshal(raw, &list) == nil {
		return len(list) == 0
	}
	var members map[string]any
	if json.Unmarshal(raw, &members) != nil {
		return false
	}
	for _, v := range members {
		if v != nil {
			return false
		}
	}
	return true
}
