package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// Marshal writes c as the settings file that Parse reads, so that Parse(Marshal(c)) gives
// back c for every c that Parse returns. It is how a program that starts the manager
// writes the file, instead of a JSON template of its own that drifts from the decoder.
//
// Durations are written as Go durations ("2s"), and a setting at its zero value is left
// out, which Parse reads as unset: no probe, capacity, failover or trafficSignal key when
// there is none. Marshal does not validate: a Config that breaks a rule is written as it
// is, and Parse reports the rule.
//
// Two values are kept only in a derived form, so Marshal writes what they became:
//   - A trafficSignal read from prometheus.bearerTokenSecret keeps only the file the chart
//     mounts the Secret at, so it is written as bearerTokenFile with that path. The
//     manager reads the same token; the Secret's name and key are the chart's business.
//   - A passiveGate's ResetAfter is not a key: Parse derives it from flapDamping.window,
//     or else maxEjectionTime.
func Marshal(c *Config) ([]byte, error) {
	if c == nil {
		c = &Config{}
	}
	r := c.Routing
	doc := fileDoc{
		Routing: routingDoc{
			Enabled: r.Enabled, Probe: probeOf(r.Probe), Capacity: capacityOf(r.Capacity),
			Failover: failoverOf(r.Failover), Observer: observerOf(r.Observer),
			Publisher: publisherDoc{Name: r.Publisher.Name, ResyncInterval: duration(r.Publisher.ResyncInterval), Options: r.Publisher.Options,
				Retry: r.Publisher.Retry, Timeouts: r.Publisher.Timeouts},
		},
		Placement: placementDoc{ObservationGrace: duration(c.Placement.ObservationGrace)},
		Endpoint:  endpointOf(c.Endpoint),
	}
	if s := r.TrafficSignal; s != nil {
		signal, err := signalOf(s)
		if err != nil {
			return nil, err
		}
		doc.Routing.TrafficSignal = signal
	}
	if p := r.LoadBalancing; p != nil {
		doc.Routing.LoadBalancing = &loadDoc{Mode: string(p.Mode), WaitingPerReplica: p.WaitingPerReplica, CacheUsePercent: p.CacheUsePercent,
			MinInterval: duration(p.MinInterval), MaxStepPercent: p.MaxStepPercent, HysteresisPercent: p.HysteresisPercent, FloorPercent: p.FloorPercent}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	// Templates and host templates stay readable: no \u003c for "<" or "&".
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("write multi-cluster configuration: %w", err)
	}
	return out.Bytes(), nil
}

