package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// validator collects every rule that a decoded document breaks.
type validator struct {
	errs []error
}

func (v *validator) fail(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf(invalidPrefix+format, args...))
}

func (v *validator) add(err error) {
	v.errs = append(v.errs, fmt.Errorf("%s%w", invalidPrefix, err))
}

// validate turns a decoded document into a Config. With routing off the observer's limits
// may be left out, but a value that is set is checked all the same, and so is the probe.
func validate(raw rawConfig) (*Config, []error) {
	v := &validator{}
	r := raw.routing
	enabled := r.enabled != nil && *r.enabled
	observer := v.observer(r.observer, "routing.observer", enabled)
	cfg := &Config{Routing: Routing{
		Enabled:  enabled,
		Observer: observer,
		// A minPeriod that is unset or invalid is zero, which skips the period floor; an
		// invalid maximum is zero too, which skips it.
		Probe:     v.probe(r.probe, "routing.probe", observer),
		Publisher: v.publisher(r.publisher, "routing.publisher", enabled),
	}}
	if enabled {
		cfg.Routing.Capacity = v.capacity(r.capacity, capacity.InstallationPath,
			capacity.Limits{MinPeriod: observer.MinPeriod, MaxSamples: observer.MaxSamples})
	}
	cfg.Routing.Failover = v.failover(r.failover, failover.InstallationPath)
	cfg.Routing.TrafficSignal = v.trafficSignal(r.trafficSignal, trafficsignal.Path, observer.MinPeriod)
	var signalInterval time.Duration
	if cfg.Routing.TrafficSignal != nil {
		signalInterval = cfg.Routing.TrafficSignal.Interval
	}
	cfg.Routing.LoadBalancing = v.loadBalancing(r.loadBalancing, LoadBalancingPath, signalInterval)
	cfg.Endpoint = v.endpoint(raw.endpoint, "endpoint")
	cfg.Placement = v.placement(raw.placement, "placement")
	return cfg, v.errs
}

// failover checks the installation's failover tiers with a service's rules (the CRD's,
// which no API server has run on this file, and the selectors' syntax). It returns nil
// when there are none or they break a rule. Like the probe, it is checked with routing
// off too, so that turning routing on later does not find a bad block.
func (v *validator) failover(f *omev1beta1.RoutingFailover, path string) *omev1beta1.RoutingFailover {
	errs := failover.Validate(f, path)
	for _, err := range errs {
		v.add(err)
	}
	if len(errs) > 0 {
		return nil
	}
	return f
}

// placement checks the placement block; an unset observationGrace stays zero (see
// Placement.Grace).
func (v *validator) placement(raw rawPlacement, path string) Placement {
	var p Placement
	if d, ok := v.duration(raw.observationGrace, path+".observationGrace"); ok && d != nil {
		if *d <= 0 {
			v.fail("%s.observationGrace must be positive, got %v", path, *d)
		} else {
			p.ObservationGrace = *d
		}
	}
	return p
}

func (v *validator) observer(raw rawObserver, path string, required bool) Observer {
	o := Observer{
		MaxConcurrentReconciles: positive(v, raw.maxConcurrentReconciles, path+".maxConcurrentReconciles", required),
		MaxConcurrentRequests:   positive(v, raw.maxConcurrentRequests, path+".maxConcurrentRequests", required),
		MaxResponseBytes:        positive(v, raw.maxResponseBytes, path+".maxResponseBytes", required),
		MaxSamples:              positive(v, raw.maxSamples, path+".maxSamples", required),
	}
	minPeriod, ok := v.duration(raw.minPeriod, path+".minPeriod")
	switch {
	case !ok:
	case minPeriod == nil:
		if required {
			v.fail("%s.minPeriod is required", path)
		}
	case *minPeriod <= 0:
		v.fail("%s.minPeriod must be positive, got %v", path, *minPeriod)
	default:
		o.MinPeriod = *minPeriod
	}
	o.MaxPeriod = v.maximum(raw.maxPeriod, path+".maxPeriod", DefaultMaxPeriod)
	o.MaxTimeout = v.maximum(raw.maxTimeout, path+".maxTimeout", DefaultMaxTimeout)
	if o.MinPeriod > 0 && o.MaxPeriod > 0 && o.MinPeriod > o.MaxPeriod {
		v.fail("%s.minPeriod (%s) must not be over %s.maxPeriod (%s)", path, o.MinPeriod, path, o.MaxPeriod)
	}
	if d, ok := v.duration(raw.recordInterval, path+".recordInterval"); ok && d != nil {
		if *d < 0 {
			v.fail("%s must not be negative, got %v", path+".recordInterval", *d)
		} else {
			o.RecordInterval = *d
		}
	}
	if raw.allowLoopback != nil {
		o.AllowLoopback = *raw.allowLoopback
	}
	if raw.allowPrivateNetworks != nil {
		o.AllowPrivateNetworks = *raw.allowPrivateNetworks
	}
	return o
}

