package bounds

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/placement"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/text"
	"github.com/ome-routing/operator/pkg/trafficmap"
	"github.com/ome-routing/operator/pkg/trafficsignal"
	"github.com/ome-routing/operator/pkg/verdict"
)

// A driver computes, from extreme inputs, the values a group of fields is written with,
// through the same pure functions the manager's writers call, and returns the objects as
// the writer would write them (spec and status set).
type driver struct {
	// feeds says what input the case drives, for a reader of a failure.
	feeds string
	drive func(ctx context.Context, now time.Time) ([]client.Object, error)
}

var drivers = map[string]driver{
	"signal": {
		feeds: "Prometheus answers from a loopback HTTP server (0, 2^53, 2^53+2, 2^63, 1e308, NaN, +Inf, -Inf, -1, a 40 KiB error), " +
			"read through the observer, pkg/trafficsignal and pkg/passivegate, with records of 0, 999, 1000, 1001 gates in a row " +
			"and requests at math.MaxInt64",
		drive: driveSignal,
	},
	"load": {
		feeds: "load answers from a loopback HTTP server (every pair of waiting and cache use among 0, 0.5, 1, just over 1, 2^53, 2^63, " +
			"1e308, NaN, +Inf, -Inf, -1, a 40 KiB error) read through the load source, decided by pkg/loadbalance under the least and " +
			"the most damped policies from records at the floor, at 100 and at the largest pressure, into trafficmap.Build",
		drive: driveLoad,
	},
	"capacity": {
		feeds: "capacity reports from a loopback HTTP server (servable 0, 2^31-1, 2^31, 2^63, -1, a 40 KiB error) through the observer, " +
			"the Report format and the window, and member copies with 2^31-1, negative and math.MinInt32 replicas, into trafficmap.Build",
		drive: driveCapacity,
	},
	"entries": {
		feeds: "64 homes with 253-character names and 2048-character endpoints, probe states at math.MaxInt32 failures and beyond " +
			"the damping and ramp maxima, 64 drains of 253-character IDs, 9 failover tiers of 63-character names, long refusals, " +
			"through trafficmap.Build, drain.Apply, Explain and WithPortWarnings",
		drive: driveEntries,
	},
	"routing status": {
		feeds: "the routing status from the entries case's map: counts, 192 exclusions of 253-character clusters with 40 KiB messages, " +
			"noTraffic, the conditions with a 1 MiB refusal, the longest time.Duration as probePeriod, the largest generation",
		drive: driveRoutingStatus,
	},
	"publisher status": {
		feeds: "a route whose gateways report 8 parents with 1 KiB names, controllers and messages (publish.RouteParents), 16 backends " +
			"of 253-character clusters at the largest weight (publish.LastPositive), 32 claims of 63-character namespaces and " +
			"253-character names (publish.RouteClaim), 64 left-out clusters with long messages",
		drive: drivePublisherStatus,
	},
	"workloadcluster": {
		feeds: "a Ready condition carrying a 1 MiB connection error (text.ConditionMessage), at the largest generation",
		drive: driveWorkloadCluster,
	},
	"placement": {
		feeds: "the source service's status.placement phase from placement.Phase with 0 and 64 homes",
		drive: drivePlacement,
	},
}