// The file's shape, key for key as the decoder reads it (decode*.go). omitzero leaves a
// zero value out; a nil map or slice too, but an empty one stays, so that [] and {} come
// back as the empty, non-nil values Parse gave.
type (
	fileDoc struct {
		Routing   routingDoc   `json:"routing"`
		Placement placementDoc `json:"placement,omitzero"`
		Endpoint  endpointDoc  `json:"endpoint,omitzero"`
	}
	routingDoc struct {
		Enabled       bool         `json:"enabled"`
		Probe         *probeDoc    `json:"probe,omitzero"`
		Capacity      *capacityDoc `json:"capacity,omitzero"`
		Failover      *failoverDoc `json:"failover,omitzero"`
		Observer      observerDoc  `json:"observer,omitzero"`
		Publisher     publisherDoc `json:"publisher,omitzero"`
		TrafficSignal *signalDoc   `json:"trafficSignal,omitzero"`
		LoadBalancing *loadDoc     `json:"loadBalancing,omitzero"`
	}
	loadDoc struct {
		Mode              string   `json:"mode"`
		WaitingPerReplica int32    `json:"waitingPerReplica,omitzero"`
		CacheUsePercent   int32    `json:"cacheUsePercent,omitzero"`
		MinInterval       duration `json:"minInterval"`
		MaxStepPercent    int32    `json:"maxStepPercent"`
		HysteresisPercent int32    `json:"hysteresisPercent"`
		FloorPercent      int32    `json:"floorPercent"`
	}
	placementDoc struct {
		ObservationGrace duration `json:"observationGrace,omitzero"`
	}
	observerDoc struct {
		MaxConcurrentReconciles int      `json:"maxConcurrentReconciles,omitzero"`
		MaxConcurrentRequests   int64    `json:"maxConcurrentRequests,omitzero"`
		MaxResponseBytes        int64    `json:"maxResponseBytes,omitzero"`
		MinPeriod               duration `json:"minPeriod,omitzero"`
		MaxPeriod               duration `json:"maxPeriod,omitzero"`
		MaxTimeout              duration `json:"maxTimeout,omitzero"`
		MaxSamples              int32    `json:"maxSamples,omitzero"`
		RecordInterval          duration `json:"recordInterval,omitzero"`
		AllowLoopback           bool     `json:"allowLoopback,omitzero"`
		AllowPrivateNetworks    bool     `json:"allowPrivateNetworks,omitzero"`
	}
	publisherDoc struct {
		Name           string            `json:"name,omitzero"`
		ResyncInterval duration          `json:"resyncInterval,omitzero"`
		Options        map[string]string `json:"options,omitempty"` // Parse keeps no empty map
		// The API's types, whose durations marshal in a form Parse reads.
		Retry    *omev1beta1.PublisherRetry    `json:"retry,omitempty"`
		Timeouts *omev1beta1.PublisherTimeouts `json:"timeouts,omitempty"`
	}
	endpointDoc struct {
		GlobalGateway        string            `json:"globalGateway,omitzero"`
		BackendPort          int32             `json:"backendPort,omitzero"`
		GlobalHostTemplate   string            `json:"globalHostTemplate,omitzero"`
		GlobalHostAnnotation string            `json:"globalHostAnnotation,omitzero"`
		RouteNamespace       string            `json:"routeNamespace,omitzero"`
		GatewayBackend       gatewayBackendDoc `json:"gatewayBackend,omitzero"`
	}
	gatewayBackendDoc struct {
		RewriteHostname bool      `json:"rewriteHostname,omitzero"`
		Kind            string    `json:"kind,omitzero"`
		TLS             tlsDoc    `json:"tls,omitzero"`
		EndpointSlices  slicesDoc `json:"endpointSlices,omitzero"`
	}
	slicesDoc struct {
		Enabled                bool     `json:"enabled,omitzero"`
		AddressRefreshInterval duration `json:"addressRefreshInterval,omitzero"`
	}
	tlsDoc struct {
		Enabled                 bool   `json:"enabled,omitzero"`
		WellKnownCACertificates string `json:"wellKnownCACertificates,omitzero"`
	}
)

