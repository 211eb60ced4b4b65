package routing

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/test/framework"
)

var _ = Describe("Events", func() {
	It("are cut to the API's 1024-byte note limit instead of being lost", func(ctx context.Context) {
		// A long probe path makes the transport error, and so the probe message, as long
		// as a message may be; the HomeGated event adds its own words in front.
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.Path = "/" + strings.Repeat("long-path/", 150)
		s := newService(ctx, "verbose-event", withProbe(p), both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		s.set("worker-b", framework.Refuse)

		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeGated) }, timeout, interval).Should(
			ContainElement(HavePrefix("Cluster worker-b gated after 3 probe failures in a row: transport error: Get ")))
		for _, note := range s.events(Default, routing.EventHomeGated) {
			Expect(len(note)).To(BeNumerically("<=", 1024))
			Expect(utf8.ValidString(note)).To(BeTrue())
		}
		Expect(len(s.entry(Default, "worker-b").Probe.Message)).To(BeNumerically(">", 1000), "the probe message itself is long")
	})
})