// table names, for every bounded field the manager writes, the driver that feeds it.
var table = map[string]string{
	"TrafficMap.spec.entries[].passiveGate.count":        "signal",
	"TrafficMap.spec.entries[].passiveGate.failures":     "signal",
	"TrafficMap.spec.entries[].passiveGate.requests":     "signal",
	"TrafficMap.spec.entries[].passiveGate.lastLiftTime": "signal",
	"TrafficMap.spec.entries[].passiveGate.message":      "signal",
	"TrafficMap.spec.entries[].passiveGate.rampPercent":  "signal",
	"TrafficMap.spec.entries[].passiveGate.signal":       "signal",
	"TrafficMap.spec.entries[].passiveGate.since":        "signal",
	"TrafficMap.spec.entries[].passiveGate.until":        "signal",

	"TrafficMap.spec.entries[].load.changePressurePercent": "load",
	"TrafficMap.spec.entries[].load.headroomSharePercent":  "load",
	"TrafficMap.spec.entries[].load.lastChangeTime":        "load",
	"TrafficMap.spec.entries[].load.message":               "load",
	"TrafficMap.spec.entries[].load.mode":                  "load",
	"TrafficMap.spec.entries[].load.pressurePercent":       "load",
	"TrafficMap.spec.entries[].load.saturatedSharePercent": "load",
	"TrafficMap.spec.entries[].load.saturatedShareTime":    "load",
	"TrafficMap.spec.entries[].load.shadowWeight":          "load",
	"TrafficMap.spec.entries[].load.sharePercent":          "load",
	"TrafficMap.spec.entries[].load.signal":                "load",

	"TrafficMap.spec.entries[].capacity.allocated":      "capacity",
	"TrafficMap.spec.entries[].capacity.ready":          "capacity",
	"TrafficMap.spec.entries[].capacity.reported":       "capacity",
	"TrafficMap.spec.entries[].capacity.fallbackReason": "capacity",
	"TrafficMap.spec.entries[].capacity.source":         "capacity",
	"TrafficMap.spec.entries[].capacity.factor":         "capacity",

	"TrafficMap.spec.entries":                             "entries",
	"TrafficMap.spec.entries[].cluster":                   "entries",
	"TrafficMap.spec.entries[].endpoint":                  "entries",
	"TrafficMap.spec.entries[].weight":                    "entries",
	"TrafficMap.spec.entries[].weightReason":              "entries",
	"TrafficMap.spec.entries[].weightMessage":             "entries",
	"TrafficMap.spec.entries[].refused":                   "entries",
	"TrafficMap.spec.entries[].warning":                   "entries",
	"TrafficMap.spec.entries[].tier":                      "entries",
	"TrafficMap.spec.entries[].unobservedSince":           "entries",
	"TrafficMap.spec.entries[].drainRefs":                 "entries",
	"TrafficMap.spec.entries[].drainRefs[]":               "entries",
	"TrafficMap.spec.entries[].probe.consecutiveFailures": "entries",
	"TrafficMap.spec.entries[].probe.dampingFactor":       "entries",
	"TrafficMap.spec.entries[].probe.lastLiftTime":        "entries",
	"TrafficMap.spec.entries[].probe.lastProbeTime":       "entries",
	"TrafficMap.spec.entries[].probe.message":             "entries",
	"TrafficMap.spec.entries[].probe.policyDigest":        "entries",
	"TrafficMap.spec.entries[].probe.rampPercent":         "entries",
	"TrafficMap.spec.entries[].probe.result":              "entries",
	"TrafficMap.spec.failover.overprovisioningPercent":    "entries",
	"TrafficMap.spec.failover.summary":                    "entries",
	"TrafficMap.spec.failover.tiers":                      "entries",
	"TrafficMap.spec.failover.tiers[].health":             "entries",
	"TrafficMap.spec.failover.tiers[].loadPercent":        "entries",
	"TrafficMap.spec.failover.tiers[].name":               "entries",
	"TrafficMap.spec.allFailedPolicy":                     "entries",
	"TrafficMap.spec.mode":                                "entries",
	"TrafficMap.spec.placementPlanID":                     "entries",
	"TrafficMap.spec.service":                             "entries",

	"TrafficMap.status.conditions":                      "routing status",
	"TrafficMap.status.conditions[].message":            "routing status",
	"TrafficMap.status.conditions[].observedGeneration": "routing status",
	"TrafficMap.status.conditions[].reason":             "routing status",
	"TrafficMap.status.conditions[].status":             "routing status",
	"TrafficMap.status.conditions[].type":               "routing status",
	"TrafficMap.status.excludedClusters":                "routing status",
	"TrafficMap.status.excludedClusters[].cluster":      "routing status",
	"TrafficMap.status.excludedClusters[].message":      "routing status",
	"TrafficMap.status.excludedClusters[].reason":       "routing status",
	"TrafficMap.status.homes":                           "routing status",
	"TrafficMap.status.servingHomes":                    "routing status",
	"TrafficMap.status.homeStates":                      "routing status",
	"TrafficMap.spec.entries[].serving":                 "entries",
	"TrafficMap.status.gatedHomes":                      "routing status",
	"TrafficMap.status.refusedHomes":                    "routing status",
	"TrafficMap.status.wouldGateHomes":                  "routing status",
	"TrafficMap.status.rampingHomes":                    "routing status",
	"TrafficMap.status.warnedHomes":                     "routing status",
	"TrafficMap.status.noTraffic":                       "routing status",
	"TrafficMap.status.probePeriod":                     "routing status",
	"TrafficMap.status.probeRecordInterval":             "routing status",
	"TrafficMap.status.routeGeneration":                 "routing status",
	"TrafficMap.status.sourceUID":                       "routing status",

	"TrafficMap.status.gatewayRef.group":                               "publisher status",
	"TrafficMap.status.gatewayRef.kind":                                "publisher status",
	"TrafficMap.status.gatewayRef.name":                                "publisher status",
	"TrafficMap.status.gatewayRef.namespace":                           "publisher status",
	"TrafficMap.status.leftOutOfRoute":                                 "publisher status",
	"TrafficMap.status.leftOutOfRoute[].cluster":                       "publisher status",
	"TrafficMap.status.leftOutOfRoute[].message":                       "publisher status",
	"TrafficMap.status.leftOutOfRoute[].reason":                        "publisher status",
	"TrafficMap.status.publisher.acknowledgedPlacementPlanID":          "publisher status",
	"TrafficMap.status.publisher.claimedTargets":                       "publisher status",
	"TrafficMap.status.publisher.claimedTargets[]":                     "publisher status",
	"TrafficMap.status.publisher.lastPositive.observedISVCGeneration":  "publisher status",
	"TrafficMap.status.publisher.lastPositive.planCompatibilityDigest": "publisher status",
	"TrafficMap.status.publisher.lastPositive.targets":                 "publisher status",
	"TrafficMap.status.publisher.lastPositive.targets[].target":        "publisher status",
	"TrafficMap.status.publisher.lastPositive.targets[].weight":        "publisher status",
	"TrafficMap.status.publisher.lastPositive.trafficMapGeneration":    "publisher status",
	"TrafficMap.status.publisher.observedOptionsDigest":                "publisher status",
	"TrafficMap.status.publisher.publisherName":                        "publisher status",
	"TrafficMap.status.routeParents":                                   "publisher status",
	"TrafficMap.status.routeParents[].accepted":                        "publisher status",
	"TrafficMap.status.routeParents[].controller":                      "publisher status",
	"TrafficMap.status.routeParents[].message":                         "publisher status",
	"TrafficMap.status.routeParents[].parent":                          "publisher status",
	"TrafficMap.status.routeParents[].resolvedRefs":                    "publisher status",

	"WorkloadCluster.status.conditions[].message":            "workloadcluster",
	"WorkloadCluster.status.conditions[].observedGeneration": "workloadcluster",
	"WorkloadCluster.status.conditions[].reason":             "workloadcluster",
	"WorkloadCluster.status.conditions[].status":             "workloadcluster",
	"WorkloadCluster.status.conditions[].type":               "workloadcluster",

	"InferenceService.status.placement.phase": "placement",
}

