package placement

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

var reportGroupVersion = schema.GroupVersion{Group: "cli.ome.io", Version: "v1alpha1"}

// previewHomes is how many route homes the narrow table lists before pointing at -o wide.
const previewHomes = 4

// conditionRowNames are the table's names for the conditions.
var conditionRowNames = map[string]string{
	"OverrideActive":   "Traffic override",
	"CapacityFallback": "Capacity fallback",
	"Routable":         "Routable",
	"Published":        "Published",
	"SettingsAccepted": "Settings accepted",
}

// endpointRows renders the report as FIELD/VALUE rows; wide adds each home's capacity and
// lists every home.
func endpointRows(r *EndpointReport, wide bool) []util.Row {
	c := r.Content
	rows := mapHeadRows(c, wide)
	for _, cond := range c.Conditions {
		name := conditionRowNames[cond.Type]
		if cond.Type != "Routable" {
			rows = append(rows, util.Row{Field: name, Value: fmt.Sprintf("%s: %s (%s)", cond.Status, cond.Reason, cond.Freshness)})
			continue
		}
		// Routable's freshness has its own row, with the reason a stale one is stale.
		rows = append(rows, util.Row{Field: name, Value: cond.Status + ": " + cond.Reason})
		fresh := cond.Freshness + ":"
		if cond.Freshness == Stale {
			fresh += " " + staleCode(c.RoutingStaleCause)
		}
		rows = append(rows, util.Row{Field: "Routable freshness", Value: fresh})
	}
	rows = append(rows, frozenRows(c.Conditions, wide)...)
	if c.Serving != nil {
		rows = append(rows, ServingRows(c.Serving, wide)...)
	}
	for _, issue := range c.Issues {
		rows = append(rows, util.Row{Field: "Issue", Value: issue})
	}
	rows = append(rows, failoverRows(c.Failover, wide)...)
	more, shown := preview("Route homes", len(c.RouteHomes), wide)
	rows = append(rows, more...)
	for _, h := range c.RouteHomes[:shown] {
		rows = append(rows, homeRows(h, c.Failover != nil, wide)...)
	}
	rows = append(rows, excludedRows(c.ExcludedClusters, wide)...)
	return append(rows,
		util.Row{Field: "Hint", Value: "Recorded probes only; no CLI network probe"},
		viewRow,
	)
}

// mapHeadRows say whether the TrafficMap was read and whether it shows the service as it
// is now; `placement status` shows them too.
func mapHeadRows(c EndpointContent, wide bool) []util.Row {
	return []util.Row{
		{Field: "TrafficMap state", Value: c.TrafficMap.State},
		{Field: "TrafficMap reason", Value: c.TrafficMap.Reason},
		{Field: "Routing freshness", Value: routingFreshnessValue(c), Wrap: true, Whole: wide},
	}
}

