package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

const testDigest = "sha256:2222222222222222222222222222222222222222222222222222222222222222"

// writeMap stores the TrafficMap the routing operator keeps for a service with worker-a
// drained and worker-b gated: entries, probe records and conditions as the operator writes
// them.
func writeMap(ctx context.Context, isvc *omev1beta1.InferenceService) {
	// Two minutes ago, within three of the map's one-minute probe periods: the manager is
	// not running here, and a map whose probes are older reads Stale.
	// Fifteen minutes ago, within three periods of ten: kubectl prints an age between 10
	// minutes and 3 hours in whole minutes, so "15m ago" holds for the minute the spec
	// has (a younger age prints its seconds, which the time the spec takes can move).
	probed := metav1.NewTime(time.Now().Add(-15 * time.Minute).Truncate(time.Second))
	tm := &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: isvc.Name, Namespace: isvc.Namespace},
		Spec: omev1beta1.TrafficMapSpec{Service: isvc.Name, Mode: omev1beta1.PlacementModeAll, ObservedISVCGeneration: isvc.Generation,
			Entries: []omev1beta1.TrafficMapEntry{
				{Cluster: "worker-a", Endpoint: "https://chat.worker-a.example.com/v1?key=secret", Weight: 0, Healthy: true,
					Capacity:  omev1beta1.TrafficMapCapacity{Allocated: 2, Ready: 2, Source: omev1beta1.CapacitySourceControlPlane},
					Probe:     &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbePassing, Message: "HTTP 200", LastProbeTime: &probed},
					DrainRefs: []string{"maintenance-a"}, WeightReason: omev1beta1.WeightDrained, Serving: omev1beta1.ServingStateHeldOutUnconfirmed,
					WeightMessage: "held at weight 0 by traffic-drain override(s) maintenance-a"},
				{Cluster: "worker-b", Endpoint: "https://chat.worker-b.example.com", Weight: 0, Healthy: false,
					Capacity: omev1beta1.TrafficMapCapacity{Allocated: 1, Ready: 1, Source: omev1beta1.CapacitySourceControlPlane},
					Probe: &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbeFailing, Message: "HTTP 503",
						Gated: true, ConsecutiveFailures: 3, LastProbeTime: &probed},
					WeightReason: omev1beta1.WeightGated, Serving: omev1beta1.ServingStateHeldOutUnconfirmed,
					WeightMessage: "gated by the routing probe after 3 failure(s) in a row; last probe Failing: HTTP 503"},
			}},
	}
	Expect(controllerutil.SetControllerReference(isvc, tm, k8s.Scheme())).To(Succeed())
	Expect(k8s.Create(ctx, tm)).To(Succeed())
	tm.Status.SourceUID = string(isvc.UID)
	tm.Status.ProbePeriod = &metav1.Duration{Duration: 10 * time.Minute}
	tm.Status.ServingHomes, tm.Status.VerdictTime = ptr.To[int32](0), &probed
	tm.Status.HomeStates = "worker-a HeldOutUnconfirmed Drained | worker-b HeldOutUnconfirmed Gated"
	tm.Status.ExcludedClusters = []omev1beta1.ExcludedCluster{{Cluster: "worker-c", Reason: omev1beta1.ExcludedClusterUnreachable,
		Message: "WorkloadCluster Ready is False (ConnectionFailed): dial tcp 10.0.0.9:6443: connect: connection refused"}}
	tm.Status.Conditions = []metav1.Condition{
		{Type: "Routable", Status: metav1.ConditionFalse, Reason: "TrafficDrain", Message: "manual traffic-drain overrides set all 2 route arm(s) to zero",
			ObservedGeneration: tm.Generation, LastTransitionTime: probed},
		{Type: "OverrideActive", Status: metav1.ConditionTrue, Reason: "OverridesApplied",
			Message:            "1 of 1 traffic-drain annotation override(s) active across 1 route arm(s); inspect spec.entries[].drainRefs",
			ObservedGeneration: tm.Generation, LastTransitionTime: probed},
		{Type: "SettingsAccepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: tm.Generation, LastTransitionTime: probed},
	}
	Expect(k8s.Status().Update(ctx, tm)).To(Succeed())
}

