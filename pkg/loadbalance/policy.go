package loadbalance

import (
	"errors"
	"fmt"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
)

// Defaults of the optional fields of a loadBalancing block.
const (
	DefaultMinInterval       = 30 * time.Second
	DefaultMaxStepPercent    = 25
	DefaultHysteresisPercent = 20
	DefaultFloorPercent      = 10
)

// Policy is a validated loadBalancing block, its defaults filled in.
type Policy struct {
	Mode v1beta1.LoadBalancingMode
	// WaitingPerReplica and CacheUsePercent are the targets; 0 is no target of that kind.
	WaitingPerReplica int32
	CacheUsePercent   int32
	MinInterval       time.Duration
	MaxStepPercent    int32
	HysteresisPercent int32
	FloorPercent      int32
}

// Enforced says whether the shares set the weights (Enforce), or are only recorded.
func (p Policy) Enforced() bool { return p.Mode == v1beta1.LoadBalancingEnforce }

// FromSpec checks a loadBalancing block written at path (spec.routing.loadBalancing, or
// the installation's routing.loadBalancing) and returns its policy, nil when it is absent
// or disabled. signalInterval is the traffic signal's interval (0 when the installation
// reads none): a share may not move faster than the signal that moves it. Every rule
// broken is reported, each naming its field.
func FromSpec(spec *v1beta1.RoutingLoadBalancing, path string, signalInterval time.Duration) (*Policy, error) {
	if spec == nil || spec.Disabled {
		if spec != nil && (spec.Mode != "" || spec.WaitingPerReplica != nil || spec.CacheUsePercent != nil || spec.MinInterval != nil ||
			spec.MaxStepPercent != nil || spec.HysteresisPercent != nil || spec.FloorPercent != nil) {
			return nil, fmt.Errorf("%s: disabled must not be combined with load balancing fields", path)
		}
		return nil, nil
	}
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	p := &Policy{Mode: spec.Mode, MinInterval: DefaultMinInterval, MaxStepPercent: DefaultMaxStepPercent,
		HysteresisPercent: DefaultHysteresisPercent, FloorPercent: DefaultFloorPercent}
	switch spec.Mode {
	case v1beta1.LoadBalancingShadow, v1beta1.LoadBalancingEnforce:
	case "":
		add("%s.mode is required: Shadow or Enforce", path)
	default:
		add("%s.mode must be Shadow or Enforce, got %q", path, spec.Mode)
	}
	bounded := func(field string, v *int32, lo, hi int32, into *int32) {
		if v == nil {
			return
		}
		if *v < lo || *v > hi {
			add("%s.%s must be from %d to %d, got %d", path, field, lo, hi, *v)
			return
		}
		*into = *v
	}
	bounded("waitingPerReplica", spec.WaitingPerReplica, 1, 10000, &p.WaitingPerReplica)
	bounded("cacheUsePercent", spec.CacheUsePercent, 1, 100, &p.CacheUsePercent)
	bounded("maxStepPercent", spec.MaxStepPercent, 1, 100, &p.MaxStepPercent)
	bounded("hysteresisPercent", spec.HysteresisPercent, 0, 90, &p.HysteresisPercent)
	bounded("floorPercent", spec.FloorPercent, 1, 100, &p.FloorPercent)
	if spec.WaitingPerReplica == nil && spec.CacheUsePercent == nil {
		add("%s must set waitingPerReplica, cacheUsePercent, or both", path)
	}
	if spec.MinInterval != nil {
		if d := spec.MinInterval.Duration; d <= 0 {
			add("%s.minInterval must be positive, got %s", path, d)
		} else {
			p.MinInterval = d
		}
	}
	if signalInterval <= 0 {
		add("%s needs the installation's routing.trafficSignal, which reads the model servers' load: it is not set", path)
	} else if p.MinInterval < signalInterval {
		add("%s.minInterval (%s) must be at least routing.trafficSignal.interval (%s): a share may not move faster than the signal that moves it",
			path, p.MinInterval, signalInterval)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}
