package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// clusterRow matches one cluster's row of `cluster status`: its name, SOURCE, READY,
// FRESHNESS and REASON, whatever the columns' widths.
func clusterRow(name, source, ready, freshness, reason string) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`(?m)^%s +%s +%s +%s +%s +\S+$`, regexp.QuoteMeta(name), source, ready, freshness, reason))
}

// clusterReport is the part of `cluster status -o json` the specs read.
type clusterReport struct {
	Kind        string `json:"kind"`
	Observation struct {
		State     string `json:"state"`
		Reason    string `json:"reason"`
		Returned  int    `json:"returned"`
		Truncated bool   `json:"truncated"`
	} `json:"observation"`
	Clusters []struct {
		Name, Source, Ready, Freshness, Reason string
	} `json:"clusters"`
}

func clusterJSON(r result) clusterReport {
	GinkgoHelper()
	Expect(r.code).To(BeZero(), r.stderr)
	var rep clusterReport
	Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
	return rep
}

var _ = Describe("kubectl ome cluster status with a running manager", Ordered, func() {
	var stop func()

	BeforeAll(func(ctx context.Context) {
		Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gateway-system"}}))).To(Succeed())
		stop = startManager()
		DeferCleanup(func() {
			if stop != nil {
				stop()
			}
		})
	})

	It("shows a Ready member, a member whose Secret is missing, and a member the stopped manager has not judged since its spec changed", func(ctx context.Context) {
		// Its kubeconfig Secret (ome/status-nosecret) does not exist.
		temporaryCluster(ctx, "status-nosecret")
		// The suite's manager reads no ClusterProfiles.
		profile := &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: "status-profile"},
			Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{
				ClusterProfileRef: &omev1beta1.ClusterProfileReference{Name: "status-profile"}}}}
		Expect(k8s.Create(ctx, profile)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8s.Delete(ctx, profile)).To(Succeed()) })

		By("the manager judges each member: " + liveWorker + " answers, status-nosecret's Secret is missing")
		Eventually(func(g Gomega) {
			r := run(ctx, "cluster", "status")
			g.Expect(r.code).To(BeZero(), r.stderr)
			g.Expect(r.stderr).To(BeEmpty())
			g.Expect(r.stdout).To(HavePrefix("FIELD                VALUE\nObservation          Complete\nObservation reason\n"))
			g.Expect(r.stdout).To(MatchRegexp(clusterRow(liveWorker, "KubeConfigSecret", "True", "Current", "Reachable").String()))
			g.Expect(r.stdout).To(MatchRegexp(clusterRow("status-nosecret", "Invalid", "False", "Current", "SecretNotFound").String()))
			g.Expect(r.stdout).To(MatchRegexp(clusterRow("status-profile", "Invalid", "False", "Current", "ClusterProfileUnsupported").String()))
		}, timeout, interval).Should(Succeed())

		r := run(ctx, "cluster", "status", "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(MatchRegexp(`(?m)^status-nosecret +Invalid +False +Current +SecretNotFound +\S+ +secret ome/status-nosecret +1/1 +Secret ome/status-nosecret not found$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^status-profile +Invalid +False +Current +ClusterProfileUnsupported +\S+ +clusterprofile status-profile +1/1 +\S`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^` + liveWorker + ` +KubeConfigSecret +True +Current +Reachable +\S+ +secret ome/` + liveWorker + `-kubeconfig +1/1 +API server at https://`))

		By("the manager stops, then status-nosecret's spec changes: nothing judges the new generation")
		stop()
		stop = nil
		wc := &omev1beta1.WorkloadCluster{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: "status-nosecret"}, wc)).To(Succeed())
		wc.Spec.AllowedEndpointDomains = []omev1beta1.EndpointDomain{"status-nosecret.example.test"}
		Expect(k8s.Update(ctx, wc)).To(Succeed())
		Expect(wc.Generation).To(BeEquivalentTo(2))

		r = run(ctx, "cluster", "status")
		Expect(r.code).To(BeZero(), r.stderr)
		// The old refusal is not repeated as today's: the source it named may be fixed.
		Expect(r.stdout).To(MatchRegexp(clusterRow("status-nosecret", "KubeConfigSecret", "Unknown", "Stale", "SecretNotFound").String()))
		Expect(r.stdout).To(MatchRegexp(clusterRow(liveWorker, "KubeConfigSecret", "True", "Current", "Reachable").String()))
		Expect(r.stdout).To(ContainSubstring("\nObservation          Complete\n"))

		rep := clusterJSON(run(ctx, "cluster", "status", "-o", "json"))
		Expect(rep.Kind).To(Equal("ClusterStatusReport"))
		Expect(rep.Observation.State).To(Equal("Complete"))
		var stale []string
		for _, c := range rep.Clusters {
			if c.Freshness == "Stale" {
				stale = append(stale, c.Name+" "+c.Ready+" "+c.Reason)
			}
		}
		Expect(stale).To(Equal([]string{"status-nosecret Unknown SecretNotFound"}))
	})
})

