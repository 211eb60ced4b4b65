package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/framework"
)

// placeOn writes the status.placement the control plane keeps for a service: worker-a
// admitted with its copy's address, worker-b admitting.
func placeOn(ctx context.Context, isvc *omev1beta1.InferenceService) {
	isvc.Status.Placement = &omev1beta1.PlacementStatus{Phase: omev1beta1.PlacementPhasePlaced, Candidates: []omev1beta1.PlacementCandidate{
		{Cluster: "worker-a", Endpoint: "https://chat.worker-a.example.com/v1?key=secret", AdmittedReplicas: 2, ReadyReplicas: 1},
		{Cluster: "worker-b"},
	}}
	Expect(k8s.Status().Update(ctx, isvc)).To(Succeed())
}

// registerCluster registers a WorkloadCluster with the Ready condition the manager would
// have written for its generation, and removes it after the spec, so that the other
// specs see the suite's clusters only.
func registerCluster(ctx context.Context, name string, ready metav1.ConditionStatus, reason string) {
	wc := temporaryCluster(ctx, name)
	wc.Status.ObservedGeneration = wc.Generation
	wc.Status.Conditions = []metav1.Condition{{Type: omev1beta1.WorkloadClusterReady, Status: ready, Reason: reason, Message: "as written by the test",
		ObservedGeneration: wc.Generation, LastTransitionTime: metav1.Now()}}
	Expect(k8s.Status().Update(ctx, wc)).To(Succeed())
}

// temporaryCluster registers a WorkloadCluster without a status for the spec.
func temporaryCluster(ctx context.Context, name string) *omev1beta1.WorkloadCluster {
	wc := &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
			SecretRef: omev1beta1.SecretReference{Name: name, Namespace: "ome"}}}}}
	Expect(k8s.Create(ctx, wc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(k8s.Delete(ctx, wc)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(wc), &omev1beta1.WorkloadCluster{}))
		}, timeout, interval).Should(BeTrue())
	})
	return wc
}

// routedService creates a service placed on explain-down and explain-up with the given
// routing settings.
func routedService(ctx context.Context, ns, name string, routing *omev1beta1.Routing) {
	Expect(k8s.Create(ctx, envfleet.SourceService(client.ObjectKey{Namespace: ns, Name: name}, []string{"explain-down", "explain-up"}, routing))).To(Succeed())
}

var _ = Describe("kubectl ome placement status", func() {
	It("shows each home, admitted or admitting, with the map's state", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`)
		writeMap(ctx, isvc)
		placeOn(ctx, isvc)

		r := run(ctx, "placement", "status", "chat", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		Expect(r.stdout).To(Equal(`FIELD                VALUE
Mode                 All (Declared)
Placement            Placed (reported)
Freshness            Unverifiable
Input source         Structured
Selectors            Valid
Reported cluster
Endpoint origin      NotRecorded
Service origin       NotRecorded
Home inspection      Validated 2/2; truncated=false
Provenance inspect   NotRecorded 0/2; truncated=false
TrafficMap state     Observed
TrafficMap reason
Routing freshness    Current
Serving homes        0 of 2 home(s) take traffic; 0 weighted; judged 15m ago
Not serving          worker-a HeldOutUnconfirmed Drained | worker-b
                     HeldOutUnconfirmed Gated
Members unseen       1: the control plane cannot read worker-c
Reported home        worker-a (Admitted)
Home origin          https://chat.worker-a.example.com
Serving state        HeldOutUnconfirmed (Drained)
Reported home        worker-b (Admitting)
Home origin          NotRecorded
Serving state        HeldOutUnconfirmed (Gated)
Hint                 Placed does not prove replica floor met
View                 Bounded cells; use -o json for complete identities
`))

		r = run(ctx, "placement", "status", "chat", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`Reported home        worker-a (Admitted)
Home origin          https://chat.worker-a.example.com
Serving state        HeldOutUnconfirmed (Drained)
Admitted replicas    2 (Reported)
Ready replicas       1 (Reported)
Provenance           NotRecorded
Policy inspection    NotRecorded 0/0; truncated=false
Group inspection     NotRecorded 0/0; truncated=false
Reported home        worker-b (Admitting)
Home origin          NotRecorded
Serving state        HeldOutUnconfirmed (Gated)
Admitted replicas    Unknown
Ready replicas       Unknown
`))

		r = run(ctx, "placement", "status", "chat", "-n", ns, "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		var report struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Content    struct {
				Homes []struct {
					Cluster     string `json:"cluster"`
					State       string `json:"state"`
					PathPresent bool   `json:"pathPresent"`
				} `json:"homes"`
				Issues []string `json:"issues"`
			} `json:"content"`
			Warnings []string `json:"warnings"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &report)).To(Succeed())
		Expect(report.APIVersion).To(Equal("cli.ome.io/v1alpha1"))
		Expect(report.Kind).To(Equal("PlacementStatusReport"))
		Expect(report.Content.Homes).To(HaveLen(2))
		Expect(report.Content.Homes[0].PathPresent).To(BeTrue())
		Expect(report.Content.Issues).To(BeEmpty())
		Expect(report.Warnings).NotTo(BeNil())
		Expect(r.stdout).NotTo(ContainSubstring("secret"))

		r = run(ctx, "placement", "status", "chat", "-n", ns, "-o", "yaml")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("kind: PlacementStatusReport\n"))
	})

	It("previews more than four homes and reads a service not placed yet", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "wide", "")
		isvc.Status.Placement = &omev1beta1.PlacementStatus{Phase: omev1beta1.PlacementPhasePending}
		for _, c := range []string{"worker-f", "worker-e", "worker-d", "worker-c", "worker-b", "worker-a"} {
			isvc.Status.Placement.Candidates = append(isvc.Status.Placement.Candidates, omev1beta1.PlacementCandidate{Cluster: c})
		}
		Expect(k8s.Status().Update(ctx, isvc)).To(Succeed())
		r := run(ctx, "placement", "status", "wide", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Placement            Pending (reported)\n"))
		Expect(r.stdout).To(ContainSubstring("TrafficMap state     Unavailable\nTrafficMap reason    NotFound\nRouting freshness    Unavailable\n" +
			"Homes                4/6; use -o wide or json\nReported home        worker-a (Admitting)\n"))
		Expect(r.stdout).NotTo(ContainSubstring("worker-e"))
		r = run(ctx, "placement", "status", "wide", "-n", ns, "-o", "wide")
		Expect(r.stdout).To(ContainSubstring("Reported home        worker-f (Admitting)\n"))
		Expect(r.stdout).NotTo(ContainSubstring("Homes "))

		newSource(ctx, ns, "fresh", "")
		r = run(ctx, "placement", "status", "fresh", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Placement            NotRecorded\n"))
		Expect(r.stdout).To(ContainSubstring("Home inspection      NotRecorded 0/0; truncated=false\n"))
	})
})

