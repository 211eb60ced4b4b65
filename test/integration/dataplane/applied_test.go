package dataplane

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/test/dataplane"
	"github.com/ome-routing/operator/test/framework"
)

// trafficApplied is the map's TrafficApplied condition as "Status Reason: message".
func trafficApplied(ctx context.Context) func(Gomega) string {
	return func(g Gomega) string {
		tm, err := env.TrafficMap(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		c := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapTrafficApplied)
		if c == nil {
			return ""
		}
		return string(c.Status) + " " + c.Reason + ": " + c.Message
	}
}

// firing are the names of the alerts that fire now for the suite's service.
func firing(ctx context.Context, p *promserver.Server) func(Gomega) []string {
	return func(g Gomega) []string {
		alerts, err := p.Alerts(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, a := range alerts {
			if a.State == "firing" && a.Labels["namespace"] == service.Namespace && a.Labels["name"] == service.Name {
				out = append(out, a.Labels["alertname"])
			}
		}
		return out
	}
}

// evidenceBound is how long the evidence of a withdrawal may take: the window that starts
// after the route is written, a reading's interval after it, and the scrapes on the way.
var evidenceBound = dataplane.SignalTiming.Window + 2*dataplane.SignalTiming.Interval + 2*dataplane.SignalTiming.Scrape

var _ = Describe("TrafficApplied, on haproxy's own counters read from a real Prometheus", func() {
	all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
	gated := map[string]int32{"worker-a": 3, "worker-b": 0, "worker-c": 1}

	BeforeEach(func(ctx context.Context) {
		requireSignal()
		DeferCleanup(func(ctx context.Context) {
			Expect(env.Gateway.Resume()).To(Succeed())
			set(framework.Serve, workers...)
			expectRouting(ctx, all)
		})
		expectRouting(ctx, all)
	})

	It("turns True once haproxy stops sending to a gated cluster, and False, with the lost-update alert, while HAProxy Ingress is stopped", func(ctx context.Context) {
		load := env.Traffic.StartLoad(ctx, loadRate, loadRate*600)
		DeferCleanup(load.Stop)
		alerting, err := env.StartAlerting(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(alerting.Stop)

		Eventually(trafficApplied(ctx)).WithTimeout(timeout).WithPolling(interval).Should(HavePrefix(
			"Unknown NoClusterAtZero: "), "no cluster at weight 0: nothing to see yet")

		By("a gate that reaches the traffic")
		set(framework.Unavailable, "worker-b")
		awaitRouting(ctx, gated)
		routed := time.Now()
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(MatchRegexp(
			`^True TrafficMoved: The gateway sends no request to the 1 cluster\(s\) the route holds at weight 0: ` +
				`worker-b: weight 0 in the route after [0-9.]+m?s, no requests after [0-9.]+s$`))
		AddReportEntry("the demo's line", strings.SplitN(trafficApplied(ctx)(Default), ": ", 3)[2])
		AddReportEntry("TrafficMoved after haproxy's split showed the gate", time.Since(routed).Round(time.Millisecond).String())
		Expect(firing(ctx, alerting)(Default)).NotTo(ContainElement("OMERoutingLostUpdate"))

		By("the gate lifts: nothing at weight 0 again")
		set(framework.Serve, "worker-b")
		awaitRouting(ctx, all)
		Eventually(trafficApplied(ctx)).WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("Unknown NoClusterAtZero: "))

		By("HAProxy Ingress stopped: the route gives worker-b weight 0, haproxy keeps sending it requests")
		Expect(env.Gateway.Pause()).To(Succeed())
		set(framework.Unavailable, "worker-b")
		Eventually(routeWeights(ctx)).WithTimeout(timeout).WithPolling(interval).Should(Equal(gated))
		written := time.Now()
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(MatchRegexp(
			`^False StillServed: The gateway still sends requests to 1 cluster\(s\) the route holds at weight 0, ` +
				`so it may not follow the route \(a lost update\): worker-b: [0-9]+ request\(s\) in the 5s window from `))
		AddReportEntry("StillServed after the route was written", time.Since(written).Round(time.Millisecond).String())
		turnedFalse := time.Now()
		Eventually(firing(ctx, alerting)).WithTimeout(2*dataplane.SignalTiming.Interval + 2*dataplane.SignalTiming.Scrape).WithPolling(interval).
			Should(ContainElement("OMERoutingLostUpdate"))
		AddReportEntry("OMERoutingLostUpdate fired after StillServed", time.Since(turnedFalse).Round(time.Millisecond).String())

		By("HAProxy Ingress back: haproxy follows the route, and the evidence says so")
		Expect(env.Gateway.Resume()).To(Succeed())
		awaitRouting(ctx, gated)
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(HavePrefix("True TrafficMoved: "))
		Eventually(firing(ctx, alerting)).WithTimeout(timeout).WithPolling(interval).ShouldNot(ContainElement("OMERoutingLostUpdate"))
	})
})
