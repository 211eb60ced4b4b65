package placement

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// probedAgo is the drained-and-gated map with both homes last probed ago before now, a
// recorded probe period and record interval (zero leaves it out), and its conditions
// written for its generation.
func probedAgo(ago, period, recordInterval time.Duration) *omev1beta1.TrafficMap {
	tm := drainedAndGated()
	at := metav1.NewTime(now.Add(-ago))
	for i := range tm.Spec.Entries {
		tm.Spec.Entries[i].Probe.LastProbeTime = &at
	}
	if period > 0 {
		tm.Status.ProbePeriod = &metav1.Duration{Duration: period}
	}
	if recordInterval > 0 {
		tm.Status.ProbeRecordInterval = &metav1.Duration{Duration: recordInterval}
	}
	for i := range tm.Status.Conditions {
		tm.Status.Conditions[i].ObservedGeneration = tm.Generation
	}
	return tm
}

// A map whose probes stopped being recorded reads Stale from the time of its newest
// record, although it matches the service: the manager stopped, and nothing else on the
// map changes.
func TestRoutingFreshnessFollowsTheLastProbe(t *testing.T) {
	cases := []struct {
		name string
		tm   *omev1beta1.TrafficMap
		want string // the stale reason, "" for Current
	}{
		{"probed within a period", probedAgo(8*time.Second, 10*time.Second, 0), ""},
		{"probed three periods and the clock allowance ago", probedAgo(35*time.Second, 10*time.Second, 0), ""},
		{"not probed for more", probedAgo(43*time.Second, 10*time.Second, 0),
			"last probe recorded 43s ago (2026-11-30T09:59:17Z), 4 probe periods of 10s; a running manager records one within 35s, so it may be stopped or behind"},
		{"quiet rounds under recordInterval", probedAgo(80*time.Second, 10*time.Second, time.Minute), ""},
		{"past recordInterval too", probedAgo(96*time.Second, 10*time.Second, time.Minute),
			"last probe recorded 96s ago (2026-11-30T09:58:24Z), 9 probe periods of 10s; a running manager records one within 95s, so it may be stopped or behind"},
		{"a map that records no period: the longest default period is assumed", probedAgo(14*time.Minute, 0, 0), ""},
		{"and past three of those", probedAgo(16*time.Minute, 0, 0),
			"last probe recorded 16m ago (2026-11-30T09:44:00Z), 3 probe periods of 5m0s (assumed: the map records no probe period); " +
				"a running manager records one within 15m, so it may be stopped or behind"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := buildReport(source(), tc.tm, nil, now).Content
			if c.RoutingStaleReason != tc.want {
				t.Fatalf("stale reason\n%q, want\n%q", c.RoutingStaleReason, tc.want)
			}
			wantFresh, wantCause := Current, ""
			if tc.want != "" {
				wantFresh, wantCause = Stale, NoRecentProbe
			}
			if c.RoutingFreshness != wantFresh || c.RoutingStaleCause != wantCause {
				t.Fatalf("routing %s (%s), want %s (%s)", c.RoutingFreshness, c.RoutingStaleCause, wantFresh, wantCause)
			}
			for _, cond := range c.Conditions {
				if cond.Reason != NotRecorded && cond.Freshness != wantFresh {
					t.Errorf("%s is %s, want %s with the routing", cond.Type, cond.Freshness, wantFresh)
				}
			}
		})
	}

	staleReport := buildReport(source(), probedAgo(43*time.Second, 10*time.Second, 0), nil, now)
	if wide := rowsText(endpointRows(staleReport, true)); !strings.Contains(wide, "Routing freshness    Stale: "+staleReport.Content.RoutingStaleReason+"\n") {
		t.Errorf("-o wide lacks the whole stale reason:\n%s", wide)
	}
	stale := rowsText(endpointRows(staleReport, false))
	for _, line := range []string{
		"Routing freshness    Stale: last probe recorded 43s ago\n" +
			"                     (2026-11-30T09:59:17Z), 4 probe periods of 10s; a\n" +
			"                     running manager records one within 35s, so it may be\n" +
			"                     stopped or behind\n",
		"Traffic override     True: OverridesApplied (Stale)\n",
		"Routable freshness   Stale: NoRecentProbe\n",
		"Settings accepted    True: Accepted (Stale)\n",
	} {
		if !strings.Contains(stale, line) {
			t.Errorf("the table lacks %q:\n%s", line, stale)
		}
	}
}

// Records that say nothing of the manager's pace do not make the routing Stale.
func TestRoutingFreshnessWithoutUsableProbeRecords(t *testing.T) {
	unprobed := probedAgo(0, 10*time.Second, 0)
	for i := range unprobed.Spec.Entries {
		unprobed.Spec.Entries[i].Probe = nil
	}
	// One home's record from a clock far ahead, the other's an hour old: the hour counts.
	ahead := probedAgo(time.Hour, 10*time.Second, 0)
	future := metav1.NewTime(now.Add(time.Hour))
	ahead.Spec.Entries[0].Probe.LastProbeTime = &future
	// A record a moment ahead (the manager's clock a little fast) is the newest.
	fast := probedAgo(time.Hour, 10*time.Second, 0)
	soon := metav1.NewTime(now.Add(2 * time.Second))
	fast.Spec.Entries[1].Probe.LastProbeTime = &soon
	for name, tc := range map[string]struct {
		tm    *omev1beta1.TrafficMap
		stale bool
	}{
		"no probe has run":                      {unprobed, false},
		"a record from the future is set aside": {ahead, true},
		"a record a moment ahead is the newest": {fast, false},
		"the newest record decides, not the oldest": {func() *omev1beta1.TrafficMap {
			tm := probedAgo(time.Hour, 10*time.Second, 0)
			tm.Spec.Entries[1].Probe.LastProbeTime = &metav1.Time{Time: now.Add(-time.Second)}
			return tm
		}(), false},
	} {
		t.Run(name, func(t *testing.T) {
			c := buildReport(source(), tc.tm, nil, now).Content
			if got := c.RoutingFreshness == Stale; got != tc.stale {
				t.Fatalf("stale %v (%s), want %v", got, c.RoutingStaleReason, tc.stale)
			}
		})
	}
}

