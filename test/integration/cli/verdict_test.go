package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// This file checks that every view answers the same about each home: the CRD's printer
// columns through the API server and kubectl, and the plugin's commands run as the built
// binary. Each scenario stores a TrafficMap as the manager writes it in that situation
// (serving states included); the views only read it.

// home is one entry of a scenario's map.
type home struct {
	cluster string
	weight  int32
	reason  omev1beta1.WeightReason
	state   omev1beta1.ServingState
	edit    func(*omev1beta1.TrafficMapEntry)
}

// scenario is a map as the manager writes it, and what the views must say of each home.
type scenario struct {
	name   string
	drains string // the service's drain annotation
	homes  []home
	status func(*omev1beta1.TrafficMapStatus)
	// stale is true when the plugin's views must say Stale over every home (the manager
	// stopped, or keeps the map frozen); the printer columns, which cannot tell, show the
	// state the manager last recorded, with the verdict's age.
	stale bool
}

func (sc scenario) write(ctx context.Context, isvc *omev1beta1.InferenceService, probed time.Time) {
	at := metav1.NewTime(probed.Truncate(time.Second))
	tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Name: isvc.Name, Namespace: isvc.Namespace},
		Spec: omev1beta1.TrafficMapSpec{Service: isvc.Name, Mode: omev1beta1.PlacementModeAll, ObservedISVCGeneration: isvc.Generation}}
	serving := int32(0)
	var states []string
	for _, h := range sc.homes {
		e := omev1beta1.TrafficMapEntry{Cluster: h.cluster, Endpoint: "https://chat." + h.cluster + ".example.com", Weight: h.weight,
			Healthy: h.weight > 0, WeightReason: h.reason, WeightMessage: "as the manager wrote it", Serving: h.state,
			Capacity: omev1beta1.TrafficMapCapacity{Allocated: 1, Ready: 1, Source: omev1beta1.CapacitySourceControlPlane},
			Probe:    &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbePassing, Message: "HTTP 200", LastProbeTime: &at}}
		if h.edit != nil {
			h.edit(&e)
		}
		tm.Spec.Entries = append(tm.Spec.Entries, e)
		if h.state == omev1beta1.ServingStateServing || h.state == omev1beta1.ServingStateUnobserved || h.state == omev1beta1.ServingStateStillServedAtZero {
			serving++
		}
		if h.state != omev1beta1.ServingStateServing {
			states = append(states, h.cluster+" "+string(h.state)+" "+h.reasonShown())
		}
	}
	Expect(controllerutil.SetControllerReference(isvc, tm, k8s.Scheme())).To(Succeed())
	Expect(k8s.Create(ctx, tm)).To(Succeed())
	s := &tm.Status
	s.SourceUID, s.Homes, s.ServingHomes = string(isvc.UID), ptr.To(int32(len(sc.homes))), ptr.To(serving)
	s.HomeStates, s.LastProbeTime, s.VerdictTime = strings.Join(states, " | "), &at, &at
	s.ProbePeriod = &metav1.Duration{Duration: time.Minute}
	s.RouteGeneration, s.ObservedTrafficMapGeneration, s.Published = tm.Generation, tm.Generation, true
	s.Conditions = []metav1.Condition{
		{Type: "Routable", Status: metav1.ConditionTrue, Reason: "Routable", ObservedGeneration: tm.Generation, LastTransitionTime: at},
		{Type: "Published", Status: metav1.ConditionTrue, Reason: "Published", ObservedGeneration: tm.Generation, LastTransitionTime: at},
		{Type: "SettingsAccepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: tm.Generation, LastTransitionTime: at},
	}
	if sc.status != nil {
		sc.status(s)
	}
	Expect(k8s.Status().Update(ctx, tm)).To(Succeed())
}

// reasonShown is the reason the views show with the home's state.
func (h home) reasonShown() string {
	if h.state == omev1beta1.ServingStateLeftOutOfRoute {
		return string(omev1beta1.LeftOutHostRefused)
	}
	return string(h.reason)
}

func condition(t, status, reason, message string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: message, ObservedGeneration: 1,
		LastTransitionTime: metav1.Now()}
}

func setCondition(s *omev1beta1.TrafficMapStatus, c metav1.Condition) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == c.Type {
			s.Conditions[i] = c
			return
		}
	}
	s.Conditions = append(s.Conditions, c)
}

var serving = func(cluster string) home {
	return home{cluster: cluster, weight: 1, reason: omev1beta1.WeightRouted, state: omev1beta1.ServingStateServing}
}