// homeRows are one route home's rows; failover says the map has a tier split, which gives
// every home a Tier row.
func homeRows(h RouteHome, failover, wide bool) []util.Row {
	probe, gate, last, policy, gateCode := NotRecorded, NotRecorded, NotRecorded, NotRecorded, NotRecorded
	if p := h.Probe; p != nil {
		probe = p.Result
		if p.Message != "" {
			probe += ": " + p.Message
		}
		gateCode = "False"
		if p.Gated {
			gateCode = "True"
		}
		gate = fmt.Sprintf("%s (Reported); failures=%d", gateCode, p.ConsecutiveFailures)
		last, policy = p.LastProbeAge, p.PolicyDigest
	}
	drains := "Validated"
	if len(h.DrainRefs) > 0 {
		drains = strings.Join(h.DrainRefs, ",")
	}
	rows := []util.Row{
		{Field: "Route home", Value: h.Cluster},
		{Field: "Endpoint origin", Value: h.EndpointOrigin},
	}
	// The tier comes before the weight it explains (Spilled, Standby).
	rows = append(rows, tierRow(h, failover)...)
	rows = append(rows,
		util.Row{Field: "Final weight", Value: fmt.Sprintf("%d; healthy=%t", h.Weight, h.Healthy)},
		ServingRow(h.Serving, wide),
		weightRow(h, wide),
	)
	if h.Warning != "" {
		// Only while there is one, so that a home without prints as it always has.
		rows = append(rows, util.Row{Field: "Warning", Value: h.Warning, Wrap: true, Whole: wide})
	}
	rows = append(rows, []util.Row{
		// The probe's message is often the only clue (an address, a refused connection), and
		// its end matters most: it wraps rather than being cut, and -o wide keeps it whole.
		{Field: "Recorded probe", Value: probe, Wrap: true, Whole: wide},
		{Field: "Probe gate", Value: gate},
	}...)
	rows = append(rows, probeExtensionRows(h.Probe)...)
	rows = append(rows, []util.Row{
		{Field: "Last probed", Value: last},
		{Field: "Route evidence", Value: fmt.Sprintf("drains=%d; gate=%s; fallback=%s", len(h.DrainRefs), gateCode, fallbackCode(h.Capacity.FallbackReason))},
		{Field: "Drain refs", Value: drains},
		{Field: "Probe policy", Value: policy},
	}...)
	if wide {
		factor := NotRecorded
		if h.Capacity.Factor != "" {
			factor = h.Capacity.Factor
		}
		rows = append(rows,
			util.Row{Field: "Capacity provenance", Value: h.Capacity.Source},
			util.Row{Field: "Allocated count", Value: count(h.Capacity.Allocated)},
			util.Row{Field: "Ready count", Value: count(h.Capacity.Ready)},
			util.Row{Field: "Capacity factor", Value: factor},
			util.Row{Field: "Reported count", Value: reported(h.Capacity.Reported)},
			util.Row{Field: "Home cap fallback", Value: fallbackCode(h.Capacity.FallbackReason)},
		)
	}
	return rows
}

// probeExtensionRows show what the probe's optional settings record for a home, each only
// while it is set, so that a probe without them prints as it always has: the gate a
// Shadow probe would set, the flap-damping factor of the home's gate, and its ramp.
func probeExtensionRows(p *ProbeView) []util.Row {
	if p == nil {
		return nil
	}
	var rows []util.Row
	if p.WouldGate {
		rows = append(rows, util.Row{Field: "Shadow gate", Value: "True (Reported); weight unchanged"})
	}
	if p.DampingFactor > 1 {
		rows = append(rows, util.Row{Field: "Damping factor",
			Value: fmt.Sprintf("%d (Reported); lifting needs successThreshold x %d", p.DampingFactor, p.DampingFactor)})
	}
	if p.RampPercent > 0 {
		rows = append(rows, util.Row{Field: "Ramp", Value: fmt.Sprintf("%d%% of its weight (Reported)", p.RampPercent)})
	}
	return rows
}

// reported is the ceiling a home's capacity reports gave, or NotRecorded without one.
func reported(n *int32) string {
	if n == nil {
		return NotRecorded
	}
	return fmt.Sprintf("%d (Reported)", *n)
}

func count(n int32) string {
	if n == 0 {
		return "Unknown"
	}
	return fmt.Sprintf("%d (Reported)", n)
}

// routingFreshnessValue is "Current", or "Stale: <what is not observed yet>".
func routingFreshnessValue(c EndpointContent) string {
	if c.RoutingStaleReason == "" {
		return c.RoutingFreshness
	}
	return c.RoutingFreshness + ": " + c.RoutingStaleReason
}

// staleCode is why a stale Routable is stale: the cause of the routing's staleness, or
// StaleGeneration when the routing is current and Routable alone lags its map.
func staleCode(cause string) string {
	if cause == "" {
		return StaleGeneration
	}
	return cause
}

// frozenRows say that the map is frozen, with the refusal that freezes it (which names the
// setting and the rule), while SettingsAccepted is False. The refusal is the thing to fix,
// so it wraps rather than being cut, and -o wide keeps it whole.
func frozenRows(conditions []ConditionView, wide bool) []util.Row {
	for _, cond := range conditions {
		if cond.Type == "SettingsAccepted" && cond.Status == "False" {
			return []util.Row{{Field: "Frozen", Value: cond.Reason + ": " + cond.Message, Wrap: true, Whole: wide}}
		}
	}
	return nil
}
