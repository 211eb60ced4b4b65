package dataplane

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/traffic"
)

const (
	// batchSize is how many requests a split is measured over.
	batchSize = 600
	// tolerance is how far each cluster's count may be from its weight's share of a batch,
	// as a fraction of the batch. haproxy's weighted round robin is deterministic: by hand,
	// 1,000 requests to weights 50/30/20 were 501/300/199.
	tolerance = 0.02
	// awaitBatch is how many requests tell whether haproxy sends by a route's weights yet:
	// a multiple of every total weight the specs use, so each share is whole, and small
	// enough to send every polling interval.
	awaitBatch = 60
	// loadRate is the requests per second sent across a transition.
	loadRate = 50
)

// routeWeights are the published route's weights by cluster.
func routeWeights(ctx context.Context) func(Gomega) map[string]int32 {
	return func(g Gomega) map[string]int32 {
		w, err := env.RouteWeights(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		return w
	}
}

// send sends n requests through haproxy and returns what the clients got and how many of
// them each server received.
func send(ctx context.Context, n int) (traffic.Tally, map[string]int64) {
	before := env.Servers.Received()
	t := env.Traffic.Batch(ctx, n)
	return t, env.Servers.Delta(before)
}

// expectRouting waits until the published route has the weights, and haproxy sends by them:
// a cluster of weight 0 receives nothing. Then it checks a batch: zero requests to every
// cluster of weight 0, each other's share of the batch within tolerance of its weight's
// share, and no request failed through the gateway. It returns the batch's tally.
func expectRouting(ctx context.Context, want map[string]int32) traffic.Tally {
	GinkgoHelper()
	awaitRouting(ctx, want)
	t, got := send(ctx, batchSize)
	expectSplit(t, got, want)
	return t
}

// awaitRouting waits until the published route has the weights, and then until haproxy
// sends by them: a batch that reaches no cluster of weight 0 and splits among the others
// by their weights. haproxy follows a changed route a moment later, and HAProxy Ingress
// applies at most one change every two seconds (its --rate-limit-update of 0.5): until
// then haproxy sends by the route's previous weights, which may reach every cluster too.
func awaitRouting(ctx context.Context, want map[string]int32) {
	GinkgoHelper()
	Eventually(routeWeights(ctx)).WithTimeout(timeout).WithPolling(interval).Should(Equal(want))
	Eventually(func(g Gomega) {
		t, got := send(ctx, awaitBatch)
		g.Expect(splitMatches(got, want, awaitBatch)).To(BeTrue(),
			"haproxy's split of %d requests by the weights %v: %v (%s)", awaitBatch, want, got, t)
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

// splitMatches says whether n requests reached the servers by the weights, each share
// within the suite's tolerance and none where the weight is 0.
func splitMatches(got map[string]int64, want map[string]int32, n int) bool {
	return modelserver.SplitMatches(got, want, n, tolerance)
}

// expectSplit checks a batch against the weights. With every weight at 0 no request may
// reach a server; the caller checks what the gateway answered instead.
func expectSplit(t traffic.Tally, got map[string]int64, want map[string]int32) {
	GinkgoHelper()
	total := int32(0)
	for _, w := range want {
		total += w
	}
	Expect(t.Errors).To(BeZero(), "requests that got no answer: %s", t)
	if total > 0 {
		Expect(t.Failed()).To(BeZero(), "requests that failed through the gateway: %s", t)
	}
	for _, c := range workers {
		// Every request that reached a server got that server's answer.
		Expect(got[c]).To(Equal(int64(t.Served[c]+t.Refused[c])), "requests %s received and answers from it: %s", c, t)
		if want[c] == 0 {
			Expect(got[c]).To(BeZero(), "requests to %s, whose weight is 0: %s", c, t)
			continue
		}
		share := float64(t.Total) * float64(want[c]) / float64(total)
		Expect(float64(got[c])).To(BeNumerically("~", share, tolerance*float64(t.Total)),
			"%s's share of %d requests with weights %v: %s", c, t.Total, want, t)
	}
	AddReportEntry("split", fmt.Sprintf("weights %v: %s", want, t))
}

// across sends a steady load while change happens and haproxy comes to send by want, and
// checks that no request of it failed through the gateway: the only non-2xx answers may
// come from the clusters in failing, which answer 503 themselves until they are gated.
// Then it checks a batch against want, as expectRouting does. It returns the load's tally.
func across(ctx context.Context, change func(), want map[string]int32, failing ...string) traffic.Tally {
	GinkgoHelper()
	load := env.Traffic.StartLoad(ctx, loadRate, loadRate*int(2*timeout.Seconds()))
	change()
	awaitRouting(ctx, want)
	t := traffic.TallyOf(load.Stop())
	batch, got := send(ctx, batchSize)
	expectSplit(batch, got, want)
	Expect(t.Failed()).To(BeZero(), "requests across the change that failed through the gateway: %s", t)
	for c := range t.Refused {
		Expect(failing).To(ContainElement(c), "only a failing cluster answers with an error of its own: %s", t)
	}
	AddReportEntry("across the change", t.String())
	return t
}

// set switches how clusters' servers answer.
func set(mode modelserver.Mode, clusters ...string) {
	GinkgoHelper()
	for _, c := range clusters {
		Expect(env.Servers.Set(c, mode)).To(Succeed())
	}
}

// routable is the map's Routable condition as "Status Reason".
func routable(ctx context.Context) func(Gomega) string {
	return func(g Gomega) string {
		tm, err := env.TrafficMap(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		for _, c := range tm.Status.Conditions {
			if c.Type == omev1beta1.TrafficMapRoutable {
				return string(c.Status) + " " + c.Reason
			}
		}
		return ""
	}
}

// setPolicy changes the service's all-failed policy.
func setPolicy(ctx context.Context, policy omev1beta1.AllFailedPolicy) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		isvc := &omev1beta1.InferenceService{}
		g.Expect(env.Fleet.ControlPlane.Client.Get(ctx, service, isvc)).To(Succeed())
		isvc.Spec.Routing.Probe = probeSpec(policy)
		g.Expect(env.Fleet.ControlPlane.Client.Update(ctx, isvc)).To(Succeed())
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

// updateService edits the suite's InferenceService, retrying on a conflict.
func updateService(ctx context.Context, edit func(*omev1beta1.InferenceService)) {
	GinkgoHelper()
	Eventually(func() error { return env.UpdateService(ctx, edit) }).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}
