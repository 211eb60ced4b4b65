package dataplane

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/traffic"
	"github.com/ome-routing/operator/pkg/publish"
)

// setRetry gives the service its own retry on the route (nil for none).
//
// It returns when the change was made, to the second, for awaitHAProxyRetry.
func setRetry(ctx context.Context, r *omev1beta1.PublisherRetry) time.Time {
	changed := time.Now().Truncate(time.Second)
	GinkgoHelper()
	updateService(ctx, func(isvc *omev1beta1.InferenceService) {
		if r == nil {
			isvc.Spec.Routing.Publisher = nil
			return
		}
		isvc.Spec.Routing.Publisher = &omev1beta1.RoutingPublisherSpec{Retry: r}
	})
	return changed
}

// awaitHAProxyRetry waits until every backend Service of the route carries the keys the
// retry makes, the route its retry, haproxy's configuration the lines, and a haproxy worker
// started since the change runs: the file is written before haproxy reloads, and until
// then the previous worker serves without the retry (a loaded machine widens that gap).
func awaitHAProxyRetry(ctx context.Context, r *omev1beta1.PublisherRetry, changed time.Time, lines ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		route := &gatewayv1.HTTPRoute{}
		g.Expect(env.Fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: service.Namespace,
			Name: publish.RouteName(service.Namespace, service.Name, "")}, route)).To(Succeed())
		g.Expect(route.Spec.Rules).To(HaveLen(1))
		rule := route.Spec.Rules[0]
		g.Expect(rule.Retry).NotTo(BeNil(), "the stored route keeps its retry")
		g.Expect(*rule.Retry.Attempts).To(Equal(int(*r.Attempts)))
		var want string
		for _, w := range workers {
			svc := &corev1.Service{}
			g.Expect(env.Fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: service.Namespace,
				Name: publish.BackendName(service.Namespace, service.Name, w)}, svc)).To(Succeed())
			got := svc.Annotations[publish.HAProxyConfigBackend]
			g.Expect(got).NotTo(BeEmpty(), "backend Service of %s", w)
			if want == "" {
				want = got
			}
			g.Expect(got).To(Equal(want), "every Service of the route carries the same keys, or HAProxy Ingress skips them")
		}
		cfg, err := env.Gateway.Config()
		g.Expect(err).NotTo(HaveOccurred())
		for _, l := range lines {
			g.Expect(string(cfg)).To(ContainSubstring(l), "haproxy.cfg")
		}
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	Eventually(func(g Gomega) time.Time {
		started, err := env.Gateway.WorkerStarted()
		g.Expect(err).NotTo(HaveOccurred())
		return started
	}).WithTimeout(timeout).WithPolling(interval).Should(BeTemporally(">=", changed), "a haproxy worker started since the retry changed")
}

// arrivals sums the requests through the gateway that reached the model servers since
// before (retries included): the servers count only requests, not probes or polls.
func arrivals(before map[string]int64) int64 {
	var n int64
	for _, c := range env.Servers.Delta(before) {
		n += c
	}
	return n
}