// maximum reads an optional positive duration; unset, it is def. An invalid value is
// reported and read as zero.
func (v *validator) maximum(raw json.RawMessage, path string, def time.Duration) time.Duration {
	d, ok := v.duration(raw, path)
	switch {
	case !ok:
		return 0
	case d == nil:
		return def
	case *d <= 0:
		v.fail("%s must be positive, got %v", path, *d)
		return 0
	}
	return *d
}

func positive[T int | int32 | int64](v *validator, value *T, path string, required bool) T {
	switch {
	case value == nil:
		if required {
			v.fail("%s is required", path)
		}
		return 0
	case *value <= 0:
		v.fail("%s must be positive, got %d", path, *value)
		return 0
	case int64(*value) > MaxInteger:
		v.fail("%s must be at most %d, got %d", path, MaxInteger, *value)
		return 0
	}
	return *value
}

// probe checks the installation's probe with the same rules as a service's own, then
// against the period floor. It returns nil when there is no probe or it breaks a rule.
func (v *validator) probe(raw *rawProbe, path string, limits Observer) *probe.Policy {
	minPeriod := limits.MinPeriod
	if raw == nil {
		return nil
	}
	spec := probe.Spec{
		Path:             raw.path,
		Method:           raw.method,
		AllFailedPolicy:  raw.allFailedPolicy,
		AcceptStatuses:   raw.acceptStatuses,
		GateStatuses:     raw.gateStatuses,
		FailureThreshold: raw.failureThreshold,
		SuccessThreshold: raw.successThreshold,
		Mode:             raw.mode,
	}
	// A duration that does not parse has been reported. The probe's rules get a stand-in
	// for it, so that they do not also call it missing, and what they say about it is left
	// out.
	var unparsed []string
	durations := []durationField{
		{&spec.Period, raw.period, path + ".period"},
		{&spec.Timeout, raw.timeout, path + ".timeout"},
		{&spec.RampUp, raw.rampUp, path + ".rampUp"},
	}
	if fd := raw.flapDamping; fd != nil {
		spec.FlapDamping = &probe.FlapDampingSpec{MaxFactor: fd.maxFactor}
		durations = append(durations, durationField{&spec.FlapDamping.Window, fd.window, path + ".flapDamping.window"})
	}
	if pg := raw.passiveGate; pg != nil {
		spec.PassiveGate = &probe.PassiveGateSpec{
			Mode: pg.mode, FailurePercent: pg.failurePercent, MinRequests: pg.minRequests,
			MaxEjectionPercent: pg.maxEjectionPercent,
		}
		durations = append(durations,
			durationField{&spec.PassiveGate.BaseEjectionTime, pg.baseEjectionTime, path + ".passiveGate.baseEjectionTime"},
			durationField{&spec.PassiveGate.MaxEjectionTime, pg.maxEjectionTime, path + ".passiveGate.maxEjectionTime"})
	}
	for _, d := range durations {
		value, ok := v.duration(d.raw, d.field)
		if !ok {
			unparsed = append(unparsed, d.field)
			value = new(time.Hour)
		}
		*d.dst = value
	}
	before := len(v.errs)
	policy, errs := probe.Validate(spec, path)
	for _, err := range errs {
		if !mentionsAny(err.Error(), unparsed) {
			v.add(err)
		}
	}
	// The floor applies to the period whatever else is wrong, so that every problem shows
	// at once. CheckMinPeriod reads only the period.
	periodParsed := !slices.Contains(unparsed, path+".period")
	if minPeriod > 0 && periodParsed && spec.Period != nil && *spec.Period > 0 {
		floor := policy
		floor.Period = *spec.Period
		if err := probe.CheckMinPeriod(floor, path, minPeriod); err != nil {
			v.add(err)
		}
	}
	timeoutParsed := !slices.Contains(unparsed, path+".timeout")
	if periodParsed && timeoutParsed && spec.Period != nil && spec.Timeout != nil {
		ceiling := policy
		ceiling.Period, ceiling.Timeout = *spec.Period, *spec.Timeout
		for _, err := range probe.CheckMaxima(ceiling, path, limits.MaxPeriod, limits.MaxTimeout) {
			v.add(err)
		}
	}
	if len(errs) > 0 || len(v.errs) > before {
		return nil
	}
	return &policy
}

