package dataplane

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/test/dataplane"
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

// startLoadAndAlerting sends real requests through haproxy and starts the Prometheus that
// evaluates the chart's alerts, both until the spec ends.
func startLoadAndAlerting(ctx context.Context) *promserver.Server {
	GinkgoHelper()
	load := env.Traffic.StartLoad(ctx, loadRate, loadRate*600)
	DeferCleanup(load.Stop)
	alerting, err := env.StartAlerting(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(alerting.Stop)
	return alerting
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
			set(modelserver.Serve, workers...)
			expectRouting(ctx, all)
		})
		expectRouting(ctx, all)
	})

	It("turns True once haproxy stops sending to a gated cluster, and False, with the lost-update alert, while HAProxy Ingress is stopped", func(ctx context.Context) {
		alerting := startLoadAndAlerting(ctx)

		By("a gate that reaches the traffic")
		set(modelserver.Unavailable, "worker-b")
		awaitRouting(ctx, gated)
		routed := time.Now()
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(MatchRegexp(
			`^True TrafficMoved: The gateway sends no request to the 1 cluster\(s\) the route holds at weight 0: ` +
				`worker-b: weight 0 in the route after [0-9.]+m?s, no requests after [0-9.]+m?s(; the split .*)?$`))
		AddReportEntry("the demo's line", strings.SplitN(trafficApplied(ctx)(Default), ": ", 3)[2])
		AddReportEntry("TrafficMoved after haproxy's split showed the gate", time.Since(routed).Round(time.Millisecond).String())
		Expect(firing(ctx, alerting)(Default)).NotTo(ContainElement("OMERoutingLostUpdate"))

		By("the gate lifts: nothing at weight 0 again, and the split follows the weights")
		set(modelserver.Serve, "worker-b")
		awaitRouting(ctx, all)
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(HavePrefix("True SplitMatched: "))

		By("HAProxy Ingress stopped: the route gives worker-b weight 0, haproxy keeps sending it requests")
		Expect(env.Gateway.Pause()).To(Succeed())
		set(modelserver.Unavailable, "worker-b")
		Eventually(routeWeights(ctx)).WithTimeout(timeout).WithPolling(interval).Should(Equal(gated))
		written := time.Now()
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(MatchRegexp(
			`^False StillServed: The gateway still sends requests to 1 cluster\(s\) the route holds at weight 0, ` +
				`so it may not follow the route \(a lost update\): worker-b: [0-9]+ request\(s\) in the 5s window from `))
		AddReportEntry("StillServed after the route was written", time.Since(written).Round(time.Millisecond).String())

		By("the start-here view and placement endpoint say worker-b still takes traffic, while haproxy sends it requests")
		Eventually(servingStates(ctx, "traffic", "status")).WithTimeout(timeout).WithPolling(interval).
			Should(HaveKeyWithValue("worker-b", "StillServedAtZero"))
		Expect(servingStates(ctx, "placement", "endpoint")(Default)).To(HaveKeyWithValue("worker-b", "StillServedAtZero"))
		Expect(trafficApplied(ctx)(Default)).To(ContainSubstring("worker-b: "), "haproxy still sends worker-b requests")
		start := pluginOutput(ctx, "traffic", "status", service.Name, "-n", service.Namespace, "-o", "wide")
		Expect(start).To(MatchRegexp(`Serving homes +3 of 3 home\(s\) take traffic; 2 weighted`))
		Expect(start).To(ContainSubstring("Serving state        StillServedAtZero: still takes traffic: the map holds it at 0 (Gated)"))
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

	It("judges the split between weighted clusters after a change of the weights: matched through haproxy, off while HAProxy Ingress is stopped", func(ctx context.Context) {
		alerting := startLoadAndAlerting(ctx)
		DeferCleanup(func(ctx context.Context) { setFactors(ctx, nil) })
		matched := `^True SplitMatched: The gateway's requests follow the route's weights: the split matches the weights within 10 points over [0-9]+ request\(s\): `

		By("worker-a's capacity factor triples its weight, and haproxy follows")
		tripled := map[string]int32{"worker-a": 9, "worker-b": 2, "worker-c": 1}
		setFactors(ctx, map[string]omev1beta1.CapacityFactor{"worker-a": "3"})
		awaitRouting(ctx, tripled)
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(MatchRegexp(
			matched + `worker-[abc] [0-9]+% of requests for (75|17|8)% of the weight`))
		AddReportEntry("split matched", strings.SplitN(trafficApplied(ctx)(Default), ": ", 3)[2])

		By("HAProxy Ingress stopped: the route goes back to 3:2:1, haproxy keeps 9:2:1")
		Expect(env.Gateway.Pause()).To(Succeed())
		setFactors(ctx, nil)
		Eventually(routeWeights(ctx)).WithTimeout(timeout).WithPolling(interval).Should(Equal(all))
		written := time.Now()
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(MatchRegexp(
			`^False SplitMismatch: The gateway's requests do not follow the route's weights, so it may not follow the route \(a lost update\): ` +
				`the split is off the weights by [0-9]+ points \(tolerance 10\) over [0-9]+ request\(s\): worker-a [0-9]+% of requests for 50% of the weight`))
		AddReportEntry("SplitMismatch after the route was written", time.Since(written).Round(time.Millisecond).String())
		Eventually(firing(ctx, alerting)).WithTimeout(2*dataplane.SignalTiming.Interval + 2*dataplane.SignalTiming.Scrape).WithPolling(interval).
			Should(ContainElement("OMERoutingSplitOffWeights"))

		By("HAProxy Ingress back: haproxy follows the route, the mismatch clears")
		Expect(env.Gateway.Resume()).To(Succeed())
		awaitRouting(ctx, all)
		Eventually(trafficApplied(ctx)).WithTimeout(evidenceBound + timeout).WithPolling(interval).Should(MatchRegexp(matched))
		Eventually(firing(ctx, alerting)).WithTimeout(timeout).WithPolling(interval).ShouldNot(ContainElement("OMERoutingSplitOffWeights"))
	})
})

