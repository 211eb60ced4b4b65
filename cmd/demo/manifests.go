package main

import (
	"errors"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// The service the demo routes, named as in the spec's examples so that the commands it
// prints are the ones a reader finds there.
const (
	serviceName = "qwen3-0-6b"
	serviceNS   = "qwen3-0-6b"
)

// workers are the workload clusters of the demo's fleet, in the order the map lists them.
var workers = []string{"worker-a", "worker-b"}

// Timing is how fast the story moves. The spec's examples probe every 10s or 30s; the demo
// uses short periods so that a gate closes in seconds, and the test shorter ones still.
type Timing struct {
	// Period and Timeout are the probe's period and timeout, in the manager's settings and
	// in the service's own probe.
	Period, Timeout time.Duration
	// Step bounds how long the story waits for each state before it gives up.
	Step time.Duration
	// Ready bounds how long the manager may take to report the WorkloadClusters Ready.
	Ready time.Duration
	// Poll is how often the story reads the TrafficMap while it waits.
	Poll time.Duration
}

// demoTiming makes the whole story take about a minute.
var demoTiming = Timing{Period: 2 * time.Second, Timeout: time.Second, Step: 60 * time.Second, Ready: 90 * time.Second, Poll: 250 * time.Millisecond}

// managerSettings is the multi-cluster settings file the manager reads: the spec's Step 1
// probe with the demo's timing, a capacity poll on /capacity with a quorum of two, an
// observer that may dial loopback, since the demo's model servers listen there (production
// keeps allowLoopback false), and the publisher's endpoint: the global Gateway, with the
// default backends, ExternalName Services, which HAProxy Ingress resolves and sends to on
// backendPort, the model servers' port. signal, when not nil, is the traffic signal.
func managerSettings(t Timing, backendPort int, signal *trafficsignal.Settings) ([]byte, error) {
	probePolicy, poll, err := samples.InstallationPolicies(samples.GuideProbe(t.Period, t.Timeout, omev1beta1.AllFailedPreserveTraffic), t.Period, t.Timeout)
	if err != nil {
		return nil, err
	}
	return config.Marshal(&config.Config{
		Routing: config.Routing{
			Enabled: true, Probe: &probePolicy, Capacity: &poll, TrafficSignal: signal,
			Observer: demoObserver(),
		},
		Endpoint: config.Endpoint{
			GlobalGateway: "gateway-system/global", BackendPort: int32(backendPort),
			GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com",
		},
	})
}

// demoObserver is a local run's observer settings with the chart's eight reconcile workers
// and private networks open too, as the demo has always run.
func demoObserver() config.Observer {
	o := samples.LocalObserver()
	o.MaxConcurrentReconciles, o.AllowPrivateNetworks = 8, true
	return o
}

// isvcManifest is the spec's Step 2 isvc.yaml with the demo's timing and the given
// allFailedPolicy. The story applies it with PreserveTraffic first, then with Drain.
func isvcManifest(t Timing, allFailedPolicy string) string {
	return isvcManifestWithRamp(t, allFailedPolicy, 0)
}

// passiveGateField is the passive gate "Your turn" offers in isvc-passive.yaml: enforced,
// a cluster held out once a fifth of at least 10 real requests over the signal's window
// fail, for 30 s at first.
var passiveGateField = samples.ProbeField{Name: "passiveGate", Value: "{mode: Enforce, failurePercent: 20, minRequests: 10, baseEjectionTime: 30s}"}

// isvcPassiveManifest is isvc.yaml under PreserveTraffic with passiveGateField added.
func isvcPassiveManifest(t Timing) string {
	return isvcManifestWith(t, string(omev1beta1.AllFailedPreserveTraffic), 0, passiveGateField)
}

// isvcManifestWithRamp is isvcManifest with the probe's optional rampUp, when positive.
// Both are config/samples/inferenceservice.yaml, the guide's isvc.yaml, with the demo's
// timing: the file a user applies is the one the demo applies.
func isvcManifestWithRamp(t Timing, allFailedPolicy string, rampUp time.Duration) string {
	return isvcManifestWith(t, allFailedPolicy, rampUp)
}

// isvcManifestWith is isvcManifestWithRamp with further probe fields.
func isvcManifestWith(t Timing, allFailedPolicy string, rampUp time.Duration, extra ...samples.ProbeField) string {
	fields := []samples.ProbeField{{Name: "period", Value: t.Period.String()}, {Name: "timeout", Value: t.Timeout.String()},
		{Name: "allFailedPolicy", Value: allFailedPolicy}}
	if rampUp > 0 {
		fields = append(fields, samples.ProbeField{Name: "rampUp", Value: rampUp.String()})
	}
	fields = append(fields, extra...)
	manifest, err := samples.GuideInferenceServiceWith(fields...)
	if err != nil {
		panic(err) // the sample is compiled in: a test of this package shows it at once
	}
	return manifest
}

// The demo's traffic signal: haproxy's exporter scraped every second, read every second
// over a 5-second window.
const (
	signalScrape   = time.Second
	signalInterval = time.Second
	signalWindow   = 5 * time.Second
	signalTimeout  = 500 * time.Millisecond
)

// signalSettings is the traffic signal for the Prometheus at url, with the shipped HAProxy
// queries; nil when there is none.
func signalSettings(url string) (*trafficsignal.Settings, error) {
	if url == "" {
		return nil, nil
	}
	requests, failures, err := samples.HAProxySignalQueries()
	if err != nil {
		return nil, err
	}
	// No minPeriod here: the manager checks the interval against its observer's.
	s, errs := trafficsignal.Validate(trafficsignal.Spec{URL: &url, Timeout: new(signalTimeout), Interval: new(signalInterval),
		Window: new(signalWindow), Requests: &requests, Failures: &failures}, trafficsignal.Path, 0)
	return s, errors.Join(errs...)
}
