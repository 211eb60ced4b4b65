package routing

import (
	"context"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/framework"
)

// mapVersion is one version of a TrafficMap as a watch saw it.
type mapVersion struct {
	seen time.Time
	tm   *omev1beta1.TrafficMap
}

// watchMap records every version of the service's map until the test ends.
func watchMap(ctx context.Context, key client.ObjectKey) func() []mapVersion {
	wc, err := client.NewWithWatch(fleet.ControlPlane.Config, client.Options{Scheme: envfleet.Scheme})
	Expect(err).NotTo(HaveOccurred())
	w, err := wc.Watch(ctx, &omev1beta1.TrafficMapList{}, client.InNamespace(key.Namespace),
		client.MatchingFields{"metadata.name": key.Name})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	var mu sync.Mutex
	var versions []mapVersion
	go func() {
		for ev := range w.ResultChan() {
			if tm, ok := ev.Object.(*omev1beta1.TrafficMap); ok && ev.Type != watch.Deleted {
				mu.Lock()
				versions = append(versions, mapVersion{seen: time.Now(), tm: tm})
				mu.Unlock()
			}
		}
	}()
	return func() []mapVersion {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(versions)
	}
}

// writers names, for each version after the first, the field managers whose record in
// managedFields is new or has a new time: who wrote it. (A record whose fields shrink was
// not written by its manager: another took fields over from it.)
func writers(versions []mapVersion) [][]string {
	key := func(m metav1.ManagedFieldsEntry) string {
		return m.Manager + "/" + string(m.Operation) + "/" + m.Subresource
	}
	var out [][]string
	for i := 1; i < len(versions); i++ {
		before := map[string]metav1.ManagedFieldsEntry{}
		for _, m := range versions[i-1].tm.ManagedFields {
			before[key(m)] = m
		}
		var who []string
		for _, m := range versions[i].tm.ManagedFields {
			b, ok := before[key(m)]
			if !ok || !b.Time.Equal(m.Time) {
				who = append(who, m.Manager)
			}
		}
		out = append(out, who)
	}
	return out
}

var _ = Describe("A change of leader", func() {
	It("loses no gate, makes none up, and never has two writers at once", func(ctx context.Context) {
		stopManager()
		DeferCleanup(func() { stopManager = startManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16) })
		stopManager = func() {}

		// Both managers write under field managers of their own, so that their writes can be
		// told apart; they read only this spec's namespace, so that no other spec's map is
		// left with fields of theirs that the suite's manager cannot remove.
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "failover-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		stopFirst, first := launchManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16,
			managerSetup{fieldManager: "manager-1", elect: true, namespace: ns.Name})
		DeferCleanup(stopFirst)
		Eventually(first.Elected(), timeout).Should(BeClosed())
		s := newProbedServiceIn(ctx, client.ObjectKey{Namespace: ns.Name, Name: "failover"}, both(1))
		gateWorkerB(s)
		versions := watchMap(ctx, s.key)

		stopSecond, second := launchManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16, managerSetup{fieldManager: "manager-2", elect: true, namespace: ns.Name})
		DeferCleanup(stopSecond)
		Consistently(second.Elected(), 2*period, interval).ShouldNot(BeClosed(), "two leaders at once")
		failures := s.entry(Default, "worker-b").Probe.ConsecutiveFailures

		stopFirst()
		stopped := time.Now()
		Eventually(second.Elected(), timeout).Should(BeClosed())
		// The new leader carries on from the gate and the count: it writes the next
		// failures on top of them.
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe.ConsecutiveFailures).To(BeNumerically(">=", failures+2))
		}, timeout, interval).Should(Succeed())
		// The watch may be behind the read above on a loaded machine: wait until it has
		// seen those writes too, so that the hand-over is in the versions judged below.
		var seen []mapVersion
		Eventually(func(g Gomega) {
			seen = versions()
			g.Expect(seen).NotTo(BeEmpty())
			var latest int32
			for _, e := range seen[len(seen)-1].tm.Spec.Entries {
				if e.Cluster == "worker-b" && e.Probe != nil {
					latest = e.Probe.ConsecutiveFailures
				}
			}
			g.Expect(latest).To(BeNumerically(">=", failures+2), "worker-b's failures in the last version watched")
		}, timeout, interval).Should(Succeed())
		Expect(len(seen)).To(BeNumerically(">", 2))
		for _, v := range seen {
			for _, e := range v.tm.Spec.Entries {
				switch e.Cluster {
				case "worker-a":
					Expect(e.Probe == nil || !e.Probe.Gated).To(BeTrue(), "worker-a was gated at resourceVersion %s", v.tm.ResourceVersion)
				case "worker-b":
					Expect(e.Probe).NotTo(BeNil())
					Expect(e.Probe.Gated).To(BeTrue(), "worker-b's gate was lost at resourceVersion %s", v.tm.ResourceVersion)
				}
			}
		}
		// The writes, by field manager: manager-1's, then manager-2's, never interleaved,
		// and none by manager-2 before manager-1 stopped.
		handedOver := false
		for i, who := range writers(seen) {
			Expect(len(who)).To(BeNumerically("<=", 1), "two writers in one version: %v", who)
			if len(who) == 0 {
				continue
			}
			switch who[0] {
			case "manager-1":
				Expect(handedOver).To(BeFalse(), "manager-1 wrote after manager-2 had taken over")
			case "manager-2":
				handedOver = true
				Expect(seen[i+1].seen).To(BeTemporally(">", stopped), "manager-2 wrote while manager-1 led")
			default:
				Fail("an unexpected writer: " + who[0])
			}
		}
		Expect(handedOver).To(BeTrue(), "manager-2 never wrote")
	})
})

var _ = Describe("A control-plane API server that restarts", func() {
	It("is ridden out by the running manager, gates intact", func(ctx context.Context) {
		// A kube-apiserver that has just started answers before its RBAC caches are
		// filled, and refuses the manager's writes as forbidden until they are: the
		// manager retries them, and this spec's manager lets those errors pass the log check.
		stopManager()
		stopManager, _ = launchManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16, managerSetup{allowErrors: []string{"is forbidden"}})
		DeferCleanup(func() { restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16) })
		s := newProbedService(ctx, "api-restart", nil, both(1))
		gateWorkerB(s)
		failures := s.entry(Default, "worker-b").Probe.ConsecutiveFailures

		// The API server goes away under the running manager and comes back on the same
		// address; etcd, and with it every object, stays.
		Expect(fleet.ControlPlane.RestartAPIServer()).To(Succeed())

		// The same manager carries on: it counts on from the gate it held...
		Eventually(func(g Gomega) {
			p := s.entry(g, "worker-b").Probe
			g.Expect(p.Gated).To(BeTrue())
			g.Expect(p.ConsecutiveFailures).To(BeNumerically(">", failures))
		}, timeout, interval).Should(Succeed())
		// ...and its watches work again: a change to the service reaches the map.
		digest := s.entry(Default, "worker-b").Probe.PolicyDigest
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = withProbe(framework.GuideProbe(period, 400*time.Millisecond, omev1beta1.AllFailedPreserveTraffic))
		})
		Eventually(func(g Gomega) {
			p := s.entry(g, "worker-a").Probe
			g.Expect(p).NotTo(BeNil())
			g.Expect(p.PolicyDigest).NotTo(Equal(digest))
		}, timeout, interval).Should(Succeed())
	})
})
