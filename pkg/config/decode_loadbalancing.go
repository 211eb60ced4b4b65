package config

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/loadbalance"
)

// LoadBalancingPath is where the installation's load balancing lives, for its messages.
const LoadBalancingPath = "routing.loadBalancing"

// rawLoadBalancing is routing.loadBalancing as decoded; minInterval stays raw until
// validate.
type rawLoadBalancing struct {
	spec        omev1beta1.RoutingLoadBalancing
	minInterval json.RawMessage
}

// loadBalancing decodes routing.loadBalancing; nil when it is absent, null or {} (the
// chart's default).
func (d *decoder) loadBalancing(raw json.RawMessage, path string) *rawLoadBalancing {
	if raw == nil {
		return nil
	}
	fields := d.object(raw, path, "mode", "waitingPerReplica", "cacheUsePercent", "minInterval", "maxStepPercent",
		"hysteresisPercent", "floorPercent", "disabled")
	if len(fields) == 0 {
		return nil
	}
	if _, ok := fields["disabled"]; ok {
		d.fail("%s.disabled is not supported in the installation's loadBalancing: leave %s out for none", path, path)
		return nil
	}
	lb := &rawLoadBalancing{minInterval: fields["minInterval"]}
	if mode := decodeValue[string](d, fields["mode"], path+".mode", "a string"); mode != nil {
		lb.spec.Mode = omev1beta1.LoadBalancingMode(*mode)
	}
	integer := func(key string) *int32 { return decodeValue[int32](d, fields[key], path+"."+key, "a 32-bit integer") }
	lb.spec.WaitingPerReplica, lb.spec.CacheUsePercent = integer("waitingPerReplica"), integer("cacheUsePercent")
	lb.spec.MaxStepPercent, lb.spec.HysteresisPercent, lb.spec.FloorPercent = integer("maxStepPercent"), integer("hysteresisPercent"), integer("floorPercent")
	return lb
}

// loadBalancing checks routing.loadBalancing with a service's rules against the
// installation's traffic signal; nil when it is unset or breaks a rule.
func (v *validator) loadBalancing(raw *rawLoadBalancing, path string, signalInterval time.Duration) *loadbalance.Policy {
	if raw == nil {
		return nil
	}
	d, ok := v.duration(raw.minInterval, path+".minInterval")
	if !ok {
		return nil
	}
	spec := raw.spec
	if d != nil {
		spec.MinInterval = &metav1.Duration{Duration: *d}
	}
	p, err := loadbalance.FromSpec(&spec, path, signalInterval)
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			v.add(e)
		}
		return nil
	}
	return p
}