var _ = Describe("kubectl ome cluster status", func() {
	It("reads at most 64 clusters and says that it stopped there", func(ctx context.Context) {
		// With the suite's three, well past the budget.
		for i := range 65 {
			temporaryCluster(ctx, fmt.Sprintf("bounded-%02d", i))
		}
		r := run(ctx, "cluster", "status")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(HavePrefix(`FIELD                VALUE
Observation          Partial
Observation reason   PageBudgetExceeded
Clusters returned    64
Pages                2
Budget               64
Truncated            true
`))
		Expect(r.stdout).To(ContainSubstring("Hint                 Partial: clusters past the budget or failure not shown\n"))
		Expect(regexp.MustCompile(`(?m)^\S+ +(KubeConfigSecret|ClusterProfile|Invalid) +(True|False|Unknown) `).FindAllString(r.stdout, -1)).To(HaveLen(64))

		rep := clusterJSON(run(ctx, "cluster", "status", "-o", "json"))
		Expect(rep.Observation.State).To(Equal("Partial"))
		Expect(rep.Observation.Truncated).To(BeTrue())
		Expect(rep.Clusters).To(HaveLen(64))
	})

	It("exits 0 with Observation Unavailable when the API server refuses the read, and reads with the one rule it documents", func(ctx context.Context) {
		user, err := cp.Env.AddUser(envtest.User{Name: "cluster-status-reader"}, nil)
		Expect(err).NotTo(HaveOccurred())
		raw, err := user.KubeConfig()
		Expect(err).NotTo(HaveOccurred())
		reader := writeKubeconfig("cluster-status-reader", raw, "")

		r := runWith(ctx, reader, "cluster", "status")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		Expect(r.stdout).To(Equal(`FIELD                VALUE
Observation          Unavailable
Observation reason   Forbidden
Clusters returned    0
Pages                0
Budget               64
Truncated            false
Ready                0 of 0 (True and Current)
Freshness            Current 0, Stale 0, Unobserved 0, Invalid 0
Sources              KubeConfigSecret 0, ClusterProfile 0, Invalid 0
Hint                 Check with kubectl auth can-i list workloadclusters.ome.io
Hint                 Ready is reachability, not capacity
`))
		rep := clusterJSON(runWith(ctx, reader, "cluster", "status", "-o", "json"))
		Expect(rep.Observation.State).To(Equal("Unavailable"))
		Expect(rep.Observation.Reason).To(Equal("Forbidden"))
		Expect(rep.Clusters).To(BeEmpty())

		By("the ClusterRole the reference gives: list on workloadclusters, nothing else")
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "ome-cluster-status-reader"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"ome.io"}, Resources: []string{"workloadclusters"}, Verbs: []string{"list"}}}}
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "ome-cluster-status-reader"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: "User", Name: "cluster-status-reader"}}}
		Expect(k8s.Create(ctx, role)).To(Succeed())
		Expect(k8s.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(k8s.Delete(ctx, binding)).To(Succeed())
			Expect(k8s.Delete(ctx, role)).To(Succeed())
		})
		Eventually(func(g Gomega) {
			rep := clusterJSON(runWith(ctx, reader, "cluster", "status", "-o", "json"))
			g.Expect(rep.Observation.State).To(Equal("Complete"))
			g.Expect(rep.Clusters).NotTo(BeEmpty())
		}, timeout, interval).Should(Succeed())
	})

	It("refuses arguments, flags and formats it does not know, with exit 1", func(ctx context.Context) {
		explained(run(ctx, "cluster", "status", "worker-a"), "cluster status takes no arguments", "got 1; the command reads every WorkloadCluster")
		explained(run(ctx, "cluster", "status", "--bogus"), "invalid cluster flags; use --help", "unknown flag: --bogus")
		refused(run(ctx, "cluster", "status", "-o", "name"), "output must be table, wide, json or yaml")
		r := run(ctx, "cluster", "stats")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring(`unknown command "stats" for "kubectl ome cluster"; did you mean "status"?`))
	})

	It("completes -o and offers no file names", func(ctx context.Context) {
		r := run(ctx, "__complete", "cluster", "status", "-o", "")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(strings.Fields(r.stdout)).To(Equal([]string{"table", "wide", "json", "yaml", ":4"}))
		r = run(ctx, "__complete", "cluster", "status", "")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(strings.TrimSpace(r.stdout)).To(Equal(":4"))
	})
})