// The probe's nine fields are required, so they are always written; a zero one is then
// Parse's to refuse, rather than to call missing.
type (
	probeDoc struct {
		Path             string          `json:"path"`
		Method           string          `json:"method"`
		AcceptStatuses   []int32         `json:"acceptStatuses"`
		GateStatuses     []int32         `json:"gateStatuses"`
		Period           duration        `json:"period"`
		Timeout          duration        `json:"timeout"`
		FailureThreshold int32           `json:"failureThreshold"`
		SuccessThreshold int32           `json:"successThreshold"`
		AllFailedPolicy  string          `json:"allFailedPolicy"`
		Mode             string          `json:"mode,omitzero"`
		FlapDamping      *flapDampingDoc `json:"flapDamping,omitzero"`
		RampUp           duration        `json:"rampUp,omitzero"`
		PassiveGate      *passiveGateDoc `json:"passiveGate,omitzero"`
	}
	flapDampingDoc struct {
		Window    duration `json:"window"`
		MaxFactor int32    `json:"maxFactor"`
	}
	// A validated passive gate has its defaults filled in; they are written out.
	passiveGateDoc struct {
		Mode               string   `json:"mode,omitzero"`
		FailurePercent     int32    `json:"failurePercent"`
		MinRequests        int64    `json:"minRequests,omitzero"`
		MaxEjectionPercent int32    `json:"maxEjectionPercent,omitzero"`
		BaseEjectionTime   duration `json:"baseEjectionTime,omitzero"`
		MaxEjectionTime    duration `json:"maxEjectionTime,omitzero"`
	}
	capacityDoc struct {
		Path    string            `json:"path"`
		Method  string            `json:"method"`
		Format  string            `json:"format"`
		Options map[string]string `json:"options,omitzero"`
		Samples int32             `json:"samples"`
		Quorum  int32             `json:"quorum"`
		Period  duration          `json:"period"`
		Timeout duration          `json:"timeout"`
		MaxAge  duration          `json:"maxAge"`
	}
	failoverDoc struct {
		Disabled                bool      `json:"disabled,omitzero"` // Parse refuses it, by name
		Tiers                   []tierDoc `json:"tiers,omitzero"`
		OverprovisioningPercent *int32    `json:"overprovisioningPercent,omitzero"`
	}
	// The API's own JSON tags say omitempty, which would turn an empty list into a missing
	// one; these keep what Parse read.
	tierDoc struct {
		Name            string       `json:"name"`
		Clusters        []string     `json:"clusters,omitzero"`
		ClusterSelector *selectorDoc `json:"clusterSelector,omitzero"`
	}
	selectorDoc struct {
		MatchLabels      map[string]string `json:"matchLabels,omitzero"`
		MatchExpressions []requirementDoc  `json:"matchExpressions,omitzero"`
	}
	requirementDoc struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitzero"`
	}
	signalDoc struct {
		Prometheus prometheusDoc `json:"prometheus"`
		Interval   duration      `json:"interval,omitzero"`
		Window     duration      `json:"window,omitzero"`
		Queries    queriesDoc    `json:"queries"`
	}
	prometheusDoc struct {
		URL             string   `json:"url"`
		BearerTokenFile string   `json:"bearerTokenFile,omitzero"`
		Timeout         duration `json:"timeout,omitzero"`
	}
	queriesDoc struct {
		Requests string `json:"requests"`
		Failures string `json:"failures"`
		Waiting  string `json:"waiting,omitzero"`
		CacheUse string `json:"cacheUse,omitzero"`
	}
)

// duration is written as a Go duration, in the installation's grammar: Go writes a
// microsecond as "µs", which the grammar spells "us".
type duration time.Duration

func (d duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(strings.ReplaceAll(time.Duration(d).String(), "µs", "us"))
}

func probeOf(p *probe.Policy) *probeDoc {
	if p == nil {
		return nil
	}
	doc := &probeDoc{
		Path: p.Path, Method: p.Method, AcceptStatuses: p.AcceptStatuses, GateStatuses: p.GateStatuses,
		Period: duration(p.Period), Timeout: duration(p.Timeout),
		FailureThreshold: p.FailureThreshold, SuccessThreshold: p.SuccessThreshold,
		AllFailedPolicy: string(p.AllFailedPolicy), Mode: string(p.Mode), RampUp: duration(p.RampUp),
	}
	if fd := p.FlapDamping; fd != nil {
		doc.FlapDamping = &flapDampingDoc{Window: duration(fd.Window), MaxFactor: fd.MaxFactor}
	}
	if pg := p.PassiveGate; pg != nil {
		doc.PassiveGate = &passiveGateDoc{
			Mode: string(pg.Mode), FailurePercent: pg.FailurePercent, MinRequests: pg.MinRequests,
			MaxEjectionPercent: pg.MaxEjectionPercent,
			BaseEjectionTime:   duration(pg.BaseEjectionTime), MaxEjectionTime: duration(pg.MaxEjectionTime),
		}
	}
	return doc
}