var scenarios = []scenario{
	{name: "lost update: the gateway still serves a gated home", homes: []home{serving("worker-a"),
		{cluster: "worker-b", reason: omev1beta1.WeightGated, state: omev1beta1.ServingStateStillServedAtZero}},
		status: func(s *omev1beta1.TrafficMapStatus) {
			setCondition(s, condition("TrafficApplied", "False", "StillServed", "The gateway still sends requests to 1 cluster(s) the route holds at weight 0"))
		}},
	{name: "guard refusal: the route leaves a weighted home out", homes: []home{serving("worker-a"),
		{cluster: "worker-b", weight: 1, reason: omev1beta1.WeightRouted, state: omev1beta1.ServingStateLeftOutOfRoute}},
		status: func(s *omev1beta1.TrafficMapStatus) {
			s.LeftOutOfRoute = []omev1beta1.LeftOutCluster{{Cluster: "worker-b", Reason: omev1beta1.LeftOutHostRefused, Message: "refused by the publish guard"}}
			setCondition(s, condition("RouteComplete", "False", "ClustersLeftOut", "worker-b"))
		}},
	{name: "stopped manager", stale: true, homes: []home{serving("worker-a"),
		{cluster: "worker-b", reason: omev1beta1.WeightGated, state: omev1beta1.ServingStateHeldOutUnconfirmed}}},
	{name: "unobserved member", homes: []home{serving("worker-a"),
		{cluster: "worker-b", weight: 1, reason: omev1beta1.WeightUnobserved, state: omev1beta1.ServingStateUnobserved,
			edit: func(e *omev1beta1.TrafficMapEntry) {
				e.UnobservedSince = &metav1.Time{Time: time.Now().Add(-time.Minute).Truncate(time.Second)}
			}}}},
	{name: "gate, confirmed by the gateway's counters", homes: []home{serving("worker-a"),
		{cluster: "worker-b", reason: omev1beta1.WeightGated, state: omev1beta1.ServingStateHeldOut}}},
	{name: "passive gate", homes: []home{serving("worker-a"),
		{cluster: "worker-b", reason: omev1beta1.WeightPassiveGated, state: omev1beta1.ServingStateHeldOutUnconfirmed}}},
	{name: "capacity cap", homes: []home{serving("worker-a"),
		{cluster: "worker-b", reason: omev1beta1.WeightCapacityCapped, state: omev1beta1.ServingStateHeldOutUnconfirmed}}},
	{name: "drain", drains: `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`,
		homes: []home{{cluster: "worker-a", reason: omev1beta1.WeightDrained, state: omev1beta1.ServingStateHeldOutUnconfirmed,
			edit: func(e *omev1beta1.TrafficMapEntry) { e.DrainRefs = []string{"maintenance-a"} }}, serving("worker-b")},
		status: func(s *omev1beta1.TrafficMapStatus) {
			setCondition(s, condition("OverrideActive", "True", "OverridesApplied",
				"1 of 1 traffic-drain annotation override(s) active across 1 route arm(s); inspect spec.entries[].drainRefs"))
		}},
	{name: "tier spill", homes: []home{
		{cluster: "worker-a", reason: omev1beta1.WeightGated, state: omev1beta1.ServingStateHeldOutUnconfirmed,
			edit: func(e *omev1beta1.TrafficMapEntry) { e.Tier = "east" }},
		{cluster: "worker-b", weight: 1, reason: omev1beta1.WeightSpilled, state: omev1beta1.ServingStateServing,
			edit: func(e *omev1beta1.TrafficMapEntry) { e.Tier = "west" }}}},
	{name: "frozen map", stale: true, homes: []home{serving("worker-a"),
		{cluster: "worker-b", reason: omev1beta1.WeightGated, state: omev1beta1.ServingStateHeldOutUnconfirmed}},
		status: func(s *omev1beta1.TrafficMapStatus) {
			setCondition(s, condition("SettingsAccepted", "False", "RoutingPolicyRefused", "spec.routing.probe.period: must be at least 1s"))
		}},
}

// columnStates reads a -o wide table's SERVING and STATES columns for the one row under
// the header: each home the STATES column names with its state, every other Serving.
func columnStates(table string, homes []home) (map[string]string, string) {
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	ExpectWithOffset(1, lines).To(HaveLen(2), table)
	header, row := lines[0], lines[1]
	cut := func(name, next string) string {
		from, to := strings.Index(header, " "+name+" ")+1, strings.Index(header, " "+next+" ")+1
		ExpectWithOffset(2, from).To(BeNumerically(">", 0), header)
		ExpectWithOffset(2, to).To(BeNumerically(">", from), header)
		return strings.TrimSpace(row[from:min(to, len(row))])
	}
	named := map[string]string{}
	for _, part := range strings.Split(cut("STATES", "MESSAGE"), " | ") {
		if f := strings.Fields(part); len(f) >= 2 {
			named[f[0]] = f[1]
		}
	}
	out := map[string]string{}
	for _, h := range homes {
		out[h.cluster] = string(omev1beta1.ServingStateServing)
		if s, ok := named[h.cluster]; ok {
			out[h.cluster] = s
		}
	}
	ExpectWithOffset(1, cut("VERDICT", "STATES")).NotTo(Equal("<none>"), "the verdict's age is shown")
	return out, cut("SERVING", "GATED")
}