var _ = Describe("Retries on the published route, applied by haproxy", func() {
	all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
	withoutB := map[string]int32{"worker-a": 3, "worker-b": 0, "worker-c": 1}

	BeforeEach(func(ctx context.Context) {
		DeferCleanup(func(ctx context.Context) {
			set(modelserver.Serve, workers...)
			setRetry(ctx, nil)
			expectRouting(ctx, all)
		})
		expectRouting(ctx, all)
	})

	// outage sends a steady load while worker-b's server answers as mode, until its probe
	// gates it and haproxy sends it nothing, and returns the load's tally.
	outage := func(ctx context.Context, mode modelserver.Mode) traffic.Tally {
		GinkgoHelper()
		load := env.Traffic.StartLoad(ctx, loadRate, loadRate*int(2*timeout.Seconds()))
		set(mode, "worker-b")
		awaitRouting(ctx, withoutB)
		t := traffic.TallyOf(load.Stop())
		set(modelserver.Serve, "worker-b")
		expectRouting(ctx, all)
		return t
	}

	It("loses no user request while a cluster's model server refuses connections", func(ctx context.Context) {
		By("without a retry, as HAProxy Ingress's own defaults handle it")
		before := outage(ctx, modelserver.Refuse)
		AddReportEntry("refused connections, no retry set", before.String())

		By("with a retry on connection failures")
		r := &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](1)}
		awaitHAProxyRetry(ctx, r, setRetry(ctx, r), "retries 1\n", "retry-on conn-failure\n", "option redispatch 1\n")
		t := outage(ctx, modelserver.Refuse)
		AddReportEntry("refused connections, retried", t.String())
		Expect(t.Errors).To(BeZero(), "requests that got no answer: %s", t)
		Expect(t.Failed()).To(BeZero(), "requests that failed through the gateway: %s", t)
		Expect(t.Refused).To(BeEmpty(), "answers other than 2xx: %s", t)
	})

	It("cuts the 503s users see of a failing cluster at least tenfold: haproxy sends each again through the balancer", func(ctx context.Context) {
		By("without a retry, the users get worker-b's 503s until its gate closes")
		before := outage(ctx, modelserver.Unavailable)
		AddReportEntry("503s, no retry set", before.String())
		Expect(before.Refused["worker-b"]).To(BeNumerically(">", 0), "without a retry the users see worker-b's 503s: %s", before)

		By("with a retry on 503")
		r := &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](1), Codes: []omev1beta1.HTTPStatus{503}}
		awaitHAProxyRetry(ctx, r, setRetry(ctx, r), "retry-on conn-failure 503\n", "option http-buffer-request\n")
		t := outage(ctx, modelserver.Unavailable)
		AddReportEntry("503s, retried", t.String())
		Expect(t.Errors).To(BeZero(), "requests that got no answer: %s", t)
		Expect(t.Failed()).To(BeZero(), "requests that failed through the gateway: %s", t)
		// haproxy's redispatch picks the next server through the balancer, which may pick
		// worker-b again; what the retry guarantees is a second draw, not another cluster.
		Expect(t.Refused["worker-b"]*10).To(BeNumerically("<=", before.Refused["worker-b"]),
			"worker-b's 503s that reached users: %d with the retry, %d without (%s)", t.Refused["worker-b"], before.Refused["worker-b"], t)
	})

	It("holds a retry budget of 20% under an outage of every cluster: haproxy sends at most 1.2 times the requests offered", func(ctx context.Context) {
		// haproxy 2.6 cannot count retries, so under a budget the publisher writes no retry
		// on a status: the budget holds because no 503 is sent again.
		r := &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](2), Codes: []omev1beta1.HTTPStatus{503},
			ConnectionFailures: ptr.To(true), BudgetPercent: ptr.To[int32](20)}
		awaitHAProxyRetry(ctx, r, setRetry(ctx, r), "retries 2\n", "retry-on conn-failure\n")
		// A window of requests before the outage, as a gateway in service has.
		warm := env.Traffic.StartLoad(ctx, loadRate, loadRate*10)
		Eventually(func() int { return len(warm.Results()) }).WithTimeout(timeout).WithPolling(interval).Should(BeNumerically(">=", loadRate*10))
		warmTally := traffic.TallyOf(warm.Stop())
		Expect(warmTally.Failed()+len(warmTally.Refused)).To(BeZero(), "the warm-up: %s", warmTally)

		By("every cluster answers 503, for two budget windows")
		before := env.Servers.Received()
		load := env.Traffic.StartLoad(ctx, loadRate, loadRate*20)
		set(modelserver.Unavailable, workers...)
		Eventually(func() int { return len(load.Results()) }).WithTimeout(timeout + 20*time.Second).WithPolling(interval).Should(BeNumerically(">=", loadRate*20))
		t := traffic.TallyOf(load.Stop())
		set(modelserver.Serve, workers...)
		sent, got := t.Total, arrivals(before)
		ratio := float64(got) / float64(sent)
		AddReportEntry("outage of every cluster with a 20% budget and 2 attempts",
			fmt.Sprintf("%d requests offered, %d reached the model servers (%.3fx): %s", sent, got, ratio, t))
		Expect(t.Errors).To(BeZero(), "every request gets an answer: %s", t)
		Expect(ratio).To(BeNumerically("<=", 1.2), "haproxy sent %d requests for %d offered", got, sent)
	})

	It("writes no retry where none is set: the route and its Services are as before", func(ctx context.Context) {
		for _, w := range workers {
			svc := &corev1.Service{}
			Expect(env.Fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: service.Namespace,
				Name: publish.BackendName(service.Namespace, service.Name, w)}, svc)).To(Succeed())
			for k := range svc.Annotations {
				Expect(strings.HasPrefix(k, "haproxy-ingress.github.io/")).To(BeFalse(), "Service of %s: %v", w, svc.Annotations)
			}
		}
		route := &gatewayv1.HTTPRoute{}
		Expect(env.Fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: service.Namespace,
			Name: publish.RouteName(service.Namespace, service.Name, "")}, route)).To(Succeed())
		Expect(route.Spec.Rules[0].Retry).To(BeNil())
		Expect(route.Spec.Rules[0].Timeouts).To(BeNil())
	})
})