func capacityOf(p *capacity.Policy) *capacityDoc {
	if p == nil {
		return nil
	}
	return &capacityDoc{
		Path: p.Path, Method: p.Method, Format: p.Format, Options: p.Options, Samples: p.Samples, Quorum: p.Quorum,
		Period: duration(p.Period), Timeout: duration(p.Timeout), MaxAge: duration(p.MaxAge),
	}
}

func failoverOf(f *omev1beta1.RoutingFailover) *failoverDoc {
	if f == nil {
		return nil
	}
	doc := &failoverDoc{Disabled: f.Disabled, OverprovisioningPercent: f.OverprovisioningPercent}
	if f.Tiers != nil {
		doc.Tiers = make([]tierDoc, 0, len(f.Tiers))
	}
	for _, t := range f.Tiers {
		tier := tierDoc{Name: t.Name, Clusters: t.Clusters}
		if s := t.ClusterSelector; s != nil {
			tier.ClusterSelector = &selectorDoc{MatchLabels: s.MatchLabels}
			if s.MatchExpressions != nil {
				tier.ClusterSelector.MatchExpressions = make([]requirementDoc, 0, len(s.MatchExpressions))
			}
			for _, e := range s.MatchExpressions {
				tier.ClusterSelector.MatchExpressions = append(tier.ClusterSelector.MatchExpressions,
					requirementDoc{Key: e.Key, Operator: string(e.Operator), Values: e.Values})
			}
		}
		doc.Tiers = append(doc.Tiers, tier)
	}
	return doc
}

func observerOf(o Observer) observerDoc {
	return observerDoc{
		MaxConcurrentReconciles: o.MaxConcurrentReconciles, MaxConcurrentRequests: o.MaxConcurrentRequests,
		MaxResponseBytes: o.MaxResponseBytes, MinPeriod: duration(o.MinPeriod), MaxPeriod: duration(o.MaxPeriod),
		MaxTimeout: duration(o.MaxTimeout), MaxSamples: o.MaxSamples, RecordInterval: duration(o.RecordInterval),
		AllowLoopback: o.AllowLoopback, AllowPrivateNetworks: o.AllowPrivateNetworks,
	}
}

func endpointOf(e Endpoint) endpointDoc {
	doc := endpointDoc{
		GlobalGateway: e.GlobalGateway, BackendPort: e.BackendPort, GlobalHostTemplate: e.GlobalHostTemplate,
		GlobalHostAnnotation: string(e.GlobalHostAnnotation), RouteNamespace: e.RouteNamespace,
		GatewayBackend: gatewayBackendDoc{RewriteHostname: e.RewriteHostname, Kind: string(e.BackendKind)},
	}
	if e.BackendTLS {
		// The only CA set there is; Parse requires it with TLS on.
		doc.GatewayBackend.TLS = tlsDoc{Enabled: true, WellKnownCACertificates: WellKnownCASystem}
	}
	if e.EndpointSlices {
		doc.GatewayBackend.EndpointSlices = slicesDoc{Enabled: true, AddressRefreshInterval: duration(e.AddressRefreshInterval)}
	}
	return doc
}

func signalOf(s *trafficsignal.Settings) (*signalDoc, error) {
	requests, failures, err := signalQueries(s)
	if err != nil {
		return nil, err
	}
	waiting, cacheUse := s.LoadQueries()
	return &signalDoc{
		Prometheus: prometheusDoc{URL: s.URL, BearerTokenFile: s.TokenFile, Timeout: duration(s.Timeout)},
		Interval:   duration(s.Interval), Window: duration(s.Window),
		Queries: queriesDoc{Requests: requests, Failures: failures, Waiting: waiting, CacheUse: cacheUse},
	}, nil
}

// signalQueries returns the two templates as they were written.
func signalQueries(s *trafficsignal.Settings) (requests, failures string, err error) {
	requests, failures = s.Queries()
	if s.Requests == nil || s.Failures == nil || requests == "" || failures == "" {
		return "", "", errors.New("write multi-cluster configuration: routing.trafficSignal has no queries: build it with trafficsignal.Validate")
	}
	return requests, failures, nil
}