// setFactors replaces the service's capacity factors.
func setFactors(ctx context.Context, factors map[string]omev1beta1.CapacityFactor) {
	GinkgoHelper()
	updateService(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.CapacityFactors = factors })
}

// pluginOutput runs the kubectl-ome binary against the control plane and returns what it
// printed.
func pluginOutput(ctx context.Context, args ...string) string {
	GinkgoHelper()
	cmd := exec.CommandContext(ctx, env.Plugin, args...)
	cmd.Env = append(cmd.Environ(), "KUBECONFIG="+env.KubeConfig, "HOME="+GinkgoT().TempDir())
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), "kubectl-ome %s", strings.Join(args, " "))
	return string(out)
}

// servingStates reads each route home's serving state from a plugin report's JSON
// (`traffic status` or `placement endpoint`).
func servingStates(ctx context.Context, command ...string) func(Gomega) map[string]string {
	return func(g Gomega) map[string]string {
		out := pluginOutput(ctx, append(command, service.Name, "-n", service.Namespace, "-o", "json")...)
		var report struct {
			RouteHomes []struct {
				Cluster string `json:"cluster"`
				Serving struct {
					State string `json:"state"`
				} `json:"serving"`
			} `json:"routeHomes"`
			Content struct {
				RouteHomes []struct {
					Cluster string `json:"cluster"`
					Serving struct {
						State string `json:"state"`
					} `json:"serving"`
				} `json:"routeHomes"`
			} `json:"content"`
		}
		g.Expect(json.Unmarshal([]byte(out), &report)).To(Succeed(), out)
		states := map[string]string{}
		for _, h := range report.RouteHomes {
			states[h.Cluster] = h.Serving.State
		}
		for _, h := range report.Content.RouteHomes {
			states[h.Cluster] = h.Serving.State
		}
		return states
	}
}