// steadyMap is the map as a running manager leaves it between two writes: probe rounds
// have moved its generation to gen, the route last changed at routeGen, and Routable and
// Published were written for the generations given.
func steadyMap(gen, routeGen, routable, published int64) *omev1beta1.TrafficMap {
	tm := probedAgo(time.Second, time.Second, 0)
	tm.Generation = gen
	tm.Status.RouteGeneration = routeGen
	tm.Status.Conditions = []metav1.Condition{
		{Type: "Routable", Status: "False", Reason: "TrafficDrain", ObservedGeneration: routable},
		{Type: "OverrideActive", Status: "True", Reason: "OverridesApplied",
			Message:            "1 of 1 traffic-drain annotation override(s) active across 1 route arm(s); inspect spec.entries[].drainRefs",
			ObservedGeneration: routable},
		{Type: "Published", Status: "True", Reason: "Published", ObservedGeneration: published},
		{Type: "SettingsAccepted", Status: "True", Reason: "Accepted", ObservedGeneration: routable},
	}
	return tm
}

// Every probe round moves the map's generation, and each writer of a condition follows a
// moment later (the publisher last of all): a lag behind generations that only moved
// probe records is not Stale. Published flickered Stale in about one call in five.
func TestConditionFreshnessAtSteadyState(t *testing.T) {
	cases := []struct {
		name                   string
		tm                     *omev1beta1.TrafficMap
		wantRoutable, wantPubl string
	}{
		{"everything written for the generation", steadyMap(40, 12, 40, 40), Current, Current},
		{"the publisher a round behind", steadyMap(40, 12, 40, 39), Current, Current},
		{"the publisher many rounds behind, none of them a route change", steadyMap(40, 12, 40, 12), Current, Current},
		{"the spec written, the routing status not yet", steadyMap(41, 12, 40, 40), Current, Current},
		{"the publisher has not seen the route's last change", steadyMap(40, 38, 40, 37), Current, Stale},
		{"Routable from before the route's last change", steadyMap(40, 38, 37, 40), Stale, Current},
		{"a condition from a generation the map has not reached", steadyMap(40, 12, 41, 40), Stale, Current},
		{"a map without routeGeneration compares generations", steadyMap(40, 0, 40, 39), Current, Stale},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := buildReport(source(), tc.tm, nil, now).Content
			if c.RoutingFreshness != Current {
				t.Fatalf("routing %s: %s", c.RoutingFreshness, c.RoutingStaleReason)
			}
			got := map[string]string{}
			for _, cond := range c.Conditions {
				got[cond.Type] = cond.Freshness
			}
			if got["Routable"] != tc.wantRoutable || got["Published"] != tc.wantPubl {
				t.Fatalf("Routable %s, Published %s; want %s, %s", got["Routable"], got["Published"], tc.wantRoutable, tc.wantPubl)
			}
		})
	}
}

// A frozen map says so, with the refusal, instead of reading as healthy.
func TestEndpointShowsAFrozenMap(t *testing.T) {
	const refusal = "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"
	tm := probedAgo(10*time.Minute, time.Second, 0)
	tm.Status.Conditions = append(tm.Status.Conditions[:2], metav1.Condition{Type: "SettingsAccepted", Status: "False",
		Reason: "RoutingPolicyRefused", Message: refusal, ObservedGeneration: tm.Generation},
		metav1.Condition{Type: "Published", Status: "True", Reason: "Published", ObservedGeneration: tm.Generation})
	r := buildReport(source(), tm, nil, now)
	if c := r.Content; c.RoutingFreshness != Stale || c.RoutingStaleCause != Frozen {
		t.Fatalf("routing %s (%s), want Stale (Frozen)", c.RoutingFreshness, c.RoutingStaleCause)
	}
	table := rowsText(endpointRows(r, false))
	for _, line := range []string{
		"Routing freshness    Stale: frozen: the manager refuses a routing setting and\n" +
			"                     keeps the map as last written (see Frozen)\n",
		"Traffic override     True: OverridesApplied (Stale)\n",
		"Routable             False: TrafficDrain\nRoutable freshness   Stale: Frozen\n",
		"Published            True: Published (Stale)\n",
		"Settings accepted    False: RoutingPolicyRefused (Current)\n",
		"Frozen               RoutingPolicyRefused: resolve probe policy:\n" +
			"                     spec.routing.probe.period (500ms) must be at least\n" +
			"                     routing.observer.minPeriod (1s)\n",
	} {
		if !strings.Contains(table, line) {
			t.Errorf("the table lacks %q:\n%s", line, table)
		}
	}
	if wide := rowsText(endpointRows(r, true)); !strings.Contains(wide, "Frozen               RoutingPolicyRefused: "+refusal+"\n") {
		t.Errorf("-o wide lacks the whole refusal:\n%s", wide)
	}
	if healthy := rowsText(endpointRows(buildReport(source(), probedAgo(time.Second, time.Second, 0), nil, now), false)); strings.Contains(healthy, "Frozen") {
		t.Errorf("a map whose settings are accepted shows a Frozen row:\n%s", healthy)
	}
}