// durationField is a duration setting still to parse, and where its value goes; a value
// left out stays nil.
type durationField struct {
	dst   **time.Duration
	raw   json.RawMessage
	field string
}

// capacity checks the installation's capacity poll: its shape, then what the observer
// allows. It returns nil when there is no poll or it breaks a rule.
func (v *validator) capacity(raw *rawCapacity, path string, limits capacity.Limits) *capacity.Policy {
	if raw == nil {
		return nil
	}
	spec := capacity.Spec{Path: raw.path, Method: raw.method, Format: raw.format, Samples: raw.samples, Quorum: raw.quorum}
	if raw.options != nil {
		spec.Options = *raw.options
	}
	// As for the probe: a duration that does not parse has been reported, and what the
	// rules say about its stand-in is left out.
	var unparsed []string
	for _, d := range []durationField{
		{&spec.Period, raw.period, path + ".period"},
		{&spec.Timeout, raw.timeout, path + ".timeout"},
		{&spec.MaxAge, raw.maxAge, path + ".maxAge"},
	} {
		value, ok := v.duration(d.raw, d.field)
		if !ok {
			unparsed = append(unparsed, d.field)
			value = new(time.Hour)
		}
		*d.dst = value
	}
	before := len(v.errs)
	policy, errs := capacity.Validate(spec, path)
	if len(errs) > 0 {
		// Check also reads what was set of a poll whose shape failed, so that every
		// problem shows at once.
		policy = capacity.Policy{Options: spec.Options}
		policy.Format = deref(spec.Format)
		policy.Samples = deref(spec.Samples)
		if !slices.Contains(unparsed, path+".period") {
			policy.Period = deref(spec.Period)
		}
	}
	errs = append(errs, capacity.Check(policy, path, limits)...)
	for _, err := range errs {
		if !mentionsAny(err.Error(), unparsed) {
			v.add(err)
		}
	}
	if len(v.errs) > before || spec.Path == nil {
		return nil
	}
	return &policy
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// duration parses a duration written as a string, such as "10s". It returns nil, true when
// the value is absent, and nil, false, having reported it, when it is not a duration.
func (v *validator) duration(raw json.RawMessage, path string) (*time.Duration, bool) {
	if raw == nil {
		return nil, true
	}
	text := excerpt(raw)
	if kind(raw) == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if d, err := time.ParseDuration(s); err == nil && inGrammar(s) {
				return &d, true
			}
			text = shorten(s)
		}
	}
	v.fail(`%s: %q is not a duration (use forms like "30s", "5m")`, path, text)
	return nil, false
}

// mentionsAny reports whether msg names one of the settings in paths (and not a longer
// name that starts with one).
func mentionsAny(msg string, paths []string) bool {
	for _, p := range paths {
		for rest := msg; ; {
			i := strings.Index(rest, p)
			if i < 0 {
				break
			}
			rest = rest[i+len(p):]
			if rest == "" || !isNameByte(rest[0]) {
				return true
			}
		}
	}
	return false
}

func isNameByte(b byte) bool {
	return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
