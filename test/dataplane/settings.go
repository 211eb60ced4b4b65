package dataplane

import (
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/trafficsignal"
	"github.com/ome-routing/operator/test/framework"
)

// Timing is the probe and capacity poll of the installation.
type Timing struct {
	// Period and Timeout are the probe's, and the capacity poll's.
	Period, Timeout time.Duration
	// FailureThreshold and SuccessThreshold are the probe's.
	FailureThreshold, SuccessThreshold int
}

// DefaultTiming probes every second: a gate closes three seconds after a cluster starts
// failing, and lifts two seconds after it recovers.
var DefaultTiming = Timing{Period: time.Second, Timeout: 500 * time.Millisecond, FailureThreshold: 3, SuccessThreshold: 2}

// settings is the manager's multi-cluster settings file: the routing guide's Step 1 probe
// with t's timing, a capacity poll on the servers' report path, an observer that may dial
// loopback (the model servers listen there; production keeps allowLoopback false), and
// the publisher's endpoint: the Gateway HAProxy Ingress runs, with the default backends,
// ExternalName Services, which HAProxy Ingress resolves itself. signal, when not nil, is
// the traffic signal.
func settings(t Timing, gateway string, backendPort int, signal *trafficsignal.Settings) (config.Config, error) {
	spec := framework.GuideProbe(t.Period, t.Timeout, omev1beta1.AllFailedPreserveTraffic)
	spec.FailureThreshold, spec.SuccessThreshold = new(int32(t.FailureThreshold)), new(int32(t.SuccessThreshold))
	probePolicy, poll, err := samples.InstallationPolicies(spec, t.Period, t.Timeout)
	if err != nil {
		return config.Config{}, err
	}
	return config.Config{
		Routing: config.Routing{
			Enabled: true, Probe: &probePolicy, Capacity: &poll, TrafficSignal: signal,
			Observer: framework.ObserverSettings(),
		},
		Endpoint: config.Endpoint{GlobalGateway: gateway, BackendPort: int32(backendPort), GlobalHostTemplate: HostTemplate},
	}, nil
}

// HostTemplate names each service's global host: what a client sends as Host.
const HostTemplate = "{{ .Name }}.{{ .Namespace }}.global.test"