var _ = Describe("kubectl ome placement status and explain refusals", func() {
	It("exit 1 for a missing service, a bad name, output or flag, and complete the service name", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", "")
		newSource(ctx, ns, "checkout", "")
		for _, sub := range []string{"status", "explain"} {
			refused(run(ctx, "placement", sub, "absent", "-n", ns), "InferenceService read unavailable: NotFound (get inferenceservices "+ns+"/absent)")
			refused(run(ctx, "placement", sub, "chat", "-n", ns, "-o", "name"), "output must be table, wide, json or yaml")
			explained(run(ctx, "placement", sub, "-n", ns), "exactly one inference service is required",
				"got 0 arguments; pass the InferenceService's name once")
			explained(run(ctx, "placement", sub, "chat", "-n", ns, "--bogus"), "invalid placement flags; use --help", "unknown flag: --bogus")
			refused(run(ctx, "placement", sub, "No_Chat", "-n", ns), "invalid inference service name")

			r := run(ctx, "__complete", "placement", sub, "-n", ns, "ch")
			Expect(r.code).To(BeZero(), r.stderr)
			Expect(strings.Split(strings.TrimSpace(r.stdout), "\n")).To(Equal([]string{"chat", "checkout", ":4"}), sub)
			r = run(ctx, "__complete", "placement", sub, "chat", "-o", "")
			Expect(strings.Split(strings.TrimSpace(r.stdout), "\n")).To(Equal([]string{"table", "wide", "json", "yaml", ":4"}), sub)
		}
	})
})