// Extreme texts: the longest a source can send, with multi-byte characters so that a cut
// in the middle of one would show.
var (
	longText  = strings.Repeat("é", 20*1024)  // 40 KiB
	hugeText  = strings.Repeat("ü", 512*1024) // 1 MiB
	name253   = func(i int) string { return fmt.Sprintf("%03d-%s", i, strings.Repeat("c", 249)) }
	name63    = func(i int) string { return fmt.Sprintf("%02d%s", i, strings.Repeat("n", 61)) }
	maxInt32  = int32(math.MaxInt32)
	window    = time.Minute
	mapObject = func(name string) *omev1beta1.TrafficMap {
		return &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: omev1beta1.TrafficMapSpec{Service: name}}
	}
)

// loopback serves each path's answer from a real HTTP server on 127.0.0.1.
func loopback(answers map[string]func(w http.ResponseWriter)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path
		if q := r.URL.Query().Get("query"); q != "" {
			key = q
		}
		answer, ok := answers[key]
		if !ok {
			http.NotFound(w, r)
			return
		}
		answer(w)
	}))
}

// promSample is a Prometheus query answer of one sample of value v taken at now.
func promSample(now time.Time, v string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		_, _ = fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[%d.000,%q]}]}}`, now.Unix(), v)
	}
}

// promError is a Prometheus query error carrying 40 KiB of text.
func promError(w http.ResponseWriter) {
	w.WriteHeader(http.StatusUnprocessableEntity)
	_, _ = fmt.Fprintf(w, `{"status":"error","errorType":"execution","error":%q}`, longText)
}

func newObserver() (*observer.Observer, error) {
	return observer.New(observer.Options{MaxConcurrentRequests: 4, MaxResponseBytes: 1 << 20, AllowLoopback: true})
}

// driveSignal reads each extreme answer as the signal poller does, decides the passive
// gate on it from each extreme record, and records the decisions on one map's entries.
func driveSignal(ctx context.Context, now time.Time) ([]client.Object, error) {
	values := []string{"0", "1", "9007199254740992", "9007199254740994", "9223372036854775808", "1e308", "NaN", "+Inf", "-Inf", "-1", "0.5"}
	answers := map[string]func(http.ResponseWriter){"error": promError}
	for _, v := range values {
		answers[v] = promSample(now, v)
	}
	server := loopback(answers)
	defer server.Close()
	obs, err := newObserver()
	if err != nil {
		return nil, err
	}
	defer obs.Close()
	read := func(promql string) trafficsignal.Value {
		res := obs.Do(ctx, observer.Request{URL: trafficsignal.QueryURL(server.URL, promql, now), Timeout: 10 * time.Second,
			KeepBody: true, InstallerEndpoint: true})
		a := trafficsignal.Answer{Status: res.StatusCode, Body: res.Body, Truncated: res.Truncated}
		if res.Outcome != observer.OutcomeResponse {
			a.Err = res.Err
		}
		return trafficsignal.ParseAnswer(a, now, window)
	}
	var readings []passivegate.Reading
	for _, v := range append(values, "error") {
		r := trafficsignal.Reading(read(v), read(v), window)
		r.At = now
		readings = append(readings, r)
	}
	if !readings[0].Known {
		return nil, fmt.Errorf("the loopback server's answer of 0 was not read: %s", readings[0].Reason)
	}
	policy := passivegate.Policy{Mode: omev1beta1.ProbeModeEnforce, FailurePercent: 1, MinRequests: 1, MaxEjectionPercent: 100,
		BaseEjectionTime: time.Second, MaxEjectionTime: time.Hour, ResetAfter: time.Hour}
	ramp := probe.Policy{Period: time.Second, RampUp: time.Hour}
	records := []*omev1beta1.TrafficMapPassiveGate{nil,
		{Count: 999, LastLiftTime: ptr.To(metav1.NewTime(now.Add(-time.Second)))},
		{Count: 1000, LastLiftTime: ptr.To(metav1.NewTime(now.Add(-time.Second)))},
		{Count: 1001, LastLiftTime: ptr.To(metav1.NewTime(now.Add(-time.Second)))},
		{Gated: true, Count: 1000, Requests: ptr.To(int64(math.MaxInt64)), Failures: ptr.To(int64(math.MaxInt64)),
			Since: ptr.To(metav1.NewTime(now.Add(-2 * time.Hour))), Until: ptr.To(metav1.NewTime(now.Add(-time.Hour)))},
	}
	var homes []passivegate.Home
	var prevs []*omev1beta1.TrafficMapPassiveGate
	for _, r := range readings {
		for _, rec := range records {
			homes = append(homes, passivegate.Home{Cluster: fmt.Sprintf("c%03d", len(homes)), Capacity: math.MaxInt32, Reading: r,
				ProbePassing: true, State: passivegate.FromRecord(rec)})
			prevs = append(prevs, rec)
		}
	}
	var objects []client.Object
	decisions := passivegate.Decide(policy, homes, now)
	// The map holds 64 entries; the decisions fill as many maps as they need.
	for start := 0; start < len(decisions); start += trafficmap.MaxEntries {
		tm := mapObject(fmt.Sprintf("signal-%d", start))
		for j := start; j < min(start+trafficmap.MaxEntries, len(decisions)); j++ {
			d := decisions[j]
			rec := passivegate.Record(d, homes[j].Reading, policy.Enforced(), prevs[j])
			rec.RampPercent = policy.RampPercent(d.State, now, ramp.RampShare)
			tm.Spec.Entries = append(tm.Spec.Entries, omev1beta1.TrafficMapEntry{Cluster: d.Cluster, PassiveGate: rec})
		}
		objects = append(objects, tm)
	}
	// A lift an instant ago: the ramp's first step.
	lifted := passivegate.State{LastLift: now.Add(-time.Millisecond)}
	last := objects[len(objects)-1].(*omev1beta1.TrafficMap)
	last.Spec.Entries[0].PassiveGate.RampPercent = policy.RampPercent(lifted, now, ramp.RampShare)
	return objects, nil
}

// driveCapacity reads each extreme capacity report as the capacity poller does, and each
// extreme member copy as routing does, and builds a map's entries from them.
func driveCapacity(ctx context.Context, now time.Time) ([]client.Object, error) {
	servables := []string{"0", "2147483647", "2147483648", "9223372036854775808", "-1", "1e999"}
	answers := map[string]func(http.ResponseWriter){
		"/error": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusOK)
			_, _ = fmt.Fprintf(w, `{"servable":1,"observedAt":%q}`, longText)
		},
	}
	for _, s := range servables {
		answers["/"+s] = func(w http.ResponseWriter) {
			_, _ = fmt.Fprintf(w, `{"servable":%s,"observedAt":%q}`, s, now.Add(-time.Second).Format(time.RFC3339))
		}
	}
	server := loopback(answers)
	defer server.Close()
	obs, err := newObserver()
	if err != nil {
		return nil, err
	}
	defer obs.Close()
	format, ok := capacity.Lookup(capacity.FormatReport)
	if !ok {
		return nil, fmt.Errorf("no %s format", capacity.FormatReport)
	}
	policy := capacity.Policy{Format: capacity.FormatReport, Samples: 1, Quorum: 1, Period: time.Second, Timeout: 10 * time.Second, MaxAge: time.Hour}
	var ceilings []*capacity.Ceiling
	for _, s := range append(servables, "error") {
		res := obs.Do(ctx, observer.Request{URL: server.URL + "/" + s, Timeout: policy.Timeout, KeepBody: true})
		var w capacity.Window
		w.Observe(format.Interpret(res, now, policy), policy, now)
		c := w.Ceiling(policy, now)
		ceilings = append(ceilings, &c)
	}
	copies := []struct{ desired, ready int32 }{{maxInt32, maxInt32}, {-1, -1}, {math.MinInt32, math.MinInt32}, {maxInt32, 0}, {0, maxInt32}}
	// Every factor the API server takes on a service, the extremes among them; the ones
	// the manager's own parse refuses freeze the service and are never written.
	var accepted []resource.Quantity
	for _, f := range []string{"1000", "999.999", "0.001", "0", "1e3", "1000000000m", "0.0000000001", "1e-3", "1e-99", "0.5n", "0.0001", "1000.0001"} {
		if q, err := trafficmap.ParseCapacityFactor(omev1beta1.CapacityFactor(f)); err == nil {
			accepted = append(accepted, q)
		}
	}
	factors := map[string]resource.Quantity{}
	var homes []trafficmap.Home
	for i, c := range ceilings {
		for j, cp := range copies {
			name := fmt.Sprintf("c%02d-%d", i, j)
			member := &omev1beta1.InferenceService{Status: omev1beta1.InferenceServiceStatus{
				Components: &omev1beta1.ComponentsStatus{Engine: &omev1beta1.ComponentStatus{DesiredReplicas: cp.desired, ReadyReplicas: cp.ready}},
				Conditions: []metav1.Condition{{Type: omev1beta1.InferenceServiceIngressReady, Status: metav1.ConditionTrue}}}}
			reps := placement.CopyReplicas(member)
			homes = append(homes, trafficmap.Home{Cluster: name, Endpoint: "http://" + name + ".example.com", Allocated: reps.Allocated,
				Ready: reps.Ready, Ceiling: c})
			factors[name] = accepted[(i+j)%len(accepted)]
		}
	}
	result := trafficmap.Explain(trafficmap.Build(trafficmap.Input{Candidates: len(homes), Homes: homes, CapacityFactors: factors}), "")
	tm := mapObject("capacity")
	tm.Spec.Entries = result.Entries
	return []client.Object{tm}, nil
}

// probeRecords are probe records driven to their extremes through pkg/probe: failures in a
// row at math.MaxInt32 (restored, then one more), a damping factor and a ramp restored far
// past their maxima, flaps that push the damping factor up, and a lift into the ramp.
func probeRecords(now time.Time) []*omev1beta1.TrafficMapProbe {
	p := probe.Policy{Path: "/", Method: http.MethodGet, AcceptStatuses: []int32{200}, GateStatuses: []int32{503},
		Period: time.Second, Timeout: time.Second, FailureThreshold: 1, SuccessThreshold: 1,
		AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic, Mode: omev1beta1.ProbeModeEnforce,
		FlapDamping: &probe.FlapDamping{Window: time.Hour, MaxFactor: omev1beta1.MaxDampingFactor}, RampUp: time.Hour}
	digest := probe.Digest(p)
	failing, failMessage, _ := probe.Classify(observer.Result{Outcome: observer.OutcomeTransportError, Err: fmt.Errorf("%s", hugeText)}, p)
	passing, passMessage, _ := probe.Classify(observer.Result{Outcome: observer.OutcomeResponse, StatusCode: 200}, p)
	restored := probe.Seed(&omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbeFailing, Gated: true,
		ConsecutiveFailures: math.MaxInt32, DampingFactor: 1000, RampPercent: 1000,
		LastProbeTime: ptr.To(metav1.NewTime(now.Add(-time.Second))), LastLiftTime: ptr.To(metav1.NewTime(now.Add(-time.Minute)))}, digest)
	restored.Observe(failing, failMessage, now, p, digest)
	flapping := probe.Seed(nil, digest)
	at := now.Add(-time.Hour)
	for i := range 400 {
		if i%2 == 0 {
			flapping.Observe(failing, failMessage, at, p, digest)
		} else {
			flapping.Observe(passing, passMessage, at, p, digest)
		}
		at = at.Add(time.Second)
	}
	lifted := flapping
	for range 200 {
		lifted.Observe(passing, passMessage, at, p, digest)
		at = at.Add(time.Second)
	}
	shadow := restored
	shadowPolicy := p
	shadowPolicy.Mode = omev1beta1.ProbeModeShadow
	return []*omev1beta1.TrafficMapProbe{restored.RecordFor(p), flapping.RecordFor(p), lifted.RecordFor(p), shadow.RecordFor(shadowPolicy)}
}

// driveEntries builds the largest map routing can build: 64 homes, every text at its
// longest, every count at its largest.
func driveEntries(_ context.Context, now time.Time) ([]client.Object, error) {
	records := probeRecords(now)
	tiers := &failover.Assignment{TierOf: map[string]int{}, OverprovisioningPercent: 1000}
	for i := range 8 {
		tiers.Names = append(tiers.Names, name63(i))
	}
	tiers.Names = append(tiers.Names, omev1beta1.UnlistedTier)
	var homes []trafficmap.Home
	var drained []string
	for i := 0; len(homes) < trafficmap.MaxEntries; i++ {
		cluster := name253(i)
		// The longest endpoint routing takes from a member's copy (one longer is refused
		// and makes no home), on another port than the route's backend port.
		host := fmt.Sprintf("https://h%d.example.com:8443/", i)
		endpoint := host + strings.Repeat("p", placement.MaxEndpointLength-len(host))
		if placement.CheckEndpoint(endpoint) != nil || placement.CheckEndpoint(endpoint+"p") == nil {
			return nil, fmt.Errorf("placement.CheckEndpoint does not hold endpoints at %d characters", placement.MaxEndpointLength)
		}
		h := trafficmap.Home{Cluster: cluster, Endpoint: endpoint, Allocated: maxInt32, Ready: maxInt32,
			Probe: records[i%len(records)]}
		switch i % 8 {
		case 1:
			h.Refused = hugeText
		case 2:
			h.UnobservedSince = now
		case 3:
			h.Ready = 0
		case 4:
			drained = append(drained, cluster)
		}
		tiers.TierOf[cluster] = i % len(tiers.Names)
		homes = append(homes, h)
	}
	// 64 drains on one cluster: its entry holds every drainRef the map may hold.
	var overrides []drain.Override
	for i := range drain.MaxOverrides {
		overrides = append(overrides, drain.Override{ID: fmt.Sprintf("%02d%s", i, strings.Repeat("d", drain.MaxIDBytes-2)),
			Cluster: drained[0], Reason: longText})
	}
	result := trafficmap.Build(trafficmap.Input{Candidates: 1000, Homes: homes, AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic,
		Failover: tiers, Drained: drained})
	result = trafficmap.Explain(drain.Apply(result, overrides), omev1beta1.AllFailedPreserveTraffic)
	result.Entries = trafficmap.WithPortWarnings(result.Entries, true, 443)
	// Every serving state, judged by the one function the routing reconciler writes with.
	for i := range result.Entries {
		e := &result.Entries[i]
		h := verdict.Home{Weight: e.Weight, WeightReason: e.WeightReason, Published: i%7 != 6, Unobserved: i%5 == 4,
			Counters: verdict.Counters(i % 3)}
		if i%4 == 3 {
			h.LeftOut = &omev1beta1.LeftOutCluster{Cluster: e.Cluster, Reason: leftOutReason}
		}
		e.Serving = verdict.Judge(h).State
	}
	tm := mapObject(strings.Repeat("s", 253))
	tm.Spec = omev1beta1.TrafficMapSpec{Service: tm.Name, PlacementPlanID: trafficmap.PlanID(result.Entries), Mode: omev1beta1.PlacementModeSplit,
		ObservedISVCGeneration: math.MaxInt64, AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic, Failover: result.Failover, Entries: result.Entries}
	return []client.Object{tm}, nil
}

// driveRoutingStatus writes the routing share of the status on the largest map, with every
// list and text at its longest.
func driveRoutingStatus(ctx context.Context, now time.Time) ([]client.Object, error) {
	objects, err := driveEntries(ctx, now)
	if err != nil {
		return nil, err
	}
	tm := objects[0].(*omev1beta1.TrafficMap)
	tm.Name = "routing-status"
	entries := tm.Spec.Entries
	var excluded []omev1beta1.ExcludedCluster
	var clusters []omev1beta1.WorkloadCluster
	for i := range 2 * trafficmap.MaxExcludedClusters {
		wc := omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("x%03d%s", i, strings.Repeat("x", 249))}}
		wc.Status.Conditions = []metav1.Condition{{Type: omev1beta1.WorkloadClusterReady, Status: metav1.ConditionFalse,
			Reason: string(omev1beta1.WorkloadClusterReasonConnectionFailed), Message: hugeText}}
		clusters = append(clusters, wc)
	}
	excluded = placement.Unready(&omev1beta1.Placement{Policy: omev1beta1.PlacementPolicyClusterAffinity}, clusters)
	noTraffic := trafficmap.NoTraffic(entries, excluded, nil)
	if len(excluded) > trafficmap.MaxExcludedClusters {
		excluded = excluded[:trafficmap.MaxExcludedClusters]
	}
	count := func(has func(omev1beta1.TrafficMapEntry) bool) *int32 {
		n := int32(0)
		for _, e := range entries {
			if has(e) {
				n++
			}
		}
		return &n
	}
	every := func(omev1beta1.TrafficMapEntry) bool { return true }
	refusal := fmt.Errorf("spec.routing.probe: %s", hugeText)
	tm.Status = omev1beta1.TrafficMapStatus{
		SourceUID: string(types.UID(strings.Repeat("u", 128))),
		Homes:     count(every), GatedHomes: count(every), RefusedHomes: count(every), WouldGateHomes: count(every),
		RampingHomes: count(trafficmap.Ramping), WarnedHomes: count(func(e omev1beta1.TrafficMapEntry) bool { return e.Warning != "" }),
		LastProbeTime:       trafficmap.NewestProbeTime(entries),
		ProbePeriod:         &metav1.Duration{Duration: math.MaxInt64},
		ProbeRecordInterval: &metav1.Duration{Duration: math.MinInt64},
		RouteGeneration:     math.MaxInt64,
		ServingHomes:        ptr.To(int32(verdict.Summarize(entries, leftOutReasons(entries)).Serving)),
		HomeStates:          verdict.Summarize(entries, leftOutReasons(entries)).HomeStates,
		ExcludedClusters:    excluded,
		NoTraffic:           noTraffic,
		Conditions: []metav1.Condition{
			condition(omev1beta1.TrafficMapRoutable, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), hugeText, now),
			capacity.FallbackCondition(true, entries),
			condition(omev1beta1.TrafficMapSettingsAccepted, metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonRoutingPolicyRefused),
				text.ConditionMessage(refusal.Error()), now),
		},
	}
	for i := range tm.Status.Conditions {
		c := &tm.Status.Conditions[i]
		c.ObservedGeneration, c.LastTransitionTime = math.MaxInt64, metav1.NewTime(now)
		c.Message = text.ConditionMessage(c.Message)
	}
	return []client.Object{tm}, nil
}

func condition(t string, status metav1.ConditionStatus, reason, message string, now time.Time) metav1.Condition {
	return metav1.Condition{Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now)}
}

// drivePublisherStatus writes the publisher's share of the status at its extremes.
func drivePublisherStatus(_ context.Context, now time.Time) ([]client.Object, error) {
	routeNamespace := strings.Repeat("r", 63)
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: routeNamespace, Name: "route", Generation: math.MaxInt64}}
	for i := range 2 * publish.MaxRouteParents {
		section := gatewayv1.SectionName(strings.Repeat("s", 253))
		route.Status.Parents = append(route.Status.Parents, gatewayv1.RouteParentStatus{
			ParentRef: gatewayv1.ParentReference{Namespace: ptr.To(gatewayv1.Namespace(strings.Repeat("n", 63))),
				Name: gatewayv1.ObjectName(fmt.Sprintf("%d%s", i, strings.Repeat("g", 252))), SectionName: &section},
			ControllerName: gatewayv1.GatewayController(strings.Repeat("c", 1024)),
			Conditions: []metav1.Condition{
				{Type: string(gatewayv1.RouteConditionAccepted), Status: metav1.ConditionFalse, Reason: strings.Repeat("R", 1024), Message: hugeText},
				{Type: string(gatewayv1.RouteConditionResolvedRefs), Status: metav1.ConditionStatus(longText)},
			}})
	}
	var backends []publish.Backend
	for i := range publish.MaxEntries {
		backends = append(backends, publish.Backend{Cluster: name253(i), Weight: omev1beta1.MaxWeight})
	}
	plan := publish.Plan{Namespace: strings.Repeat("n", 63), Backends: backends}
	var claims []string
	for i := range publish.MaxClaims {
		claims = append(claims, publish.RouteClaim(types.NamespacedName{Namespace: fmt.Sprintf("%02d%s", i, strings.Repeat("n", 61)),
			Name: publish.RouteName(strings.Repeat("m", 63), strings.Repeat("s", 253), fmt.Sprintf("%02d%s", i, strings.Repeat("n", 61)))}))
	}
	var leftOut []omev1beta1.LeftOutCluster
	for i := range trafficmap.MaxEntries {
		leftOut = append(leftOut, omev1beta1.LeftOutCluster{Cluster: name253(i), Reason: omev1beta1.LeftOutHostRefused,
			Message: hugeText})
	}
	tm := mapObject("publisher-status")
	tm.Spec.Entries = []omev1beta1.TrafficMapEntry{{Cluster: "a", Weight: omev1beta1.MaxWeight}}
	tm.Status = omev1beta1.TrafficMapStatus{
		Published: true,
		GatewayRef: &omev1beta1.TrafficMapGatewayRef{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: routeNamespace,
			Name: publish.RouteName(strings.Repeat("m", 63), strings.Repeat("s", 253), routeNamespace)},
		ObservedTrafficMapGeneration: math.MaxInt64,
		Publisher: &omev1beta1.TrafficMapPublisherStatus{PublisherName: strings.Repeat("p", 128), ClaimedTargets: claims,
			ObservedOptionsDigest:       publish.OptionsDigest(strings.Repeat("p", 128), map[string]string{"k": hugeText}),
			AcknowledgedPlacementPlanID: trafficmap.PlanID(nil),
			LastPositive:                publish.LastPositive(plan, math.MaxInt64, math.MaxInt64)},
		LeftOutOfRoute: publish.SortedLeftOut(leftOut),
		RouteParents:   publish.RouteParents(route),
		Conditions:     []metav1.Condition{publish.RouteCompleteCondition(leftOut, math.MaxInt64)},
	}
	for i := range tm.Status.Conditions {
		tm.Status.Conditions[i].LastTransitionTime = metav1.NewTime(now)
	}
	return []client.Object{tm}, nil
}

// driveWorkloadCluster writes a Ready condition carrying the longest connection error.
func driveWorkloadCluster(_ context.Context, now time.Time) ([]client.Object, error) {
	wc := &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("w", 253)},
		Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
			SecretRef: omev1beta1.SecretReference{Namespace: namespace, Name: "kubeconfig"}}}}}
	wc.Status.ObservedGeneration = math.MaxInt64
	wc.Status.Conditions = []metav1.Condition{condition(omev1beta1.WorkloadClusterReady, metav1.ConditionFalse,
		string(omev1beta1.WorkloadClusterReasonConnectionFailed), text.ConditionMessage(hugeText), now)}
	wc.Status.Conditions[0].ObservedGeneration = math.MaxInt64
	return []client.Object{wc}, nil
}

// drivePlacement writes the source service's status.placement for no home and for many.
func drivePlacement(_ context.Context, _ time.Time) ([]client.Object, error) {
	var out []client.Object
	for _, homes := range []int{0, trafficmap.MaxEntries} {
		isvc := envfleet.SourceService(types.NamespacedName{Namespace: namespace, Name: fmt.Sprintf("placement-%d", homes)}, []string{"a"}, nil)
		isvc.Status.Placement = &omev1beta1.PlacementStatus{Phase: placement.Phase(homes)}
		out = append(out, isvc)
	}
	return out, nil
}

// leftOutReason is the reason the entries case's left-out homes carry.
const leftOutReason = omev1beta1.LeftOutHostRefused

// leftOutReasons is the reason the route leaves each home out, for every entry judged
// LeftOutOfRoute, as the routing reconciler reads it from the publisher's status.
func leftOutReasons(entries []omev1beta1.TrafficMapEntry) map[string]omev1beta1.LeftOutReason {
	out := map[string]omev1beta1.LeftOutReason{}
	for _, e := range entries {
		if e.Serving == omev1beta1.ServingStateLeftOutOfRoute {
			out[e.Cluster] = leftOutReason
		}
	}
	return out
}