// pluginJSON runs a plugin command with -o json and decodes its report.
func pluginJSON(ctx context.Context, into any, args ...string) {
	r := run(ctx, append(args, "-o", "json")...)
	ExpectWithOffset(1, r.code).To(BeZero(), r.stderr)
	ExpectWithOffset(1, json.Unmarshal([]byte(r.stdout), into)).To(Succeed(), r.stdout)
}

type servingJSON struct {
	Cluster string `json:"cluster"`
	Serving struct {
		State    string `json:"state"`
		Recorded string `json:"recorded"`
	} `json:"serving"`
}

var _ = Describe("one answer per home", func() {
	for _, sc := range scenarios {
		It("every view says the same of each home: "+sc.name, func(ctx context.Context) {
			kubectl := os.Getenv("KUBECTL")
			if kubectl == "" {
				Skip("KUBECTL is not set")
			}
			ns := newNamespace(ctx)
			isvc := newSource(ctx, ns, "chat", sc.drains)
			probed := time.Now().Add(-time.Second)
			if sc.name == "stopped manager" {
				// The manager stopped an hour ago: nothing has probed or judged since.
				probed = time.Now().Add(-time.Hour)
			}
			sc.write(ctx, isvc, probed)
			recorded, shown := map[string]string{}, map[string]string{}
			for _, h := range sc.homes {
				recorded[h.cluster] = string(h.state)
				shown[h.cluster] = string(h.state)
				if sc.stale {
					shown[h.cluster] = "Stale"
				}
			}

			By("the CRD's printer columns, through kubectl")
			cmd := exec.CommandContext(ctx, kubectl, "get", "trafficmap", "chat", "-n", ns, "-o", "wide")
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			columns, servingCount := columnStates(string(out), sc.homes)
			Expect(columns).To(Equal(recorded), string(out))

			By("kubectl ome get trafficmaps -o wide: the same columns")
			r := run(ctx, "get", "trafficmaps", "-n", ns, "-o", "wide")
			Expect(r.code).To(BeZero(), r.stderr)
			pluginColumns, pluginServing := columnStates(r.stdout, sc.homes)
			Expect(pluginColumns).To(Equal(recorded), r.stdout)
			Expect(pluginServing).To(Equal(servingCount))

			By("kubectl ome placement endpoint")
			var endpoint struct {
				Content struct {
					RouteHomes []servingJSON `json:"routeHomes"`
				} `json:"content"`
			}
			pluginJSON(ctx, &endpoint, "placement", "endpoint", "chat", "-n", ns)
			Expect(statesOf(endpoint.Content.RouteHomes)).To(Equal(shown))

			By("kubectl ome traffic status, the start-here view")
			var status struct {
				RouteHomes []servingJSON `json:"routeHomes"`
				Serving    struct {
					State string `json:"state"`
				} `json:"serving"`
			}
			pluginJSON(ctx, &status, "traffic", "status", "chat", "-n", ns)
			Expect(statesOf(status.RouteHomes)).To(Equal(shown))
			if sc.stale {
				Expect(status.Serving.State).To(Equal("Stale"))
				for _, h := range status.RouteHomes {
					Expect(h.Serving.Recorded).To(Equal(recorded[h.Cluster]), "a stale home still says what was last recorded")
				}
			}
			table := run(ctx, "traffic", "status", "chat", "-n", ns, "-o", "wide")
			Expect(table.code).To(BeZero(), table.stderr)
			for _, h := range sc.homes {
				Expect(table.stdout).To(ContainSubstring("Route home           "+h.cluster+"\n"), table.stdout)
				Expect(table.stdout).To(ContainSubstring("Serving state        "+shown[h.cluster]+": "), table.stdout)
			}
			if sc.name == "unobserved member" {
				Expect(table.stdout).To(ContainSubstring("Members unseen       1: the control plane cannot read worker-b"))
			}
		})
	}
})

func statesOf(homes []servingJSON) map[string]string {
	out := map[string]string{}
	for _, h := range homes {
		out[h.Cluster] = h.Serving.State
	}
	return out
}