var _ = Describe("kubectl ome placement explain", func() {
	It("shows the routing settings and each WorkloadCluster's selector match and readiness", func(ctx context.Context) {
		registerCluster(ctx, "explain-down", metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed))
		registerCluster(ctx, "explain-up", metav1.ConditionTrue, string(omev1beta1.WorkloadClusterReasonReachable))
		ns := newNamespace(ctx)
		routedService(ctx, ns, "probed", &omev1beta1.Routing{
			Probe:           framework.GuideProbe(10*time.Second, 2*time.Second, omev1beta1.AllFailedPreserveTraffic),
			Capacity:        &omev1beta1.RoutingCapacitySpec{Disabled: true},
			CapacityFactors: map[string]omev1beta1.CapacityFactor{"explain-up": "1.5"},
			Failover: &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{
				{Name: "east", Clusters: []string{"explain-up"}}, {Name: "west", Clusters: []string{"explain-down"}}}},
		})

		r := run(ctx, "placement", "explain", "probed", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		Expect(r.stdout).To(HavePrefix(`FIELD                VALUE
Routing intent       Declared
Routing enablement   Inherited
Install routing      Gate/defaults unobserved
Capacity factors     Routing (1)
Routing probe        Configured
Capacity poll        Disabled
Failover             Configured (2 tiers)
Publisher options    Inherited (0)
Fleet state          Observed
Fleet reason
Fleet Returned       5
Fleet Admitted       5
Fleet Pages          1
Fleet Complete       true
Fleet Truncated      false
Clusters             4/5; use -o wide or json
Cluster              explain-down
Selector compat...   True
Reported WLC Ready   False (Current)
Condition inspect    Validated 1/1; truncated=false
Cluster              explain-up
Selector compat...   True
Reported WLC Ready   True (Current)
Condition inspect    Validated 1/1; truncated=false
Cluster              worker-a
Selector compat...   False
`))
		Expect(r.stdout).To(HaveSuffix("Hint                 WLC Ready is reachability, not capacity\n" +
			"View                 Bounded cells; use -o json for complete identities\n"))
		Expect(r.stdout).NotTo(ContainSubstring(liveWorker))

		r = run(ctx, "placement", "explain", "probed", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`Publisher options    Inherited (0)
Probe method         GET
Probe statuses       accept=200; gate=404,500,502,503,504
Probe thresholds     failure=3; success=2
Probe timing         period=10s; timeout=2s
All-failed policy    PreserveTraffic
Capacity method      -
Capacity window      -
Capacity timing      -
Fleet state          Observed
`))
		Expect(r.stdout).To(ContainSubstring(`Cluster              explain-down
Selector compat...   True
Reported WLC Ready   False (Current)
Condition inspect    Validated 1/1; truncated=false
Reported home        NotRecorded
Connection source    KubeConfigReferenceNotResolved
Ready reason         ConnectionFailed
`))
		Expect(r.stdout).To(ContainSubstring("Cluster              " + liveWorker + "\n"))
		Expect(r.stdout).NotTo(ContainSubstring("Clusters "))

		r = run(ctx, "placement", "explain", "probed", "-n", ns, "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		var report struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Content    struct {
				Routing struct {
					Probe     string `json:"probe"`
					ProbeSpec struct {
						Path string `json:"path"`
					} `json:"probeSpec"`
				} `json:"routing"`
				Fleet struct {
					State    string `json:"state"`
					Clusters []struct {
						Name               string `json:"name"`
						SelectorCompatible string `json:"selectorCompatible"`
					} `json:"clusters"`
				} `json:"fleet"`
			} `json:"content"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &report)).To(Succeed())
		Expect(report.APIVersion).To(Equal("cli.ome.io/v1alpha1"))
		Expect(report.Kind).To(Equal("PlacementExplainReport"))
		Expect(report.Content.Routing.ProbeSpec.Path).To(Equal("/v1/models"))
		Expect(report.Content.Fleet.Clusters).To(HaveLen(5), "json lists every cluster")
		Expect(report.Content.Fleet.Clusters[1].SelectorCompatible).To(Equal("True"))

		By("the other states of each setting")
		routedService(ctx, ns, "inherited", &omev1beta1.Routing{})
		routedService(ctx, ns, "turnedoff", &omev1beta1.Routing{Enabled: ptr.To(false), Probe: &omev1beta1.RoutingProbe{Disabled: true},
			Capacity: &omev1beta1.RoutingCapacitySpec{Path: "/capacity", Method: omev1beta1.ProbeMethodGet, Format: "Report",
				Period: &metav1.Duration{Duration: 10 * time.Second}, Timeout: &metav1.Duration{Duration: time.Second},
				Samples: ptr.To[int32](3), Quorum: ptr.To[int32](2), MaxAge: &metav1.Duration{Duration: 30 * time.Second}},
			Failover: &omev1beta1.RoutingFailover{Disabled: true}})
		routedService(ctx, ns, "plain", nil)
		r = run(ctx, "placement", "explain", "inherited", "-n", ns, "-o", "wide")
		Expect(r.stdout).To(ContainSubstring(`Routing intent       Declared
Routing enablement   Inherited
Install routing      Gate/defaults unobserved
Capacity factors     Inherited
Routing probe        Inherited
Capacity poll        Inherited
Failover             Inherited
Publisher options    Inherited (0)
Probe method         -
Probe statuses       -
`))
		r = run(ctx, "placement", "explain", "turnedoff", "-n", ns, "-o", "wide")
		Expect(r.stdout).To(ContainSubstring(`Routing enablement   OptOut
Install routing      Gate/defaults unobserved
Capacity factors     Inherited
Routing probe        Disabled
Capacity poll        Configured
Failover             Disabled
`))
		Expect(r.stdout).To(ContainSubstring(`Capacity method      GET
Capacity window      samples=3; quorum=2; maxAge=30s
Capacity timing      period=10s; timeout=1s
`))
		r = run(ctx, "placement", "explain", "plain", "-n", ns)
		Expect(r.stdout).To(HavePrefix("FIELD                VALUE\nRouting intent       Absent\nRouting enablement   Inherited\n" +
			"Install routing      Gate/defaults unobserved\nFleet state          Observed\n"))
	})

	It("says Invalid while the manager refuses a setting, and Unavailable when the fleet cannot be listed", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`)
		isvc.Spec.Routing = &omev1beta1.Routing{Probe: framework.GuideProbe(500*time.Millisecond, 100*time.Millisecond, omev1beta1.AllFailedDrain)}
		Expect(k8s.Update(ctx, isvc)).To(Succeed())
		writeMap(ctx, isvc)
		tm := &omev1beta1.TrafficMap{}
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(isvc), tm)).To(Succeed())
		for i, c := range tm.Status.Conditions {
			if c.Type == omev1beta1.TrafficMapSettingsAccepted {
				tm.Status.Conditions[i].Status, tm.Status.Conditions[i].Reason = metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonRoutingPolicyRefused)
				tm.Status.Conditions[i].Message = "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"
			}
		}
		Expect(k8s.Status().Update(ctx, tm)).To(Succeed())

		r := run(ctx, "placement", "explain", "chat", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(HavePrefix(`FIELD                VALUE
Routing intent       Invalid
Frozen               RoutingPolicyRefused: resolve probe policy:
                     spec.routing.probe.period (500ms) must be at least
                     routing.observer.minPeriod (1s)
Routing enablement   Inherited
`))

		By("a user who may read the service and its map, not the WorkloadClusters")
		user, err := cp.Env.AddUser(envtest.User{Name: "service-reader"}, nil)
		Expect(err).NotTo(HaveOccurred())
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "service-reader", Namespace: ns},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"ome.io"}, Resources: []string{"inferenceservices", "trafficmaps"}, Verbs: []string{"get"}}}}
		Expect(k8s.Create(ctx, role)).To(Succeed())
		Expect(k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "service-reader", Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "service-reader"},
			Subjects: []rbacv1.Subject{{Kind: "User", Name: "service-reader"}}})).To(Succeed())
		raw, err := user.KubeConfig()
		Expect(err).NotTo(HaveOccurred())
		reader := writeKubeconfig("service-reader", raw, "")
		Eventually(func(g Gomega) {
			r := runWith(ctx, reader, "placement", "explain", "chat", "-n", ns)
			g.Expect(r.code).To(BeZero(), r.stderr)
			g.Expect(r.stdout).To(ContainSubstring(`Issue                Fleet: Unavailable (Forbidden)
Fleet state          Unavailable
Fleet reason         Forbidden
Fleet Returned       0
Fleet Admitted       0
Fleet Pages          0
Fleet Complete       false
Fleet Truncated      false
Hint                 WLC Ready is reachability, not capacity
Hint                 Partial fleet: no global eligibility verdict
View                 Bounded cells; use -o json for complete identities
`))
		}, timeout, interval).Should(Succeed())
	})

	It("reads at most 64 WorkloadClusters, in two pages, and says the fleet is Partial past them", func(ctx context.Context) {
		// The suite registers three; these make 65.
		for i := range 62 {
			temporaryCluster(ctx, fmt.Sprintf("bulk-%02d", i))
		}
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", "")
		r := run(ctx, "placement", "explain", "chat", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`Issue                Fleet: Partial (PageBudgetExceeded)
Fleet state          Partial
Fleet reason         PageBudgetExceeded
Fleet Returned       64
Fleet Admitted       64
Fleet Pages          2
Fleet Complete       false
Fleet Truncated      true
Clusters             4/64; use -o wide or json
Cluster              bulk-00
`))
		Expect(r.stdout).To(HaveSuffix("Hint                 WLC Ready is reachability, not capacity\n" +
			"Hint                 Partial fleet: no global eligibility verdict\n" +
			"View                 Bounded cells; use -o json for complete identities\n"))
		r = run(ctx, "placement", "explain", "chat", "-n", ns, "-o", "json")
		var report struct {
			Content struct {
				Fleet struct {
					Clusters []struct {
						Name string `json:"name"`
					} `json:"clusters"`
				} `json:"fleet"`
			} `json:"content"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &report)).To(Succeed())
		Expect(report.Content.Fleet.Clusters).To(HaveLen(64))
	})
})
