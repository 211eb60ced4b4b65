package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// writeListedMaps stores two maps in ns: checkout, published through its HTTPRoute with
// every condition written at its generation, and search, whose Published condition predates
// a later change of its entries and whose publisher has acknowledged nothing.
func writeListedMaps(ctx context.Context, ns string) {
	checkout := &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: ns},
		Spec: omev1beta1.TrafficMapSpec{Service: "checkout", Mode: omev1beta1.PlacementModeSplit, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Endpoint: "https://checkout.worker-a.example.com", Weight: 0, Healthy: false},
			{Cluster: "worker-b", Endpoint: "https://checkout.worker-b.example.com", Weight: 1, Healthy: true},
		}},
	}
	Expect(k8s.Create(ctx, checkout)).To(Succeed())
	at := metav1.Now()
	checkout.Status.Published = true
	checkout.Status.ObservedTrafficMapGeneration = checkout.Generation
	checkout.Status.RouteGeneration = checkout.Generation
	checkout.Status.GatewayRef = &omev1beta1.TrafficMapGatewayRef{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: ns, Name: "checkout"}
	checkout.Status.Conditions = []metav1.Condition{
		{Type: "Routable", Status: metav1.ConditionTrue, Reason: "Routable", ObservedGeneration: checkout.Generation, LastTransitionTime: at},
		{Type: "OverrideActive", Status: metav1.ConditionFalse, Reason: "NoOverrides", ObservedGeneration: checkout.Generation, LastTransitionTime: at},
		{Type: "Published", Status: metav1.ConditionTrue, Reason: "Published", ObservedGeneration: checkout.Generation, LastTransitionTime: at},
	}
	Expect(k8s.Status().Update(ctx, checkout)).To(Succeed())

	search := &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: "search", Namespace: ns},
		Spec: omev1beta1.TrafficMapSpec{Service: "search", Mode: omev1beta1.PlacementModeAll, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Endpoint: "https://search.worker-a.example.com", Weight: 1, Healthy: true},
		}},
	}
	Expect(k8s.Create(ctx, search)).To(Succeed())
	search.Status.Conditions = []metav1.Condition{
		{Type: "Routable", Status: metav1.ConditionTrue, Reason: "Routable", ObservedGeneration: search.Generation, LastTransitionTime: at},
		{Type: "Published", Status: metav1.ConditionTrue, Reason: "Published", ObservedGeneration: search.Generation, LastTransitionTime: at},
	}
	Expect(k8s.Status().Update(ctx, search)).To(Succeed())
	// A second cluster: the route changes, and the conditions above now describe the old one.
	search.Spec.Entries = append(search.Spec.Entries, omev1beta1.TrafficMapEntry{
		Cluster: "worker-b", Endpoint: "https://search.worker-b.example.com", Weight: 1, Healthy: true})
	Expect(k8s.Update(ctx, search)).To(Succeed())
	Expect(search.Generation).To(BeNumerically(">", search.Status.Conditions[0].ObservedGeneration))
}

// ages matches the AGE cells of a table made a moment ago, with their padding.
var ages = regexp.MustCompile(`\b\d{1,2}s\b *`)

// withoutAges puts <age> in place of each AGE cell, which the seconds since the maps were
// created decide, so that the rest of a table can be compared whole. AGE stays three
// characters wide below 100s, so the columns after it keep their places.
func withoutAges(table string) string {
	return ages.ReplaceAllString(table, "<age>")
}