var _ = Describe("kubectl ome placement endpoint", func() {
	It("shows a drained and a gated cluster", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`)
		writeMap(ctx, isvc)

		r := run(ctx, "placement", "endpoint", "chat", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		Expect(r.stdout).To(Equal(`FIELD                VALUE
TrafficMap state     Observed
TrafficMap reason
Routing freshness    Current
Traffic override     True: OverridesApplied (Current)
Capacity fallback    Unknown: NotRecorded (Unverifiable)
Routable             False: TrafficDrain
Routable freshness   Current:
Published            Unknown: NotRecorded (Unverifiable)
Settings accepted    True: Accepted (Current)
Serving homes        0 of 2 home(s) take traffic; 0 weighted; judged 15m ago
Not serving          worker-a HeldOutUnconfirmed Drained | worker-b
                     HeldOutUnconfirmed Gated
Members unseen       1: the control plane cannot read worker-c
Route home           worker-a
Endpoint origin      https://chat.worker-a.example.com
Final weight         0; healthy=true
Serving state        HeldOutUnconfirmed: held out (Drained): the route holds
                     it at 0; the gateway's counters have not confirmed it
                     yet
Weight reason        Drained: held at weight 0 by traffic-drain override(s)
                     maintenance-a
Recorded probe       Passing: HTTP 200
Probe gate           False (Reported); failures=0
Last probed          15m ago
Route evidence       drains=1; gate=False; fallback=NotRecorded
Drain refs           maintenance-a
Probe policy         sha256:2222222222222222222222222222222222222222222222...
Route home           worker-b
Endpoint origin      https://chat.worker-b.example.com
Final weight         0; healthy=false
Serving state        HeldOutUnconfirmed: held out (Gated): the route holds it
                     at 0; the gateway's counters have not confirmed it yet
Weight reason        Gated: gated by the routing probe after 3 failure(s) in
                     a row; last probe Failing: HTTP 503
Recorded probe       Failing: HTTP 503
Probe gate           True (Reported); failures=3
Last probed          15m ago
Route evidence       drains=0; gate=True; fallback=NotRecorded
Drain refs           Validated
Probe policy         sha256:2222222222222222222222222222222222222222222222...
Excluded cluster     worker-c
Exclusion            ClusterUnreachable: WorkloadCluster Ready is False
                     (ConnectionFailed): dial tcp 10.0.0.9:6443: connect:
                     connection refused
Hint                 Recorded probes only; no CLI network probe
View                 Bounded cells; use -o json for complete identities
`))

		r = run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Capacity proven...   ControlPlane\nAllocated count      2 (Reported)\nReady count          2 (Reported)\nCapacity factor      NotRecorded\n"))
		Expect(r.stdout).To(ContainSubstring("Weight reason        Gated: gated by the routing probe after 3 failure(s) in a row; last probe Failing: HTTP 503\n"))
		Expect(r.stdout).To(ContainSubstring("Exclusion            ClusterUnreachable: WorkloadCluster Ready is False (ConnectionFailed): dial tcp 10.0.0.9:6443: connect: connection refused\n"))

		r = run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		var report struct {
			Kind    string `json:"kind"`
			Content struct {
				RouteHomes []struct {
					Cluster        string   `json:"cluster"`
					EndpointOrigin string   `json:"endpointOrigin"`
					PathPresent    bool     `json:"pathPresent"`
					DrainRefs      []string `json:"drainRefs"`
					Probe          struct {
						PolicyDigest string `json:"policyDigest"`
						Gated        bool   `json:"gated"`
					} `json:"probe"`
					WeightReason  string `json:"weightReason"`
					WeightMessage string `json:"weightMessage"`
				} `json:"routeHomes"`
				ExcludedClusters []struct {
					Cluster string `json:"cluster"`
					Reason  string `json:"reason"`
				} `json:"excludedClusters"`
			} `json:"content"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &report)).To(Succeed())
		Expect(report.Kind).To(Equal("PlacementEndpointReport"))
		Expect(report.Content.RouteHomes).To(HaveLen(2))
		Expect(report.Content.RouteHomes[0].Probe.PolicyDigest).To(Equal(testDigest), "json is uncut")
		Expect(report.Content.RouteHomes[0].PathPresent).To(BeTrue())
		Expect(report.Content.RouteHomes[0].DrainRefs).To(Equal([]string{"maintenance-a"}))
		Expect(report.Content.RouteHomes[1].Probe.Gated).To(BeTrue())
		Expect(report.Content.RouteHomes[1].WeightReason).To(Equal("Gated"))
		Expect(report.Content.RouteHomes[0].WeightMessage).To(Equal("held at weight 0 by traffic-drain override(s) maintenance-a"))
		Expect(report.Content.ExcludedClusters).To(HaveLen(1))
		Expect(report.Content.ExcludedClusters[0].Reason).To(Equal("ClusterUnreachable"))
		Expect(r.stdout).NotTo(ContainSubstring("secret"))

		r = run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", "yaml")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("policyDigest: " + testDigest))
	})

	It("reports a missing map and refuses a missing service", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "nomap", "")
		r := run(ctx, "placement", "endpoint", "nomap", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(HavePrefix("FIELD                VALUE\nTrafficMap state     Unavailable\nTrafficMap reason    NotFound\n"))

		r = run(ctx, "placement", "endpoint", "absent", "-n", ns)
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(Equal("error: InferenceService read unavailable: NotFound (get inferenceservices " + ns + "/absent)\n"))
		refused(run(ctx, "placement", "endpoint", "nomap", "-n", ns, "-o", "name"), "output must be table, wide, json or yaml")
		explained(run(ctx, "placement", "endpoint", "-n", ns), "exactly one inference service is required",
			"got 0 arguments; pass the InferenceService's name once")
		explained(run(ctx, "placement", "endpoint", "nomap", "-n", ns, "--bogus"), "invalid placement flags; use --help", "unknown flag: --bogus")
		refused(run(ctx, "placement", "endpoint", "No_Map", "-n", ns), "invalid inference service name")
	})

	It("says what the manager has not observed yet, and wraps a long probe message", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`)
		writeMap(ctx, isvc)
		tm := &omev1beta1.TrafficMap{}
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(isvc), tm)).To(Succeed())
		tm.Spec.Entries[1].Probe.Message = `transport error: Get "http://worker-b.demo.test:31234/v1/models": dial tcp 127.0.0.1:31234: connect: connection refused`
		Expect(k8s.Update(ctx, tm)).To(Succeed())

		r := run(ctx, "placement", "endpoint", "chat", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Recorded probe       Failing: transport error: Get\n" +
			`                     "http://worker-b.demo.test:31234/v1/models": dial tcp` + "\n" +
			"                     127.0.0.1:31234: connect: connection refused\n"))
		r = run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", "wide")
		Expect(r.stdout).To(ContainSubstring("Recorded probe       Failing: " + tm.Spec.Entries[1].Probe.Message + "\n"))

		By("a second drain the manager (not running here) has not seen: the generation does not move")
		current := get(ctx, ns, "chat")
		current.Annotations[drainKey] = `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"},"b":{"cluster":"worker-b","reason":"r"}}`
		Expect(k8s.Update(ctx, current)).To(Succeed())
		Expect(get(ctx, ns, "chat").Generation).To(Equal(isvc.Generation))
		r = run(ctx, "placement", "endpoint", "chat", "-n", ns)
		Expect(r.stdout).To(ContainSubstring("Routing freshness    Stale: ome.io/traffic-drain change not observed yet\n" +
			"Traffic override     True: OverridesApplied (Stale)\n"))

		By("a change of the spec")
		current = get(ctx, ns, "chat")
		current.Spec.Runtime.Name = "srt-other"
		Expect(k8s.Update(ctx, current)).To(Succeed())
		r = run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", "json")
		var report struct {
			Content struct {
				RoutingFreshness   string `json:"routingFreshness"`
				RoutingStaleReason string `json:"routingStaleReason"`
			} `json:"content"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &report)).To(Succeed())
		Expect(report.Content.RoutingFreshness).To(Equal("Stale"))
		Expect(report.Content.RoutingStaleReason).To(Equal(fmt.Sprintf("generation %d not observed yet (map built from %d)", isvc.Generation+1, isvc.Generation)))
	})

	It("shows OverrideActive in kubectl's OVERRIDE column", func(ctx context.Context) {
		kubectl := os.Getenv("KUBECTL")
		if kubectl == "" {
			Skip("KUBECTL is not set")
		}
		ns := newNamespace(ctx)
		writeMap(ctx, newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`))
		cmd := exec.CommandContext(ctx, kubectl, "get", "trafficmap", "chat", "-n", ns, "-o", "custom-columns=OVERRIDE:.status.conditions[?(@.type==\"OverrideActive\")].status")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(Equal("OVERRIDE\nTrue\n"))
		cmd = exec.CommandContext(ctx, kubectl, "get", "trafficmap", "chat", "-n", ns)
		cmd.Env = env
		out, err = cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(MatchRegexp(`NAME\s+MODE\s+PUBLISHED\s+ROUTABLE\s+OVERRIDE\s+REASON\s+AGE\nchat\s+All\s+False\s+True\s+TrafficDrain\s`))
	})

	It("is found by kubectl as a plugin on PATH", func(ctx context.Context) {
		kubectl := os.Getenv("KUBECTL")
		if kubectl == "" {
			Skip("KUBECTL is not set")
		}
		ns := newNamespace(ctx)
		newSource(ctx, ns, "viakubectl", "")
		cmd := exec.CommandContext(ctx, kubectl, "ome", "placement", "endpoint", "viakubectl", "-n", ns)
		cmd.Env = append(env, "PATH="+filepath.Dir(plugin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring("TrafficMap reason    NotFound"))
	})
})

