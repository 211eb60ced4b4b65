package dataplane

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"text/template"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/config/samples"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// signalQueries are the shipped requests and failures templates, checked by the manager's
// own rules.
func signalQueries() (requests, failures *template.Template) {
	GinkgoHelper()
	rq, fq, err := samples.HAProxySignalQueries()
	Expect(err).NotTo(HaveOccurred())
	s, errs := trafficsignal.Validate(trafficsignal.Spec{URL: ptr.To("http://127.0.0.1:9090"), Requests: &rq, Failures: &fq}, trafficsignal.Path, time.Second)
	Expect(errs).To(BeEmpty())
	return s.Requests, s.Failures
}

func render(t *template.Template, v trafficsignal.Vars) string {
	GinkgoHelper()
	q, err := trafficsignal.Render(t, v)
	Expect(err).NotTo(HaveOccurred())
	return q
}

// backendPositions are each cluster's place among the route rule's backendRefs, from 1,
// which the shipped queries turn into haproxy's server names. It checks them against
// haproxy.cfg: the server of that number has its cluster's address.
func backendPositions(ctx context.Context, route string) map[string]int {
	GinkgoHelper()
	r := &gatewayv1.HTTPRoute{}
	Expect(env.Fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: service.Namespace, Name: route}, r)).To(Succeed())
	byBackend := map[string]string{}
	for _, w := range workers {
		byBackend[publish.BackendName(service.Namespace, service.Name, w)] = w
	}
	cfg, err := env.Gateway.Config()
	Expect(err).NotTo(HaveOccurred())
	out := map[string]int{}
	for i, ref := range r.Spec.Rules[0].BackendRefs {
		cluster, server := byBackend[string(ref.Name)], fmt.Sprintf("srv%03d", i+1)
		out[cluster] = i + 1
		line := fmt.Sprintf("server %s %s:%d ", server, env.Servers.Addrs[cluster], env.Servers.Port)
		Expect(string(cfg)).To(ContainSubstring(line), "haproxy.cfg has no %q for %s", line, cluster)
	}
	return out
}

var _ = Describe("The shipped HAProxy traffic-signal queries", func() {
	It("count per cluster the requests haproxy sent and the 5xx among them, never a 4xx, from a real Prometheus scraping haproxy's exporter", func(ctx context.Context) {
		if err := promserver.Missing(); err != nil {
			if os.Getenv(haproxyingress.RequireDataPlaneEnv) != "" {
				Fail(fmt.Sprintf("%s is set, as .ci/run sets it, but Prometheus cannot run: %v", haproxyingress.RequireDataPlaneEnv, err))
			}
			Skip(err.Error())
		}
		all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
		awaitRouting(ctx, all)
		route := publish.RouteName(service.Namespace, service.Name, "")
		positions := backendPositions(ctx, route)

		// Prometheus starts after the earlier traffic: its series begin at haproxy's
		// counters as they are now, so the window holds only this spec's batch.
		p, err := promserver.Start(ctx, promserver.Options{Targets: []string{env.Gateway.MetricsAddr}, Log: GinkgoWriter})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Stop)
		AddReportEntry("prometheus ready, haproxy's exporter scraped", p.Ready.String())

		// worker-b fails every 5th request with 503, worker-c every 4th with 404; their
		// probes keep passing, so the weights stay.
		env.Servers.Endpoints["worker-b"].SetTrafficFailures(5, 503)
		env.Servers.Endpoints["worker-c"].SetTrafficFailures(4, 404)
		DeferCleanup(func() {
			env.Servers.Endpoints["worker-b"].SetTrafficFailures(0, 0)
			env.Servers.Endpoints["worker-c"].SetTrafficFailures(0, 0)
		})
		t, _ := send(ctx, batchSize)
		sent := time.Now()
		AddReportEntry("traffic", t.String())
		Expect(t.Gateway).To(BeEmpty(), "haproxy answered itself: %s", t)
		Expect(t.Errors).To(BeZero(), "requests without an answer: %s", t)
		Expect(t.Refused["worker-b"]).To(BeNumerically(">", 0))
		Expect(t.Refused["worker-c"]).To(BeNumerically(">", 0))

		requests, failures := signalQueries()
		type counts struct{ requests, failures float64 }
		want := map[string]counts{}
		for _, w := range workers {
			want[w] = counts{requests: float64(t.Served[w] + t.Refused[w])}
		}
		want["worker-b"] = counts{requests: want["worker-b"].requests, failures: float64(t.Refused["worker-b"])}

		query := func(g Gomega, promql string) float64 {
			v, err := p.Query(ctx, promql)
			g.Expect(err).NotTo(HaveOccurred(), promql)
			g.Expect(v).To(HaveLen(1), promql)
			return float64(v[0].Value)
		}
		// increase() extrapolates to the window's ends by up to a scrape interval, so
		// the counts match the traffic's within a tenth (or 2 requests).
		near := func(want float64) OmegaMatcher {
			return BeNumerically("~", want, math.Max(2, want/10))
		}
		for _, w := range workers {
			backend := publish.BackendName(service.Namespace, service.Name, w)
			v := trafficsignal.Vars{
				Namespace: service.Namespace, Service: service.Name, Cluster: w, Route: route, RouteNamespace: service.Namespace,
				Window: "5m", Backends: []string{backend}, BackendPosition: positions[w],
			}
			rq, fq := render(requests, v), render(failures, v)
			Expect(strings.Count(rq+fq, "{{")).To(BeZero())
			Eventually(func(g Gomega) {
				g.Expect(query(g, rq)).To(near(want[w].requests), "requests of %s: %s", w, rq)
				got := query(g, fq)
				if want[w].failures == 0 {
					g.Expect(got).To(BeZero(), "failures of %s (its 4xx are not failures): %s", w, fq)
				} else {
					g.Expect(got).To(near(want[w].failures), "failures of %s: %s", w, fq)
				}
			}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
			AddReportEntry("cluster "+w, fmt.Sprintf("requests %v (tallied %v), failures %v (tallied %v), visible %s after the traffic",
				query(Default, rq), want[w].requests, query(Default, fq), want[w].failures, time.Since(sent).Round(time.Millisecond)))
		}
	})
})