var _ = Describe("kubectl ome get trafficmaps", func() {
	It("lists a namespace's maps, by any of the resource's names, in the default and the wide table", func(ctx context.Context) {
		ns := newNamespace(ctx)
		writeListedMaps(ctx, ns)

		r := run(ctx, "get", "trafficmaps", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		Expect(withoutAges(r.stdout)).To(Equal(`NAME       MODE    TARGETS   ROUTABLE   PUBLISHED   AGE
checkout   Split   2         True       True        <age>
search     All     2         Unknown    Unknown     <age>
`))
		for _, name := range []string{"trafficmap", "tm", "tmap"} {
			again := run(ctx, "get", name, "-n", ns)
			Expect(again.code).To(BeZero(), again.stderr)
			Expect(withoutAges(again.stdout)).To(Equal(withoutAges(r.stdout)), name)
		}

		r = run(ctx, "get", "tm", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		gw := "gateway.networking.k8s.io/HTTPRoute:" + ns + "/checkout"
		pad := strings.Repeat(" ", len(gw)-len("GATEWAY"))
		// OME's wide columns, then the CRD's own wide columns after TARGETS (none of whose
		// fields these maps carry: kubectl's <none>; their Routable messages are empty).
		tail := "   SERVING   GATED    REFUSED   WOULD-GATE   RAMPING   WARNINGS   PROBED   VERDICT   STATES   MESSAGE   FROZEN   TIERS    NO-TRAFFIC"
		lines := strings.Split(withoutAges(r.stdout), "\n")
		Expect(lines).To(HaveLen(4), r.stdout)
		Expect(lines[0]).To(Equal(`NAME       MODE    TARGETS   ROUTABLE   PUBLISHED   AGE   SERVICE    ACTIVE   HEALTHY   OVERRIDE   OVERRIDE-REASON   REASON     GATEWAY` + pad + `   PUBLISHER-FRESHNESS` + tail))
		Expect(lines[1]).To(MatchRegexp(`^checkout   Split   2         True       True        <age>checkout   1        1         False      NoOverrides       Routable   ` +
			regexp.QuoteMeta(gw) + `   Current               (<none>\s+){9}\s+(<none>\s*){3}$`))
		Expect(lines[2]).To(MatchRegexp(`^search     All     2         Unknown    Unknown     <age>search     2        2         Unknown    -                 -          -` +
			strings.Repeat(" ", len(gw)-1) + `   Unobserved            (<none>\s+){9}\s+(<none>\s*){3}$`))

		By("one map by name")
		r = run(ctx, "get", "tm", "search", "-n", ns)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(withoutAges(r.stdout)).To(Equal("NAME     MODE   TARGETS   ROUTABLE   PUBLISHED   AGE\nsearch   All    2         Unknown    Unknown     <age>\n"))
	})

	It("adds NAMESPACE with -A and sorts by namespace, then name", func(ctx context.Context) {
		first, second := newNamespace(ctx), newNamespace(ctx)
		writeListedMaps(ctx, first)
		writeListedMaps(ctx, second)
		r := run(ctx, "get", "tm", "-A")
		Expect(r.code).To(BeZero(), r.stderr)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		Expect(lines[0]).To(MatchRegexp(`^NAMESPACE +NAME +MODE +TARGETS +ROUTABLE +PUBLISHED +AGE$`))
		var rows []string
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			Expect(f).To(HaveLen(7), l)
			if f[0] == first || f[0] == second {
				rows = append(rows, f[0]+"/"+f[1])
			}
		}
		want := []string{first + "/checkout", first + "/search", second + "/checkout", second + "/search"}
		slices.Sort(want)
		Expect(rows).To(Equal(want))
		Expect(slices.IsSortedFunc(lines[1:], func(a, b string) int {
			fa, fb := strings.Fields(a), strings.Fields(b)
			return strings.Compare(fa[0]+"\x00"+fa[1], fb[0]+"\x00"+fb[1])
		})).To(BeTrue(), r.stdout)
	})

	It("prints a List for -o json and yaml", func(ctx context.Context) {
		ns := newNamespace(ctx)
		writeListedMaps(ctx, ns)
		r := run(ctx, "get", "tm", "checkout", "-n", ns, "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		var list struct {
			APIVersion string                  `json:"apiVersion"`
			Kind       string                  `json:"kind"`
			Items      []omev1beta1.TrafficMap `json:"items"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &list)).To(Succeed())
		Expect(list.APIVersion).To(Equal("v1"))
		Expect(list.Kind).To(Equal("List"))
		Expect(list.Items).To(HaveLen(1))
		tm := list.Items[0]
		Expect(tm.APIVersion + "/" + tm.Kind).To(Equal("ome.io/v1beta1/TrafficMap"))
		Expect(tm.Namespace + "/" + tm.Name).To(Equal(ns + "/checkout"))
		Expect(tm.Spec.Entries).To(HaveLen(2))
		Expect(tm.Status.GatewayRef).NotTo(BeNil())
		Expect(tm.ManagedFields).To(BeEmpty())

		r = run(ctx, "get", "tm", "-n", ns, "-o", "yaml")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(HavePrefix("apiVersion: v1\nitems:\n- apiVersion: ome.io/v1beta1\n  kind: TrafficMap\n"))
		Expect(r.stdout).To(ContainSubstring("\nkind: List\n"))
		Expect(strings.Count(r.stdout, "\n  kind: TrafficMap\n")).To(Equal(2))
	})

	It("says nothing was found on stderr and exits 0; json prints an empty List", func(ctx context.Context) {
		ns := newNamespace(ctx)
		r := run(ctx, "get", "trafficmaps", "-n", ns)
		Expect(r).To(Equal(result{stdout: "", stderr: "No trafficmaps found.\n", code: 0}))
		r = run(ctx, "get", "tm", "-n", ns, "-o", "wide")
		Expect(r).To(Equal(result{stdout: "", stderr: "No trafficmaps found.\n", code: 0}))
		r = run(ctx, "get", "tm", "-n", ns, "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		var list map[string]any
		Expect(json.Unmarshal([]byte(r.stdout), &list)).To(Succeed())
		Expect(list).To(HaveKeyWithValue("kind", "List"))
		Expect(list).To(HaveKeyWithValue("items", BeEmpty()))
	})

	It("refuses an unknown resource, a missing map and a list it may not make", func(ctx context.Context) {
		ns := newNamespace(ctx)
		refused(run(ctx, "get", "irep", "-n", ns), `unknown resource "irep" (valid resources: trafficmaps, trafficmap, tm, tmap)`)
		refused(run(ctx, "get", "-n", ns), `a resource is required (valid resources: trafficmaps, trafficmap, tm, tmap)`)
		refused(run(ctx, "get", "tm", "missing", "-n", ns), "get trafficmaps "+ns+"/missing: NotFound")

		user, err := cp.Env.AddUser(envtest.User{Name: "nobody-get"}, nil)
		Expect(err).NotTo(HaveOccurred())
		raw, err := user.KubeConfig()
		Expect(err).NotTo(HaveOccurred())
		nobody := writeKubeconfig("nobody-get", raw, "")
		refused(runWith(ctx, nobody, "get", "tm", "-n", ns),
			"list trafficmaps -n "+ns+": Forbidden; check with kubectl auth can-i list trafficmaps.ome.io -n "+ns)
		refused(runWith(ctx, nobody, "get", "tm", "-A"),
			"list trafficmaps -A: Forbidden; check with kubectl auth can-i list trafficmaps.ome.io -A")
		refused(runWith(ctx, nobody, "get", "tm", "chat", "-n", ns),
			"get trafficmaps "+ns+"/chat: Forbidden; check with kubectl auth can-i get trafficmaps.ome.io -n "+ns)
	})
})
