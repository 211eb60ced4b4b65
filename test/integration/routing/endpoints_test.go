package routing

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/modelserver"
)

// A copy's status.url is written by the workload cluster. One that carries a credential,
// or that the map could not hold, must not reach the map, the placement status, a probe,
// an event or the log, and must not stop the rest of the map from updating.
var _ = Describe("A copy's status.url", func() {
	DescribeTable("is left out, with a Warning that does not quote it, while the rest of the map keeps updating",
		func(ctx context.Context, name string, bad func(good string) string, secret, reason string) {
			s := newProbedService(ctx, name, nil, both(1))
			Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
				"worker-a 1 true Passing HTTP 200",
				"worker-b 1 true Passing HTTP 200",
			}))
			badURL := bad(s.endpoints["worker-b"].URL())
			placeCopy(ctx, "worker-b", s.key, badURL, 1, 1)

			// worker-b stays in the map without its endpoint, at weight 0, saying why.
			Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
				"worker-a 1 true Passing HTTP 200",
				"worker-b 0 false  ",
			}))
			refusal := "the status.url of its copy is refused because " + reason + "; fix the copy's status.url"
			Expect(s.entry(Default, "worker-b").Refused).To(Equal(refusal))
			Expect(s.entry(Default, "worker-b").Endpoint).To(BeEmpty())
			Eventually(func(g Gomega) string { return s.routable(g).Message }, timeout, interval).Should(
				Equal("1 of 2 home(s) take traffic; 1 home(s) refused by the operator, with weight 0: worker-b: " + refusal))
			Eventually(func(g Gomega) []string { return s.events(g, routing.EventEndpointRefused) }, timeout, interval).Should(
				ContainElement("Cluster worker-b left out: the status.url of its copy is refused because " + reason +
					"; it is neither probed nor routed to"))

			// The rest of the map still follows its probes.
			s.set("worker-a", modelserver.Unavailable)
			Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
				"worker-a 1 false Failing HTTP 503",
				"worker-b 0 false  ",
			}))

			isvc := &omev1beta1.InferenceService{}
			Expect(fleet.ControlPlane.Client.Get(ctx, s.key, isvc)).To(Succeed())
			Expect(isvc.Status.Placement.Candidates).To(ContainElement(omev1beta1.PlacementCandidate{Cluster: "worker-b"}))
			for _, e := range s.trafficMap(Default).Spec.Entries {
				Expect(e.Endpoint).NotTo(ContainSubstring(secret))
			}
			for _, msg := range append(s.events(Default, routing.EventEndpointRefused), s.events(Default, routing.EventHomeRefused)...) {
				Expect(msg).NotTo(ContainSubstring(secret))
				Expect(msg).NotTo(ContainSubstring("127.0.0.1"))
			}
			Expect(string(managerLog.Contents())).NotTo(ContainSubstring(secret))
			Expect(s.endpoints["worker-b"].Requests()).To(BeNumerically(">", 0), "worker-b was probed before its URL changed")
		},
		Entry("user information", "url-userinfo",
			func(good string) string { return strings.Replace(good, "http://", "http://probe:pw-in-userinfo@", 1) },
			"pw-in-userinfo", "it carries user information"),
		Entry("a query", "url-query",
			func(good string) string { return good + "/?token=tok-in-query" },
			"tok-in-query", "it has a query"),
		Entry("a fragment", "url-fragment",
			func(good string) string { return good + "/#access_token=tok-in-fragment" },
			"tok-in-fragment", "it has a fragment"),
		Entry("over the map's 2048 characters", "url-long",
			func(good string) string { return good + "/" + strings.Repeat("x", 2100-len(good)-1) },
			strings.Repeat("x", 64), "it is 2100 characters long, over the limit of 2048"),
		// What no route could name: refused here, so the publisher never refuses the whole
		// map for one member's endpoint.
		Entry("no host", "url-no-host",
			func(good string) string { return strings.Replace(good, "127.0.0.1", "", 1) },
			"http://:", "it has no host"),
		Entry("a host that is no DNS name", "url-underscore",
			func(good string) string { return strings.Replace(good, "127.0.0.1", "model_b.example.test", 1) },
			"model_b", "its host is neither a DNS name (RFC 1123) nor an IP address"),
		Entry("a scheme other than http or https", "url-scheme",
			func(good string) string { return strings.Replace(good, "http://", "ftp://", 1) },
			"ftp:", "its scheme is not http or https"),
	)
})