var _ = Describe("kubectl ome traffic status", func() {
	It("marks a drained home's weight Reported and never claims Observed", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`)
		writeMap(ctx, isvc)
		r := run(ctx, "traffic", "status", "chat", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Route home           worker-a\nWeight               0 (Reported); Drained\n"))
		Expect(r.stdout).To(ContainSubstring("Drain refs           maintenance-a (Reported)\nAnnotation drains    maintenance-a (Computed)\n"))
		Expect(r.stdout).To(ContainSubstring("Observed             NotObserved: "))
	})
	It("marks the gateway's own counters Observed: the map's TrafficApplied verdict and a home's passive-gate reading", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`)
		writeMap(ctx, isvc)
		tm := &omev1beta1.TrafficMap{}
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(isvc), tm)).To(Succeed())
		tm.Spec.Entries[1].PassiveGate = &omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown,
			Requests: ptr.To[int64](90), Failures: ptr.To[int64](30)}
		Expect(k8s.Update(ctx, tm)).To(Succeed())
		tm.Status.Conditions = append(tm.Status.Conditions, metav1.Condition{Type: omev1beta1.TrafficMapTrafficApplied, Status: metav1.ConditionTrue,
			Reason: "TrafficMoved", Message: "The gateway sends no request to the 2 cluster(s) the route holds at weight 0",
			ObservedGeneration: tm.Generation, LastTransitionTime: metav1.Now()})
		Expect(k8s.Status().Update(ctx, tm)).To(Succeed())
		r := run(ctx, "traffic", "status", "chat", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Annotation drains    None (Computed)\nServing state        HeldOutUnconfirmed: held out (Gated): the route holds it at 0; " +
			"the gateway's counters have not confirmed it yet\nRequests             90, 30 failed, over the signal's window (Observed)\n"))
		Expect(r.stdout).To(ContainSubstring("Observed             Observed: TrafficApplied True TrafficMoved: The gateway sends no request to the 2 cluster(s) the route holds at weight 0\n"))
	})
	It("reports a missing TrafficMap and exits 0", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", "")
		r := run(ctx, "traffic", "status", "chat", "-n", ns, "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		var out map[string]any
		Expect(json.Unmarshal([]byte(r.stdout), &out)).To(Succeed())
		Expect(out["kind"]).To(Equal("TrafficStatusReport"))
		Expect(out["trafficMap"]).To(HaveKeyWithValue("reason", "NotFound"))
	})
	It("exits 1 for a bad output flag and a missing service", func(ctx context.Context) {
		ns := newNamespace(ctx)
		r := run(ctx, "traffic", "status", "chat", "-n", ns, "-o", "xml")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(Equal("error: output must be table, wide, json or yaml\n"))
		r = run(ctx, "traffic", "status", "missing", "-n", ns)
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(HavePrefix("error: InferenceService read unavailable: NotFound"))
	})
})
