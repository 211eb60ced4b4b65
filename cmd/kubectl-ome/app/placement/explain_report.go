package placement

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// The words of `placement explain`.
const (
	Absent     = "Absent"
	Inherited  = "Inherited"
	Disabled   = "Disabled"
	Configured = "Configured"
	OptIn      = "OptIn"
	OptOut     = "OptOut"
	// InstallRouting is all the plugin can say of the installation's routing: its gate and
	// defaults are in the manager's settings, which its read-only rights do not reach.
	InstallRouting = "Gate/defaults unobserved"
)

// The CRD's bounds on spec.routing; past them (an object stored through another schema)
// the intent is not judged.
const (
	maxCapacityFactors = 256
	maxFailoverTiers   = 8
)

// ExplainReport is `placement explain`'s view of a service's routing settings and of the
// registered workload clusters, uncut.
type ExplainReport struct {
	metav1.TypeMeta `json:",inline"`
	CollectedAt     metav1.Time    `json:"collectedAt"`
	Target          ReportTarget   `json:"target"`
	Content         ExplainContent `json:"content"`
	// Warnings is always empty: problems are in content.issues.
	Warnings []string `json:"warnings"`
}

// ExplainContent is the service's spec.routing, read as the manager reads it, and the
// fleet.
type ExplainContent struct {
	// Serving sums up the route homes' serving states, as `placement endpoint` shows it;
	// absent without a map.
	Serving *ServingSummary `json:"serving,omitempty"`
	// RoutingIntent is Absent without spec.routing, Invalid while the manager refuses one
	// of its settings (the TrafficMap's SettingsAccepted is False), BudgetExceeded past the
	// CRD's bounds, Declared otherwise.
	RoutingIntent string `json:"routingIntent"`
	// IntentRefusal is the manager's refusal, when Invalid.
	IntentRefusal     string `json:"intentRefusal,omitempty"`
	RoutingEnablement string `json:"routingEnablement"`
	InstallRouting    string `json:"installRouting"`
	// Routing is left out when the intent is Absent.
	Routing *RoutingView `json:"routing,omitempty"`
	Fleet   FleetView    `json:"fleet"`
	Issues  []string     `json:"issues"`
}

// RoutingView is each part of spec.routing: Inherited (unset: the installation's applies),
// Disabled (turned off for this service) or Configured, and the settings uncut.
type RoutingView struct {
	// CapacityFactors is "Routing (<n>)" for n factors, Inherited without.
	CapacityFactors string `json:"capacityFactors"`
	Probe           string `json:"probe"`
	Capacity        string `json:"capacity"`
	// Failover is "Configured (<n> tiers)", Inherited or Disabled.
	Failover string `json:"failover"`
	// PublisherOptions is "Configured (<n>)" for the n keys of spec.routing.publisher.options,
	// else "Inherited (0)": the installation's apply.
	PublisherOptions string                          `json:"publisherOptions"`
	ProbeSpec        *omev1beta1.RoutingProbe        `json:"probeSpec,omitempty"`
	CapacitySpec     *omev1beta1.RoutingCapacitySpec `json:"capacitySpec,omitempty"`
	FailoverSpec     *omev1beta1.RoutingFailover     `json:"failoverSpec,omitempty"`
}

// DeepCopyObject makes the report a runtime.Object for cli-runtime's printers; it is built
// once and only printed.
func (r *ExplainReport) DeepCopyObject() runtime.Object {
	c := *r
	c.Content.Fleet.Clusters = slices.Clone(r.Content.Fleet.Clusters)
	c.Content.Issues = slices.Clone(r.Content.Issues)
	return &c
}

// buildExplain turns what Read and readFleet returned into the explain report.
func buildExplain(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap, tmErr error, fleet fleetRead, now time.Time) *ExplainReport {
	ep := buildReport(isvc, tm, tmErr, now)
	st := statusFrom(isvc, ep)
	r := &ExplainReport{CollectedAt: st.CollectedAt, Target: st.Target, Warnings: []string{}}
	r.SetGroupVersionKind(reportGroupVersion.WithKind("PlacementExplainReport"))
	c := &r.Content
	c.Issues = []string{}
	c.InstallRouting = InstallRouting
	c.Serving = ep.Content.Serving
	routing := isvc.Spec.Routing
	c.RoutingEnablement = Inherited
	if routing != nil && routing.Enabled != nil {
		c.RoutingEnablement = map[bool]string{true: OptIn, false: OptOut}[*routing.Enabled]
	}
	c.RoutingIntent, c.IntentRefusal = intentOf(routing, ep.Content.Conditions)
	if c.RoutingIntent != Absent {
		c.Routing = routingView(routing)
	}
	c.Fleet = fleetView(fleet, isvc, st.Content.Homes)
	if c.Fleet.State != Observed {
		c.Issues = append(c.Issues, fmt.Sprintf("Fleet: %s (%s)", c.Fleet.State, c.Fleet.Reason))
	}
	return r
}

func intentOf(routing *omev1beta1.Routing, conditions []ConditionView) (string, string) {
	if routing == nil {
		return Absent, ""
	}
	if len(routing.CapacityFactors) > maxCapacityFactors || (routing.Failover != nil && len(routing.Failover.Tiers) > maxFailoverTiers) {
		return BudgetExceeded, ""
	}
	for _, cond := range conditions {
		if cond.Type == omev1beta1.TrafficMapSettingsAccepted && cond.Status == string(metav1.ConditionFalse) {
			return Invalid, cond.Reason + ": " + cond.Message
		}
	}
	return Declared, ""
}

func routingView(routing *omev1beta1.Routing) *RoutingView {
	v := &RoutingView{CapacityFactors: Inherited, Probe: Inherited, Capacity: Inherited, Failover: Inherited, PublisherOptions: Inherited + " (0)"}
	if n := len(routing.CapacityFactors); n > 0 {
		v.CapacityFactors = fmt.Sprintf("Routing (%d)", n)
	}
	if p := routing.Probe; p != nil {
		v.Probe = Configured
		if p.Disabled {
			v.Probe = Disabled
		}
		v.ProbeSpec = p.DeepCopy()
	}
	if p := routing.Capacity; p != nil {
		v.Capacity = Configured
		if p.Disabled {
			v.Capacity = Disabled
		}
		v.CapacitySpec = p.DeepCopy()
	}
	if p := routing.Publisher; p != nil && len(p.Options) > 0 {
		v.PublisherOptions = fmt.Sprintf("%s (%d)", Configured, len(p.Options))
	}
	if f := routing.Failover; f != nil {
		v.Failover = fmt.Sprintf("%s (%d tiers)", Configured, len(f.Tiers))
		if f.Disabled {
			v.Failover = Disabled
		}
		v.FailoverSpec = f.DeepCopy()
	}
	return v
}

// The wide rows of a configured probe and poll; "-" for what is unset (inherited or
// disabled).

func probeDetailRows(p *omev1beta1.RoutingProbe) [][2]string {
	if p == nil || p.Disabled {
		p = &omev1beta1.RoutingProbe{}
	}
	return [][2]string{
		{"Probe method", orDash(string(p.Method))},
		{"Probe statuses", pair("accept", statuses(p.AcceptStatuses), "gate", statuses(p.GateStatuses))},
		{"Probe thresholds", pair("failure", int32s(p.FailureThreshold), "success", int32s(p.SuccessThreshold))},
		{"Probe timing", pair("period", durations(p.Period), "timeout", durations(p.Timeout))},
		{"All-failed policy", orDash(string(p.AllFailedPolicy))},
	}
}

func capacityDetailRows(p *omev1beta1.RoutingCapacitySpec) [][2]string {
	if p == nil || p.Disabled {
		p = &omev1beta1.RoutingCapacitySpec{}
	}
	window := "-"
	if p.Samples != nil || p.Quorum != nil || p.MaxAge != nil {
		window = fmt.Sprintf("samples=%s; quorum=%s; maxAge=%s", int32s(p.Samples), int32s(p.Quorum), durations(p.MaxAge))
	}
	return [][2]string{
		{"Capacity method", orDash(string(p.Method))},
		{"Capacity window", window},
		{"Capacity timing", pair("period", durations(p.Period), "timeout", durations(p.Timeout))},
	}
}

// pair is "a=x; b=y", or "-" when both are unset.
func pair(a, x, b, y string) string {
	if x == "-" && y == "-" {
		return "-"
	}
	return a + "=" + x + "; " + b + "=" + y
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func statuses(s []omev1beta1.HTTPStatus) string {
	if len(s) == 0 {
		return "-"
	}
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ",")
}

func int32s(n *int32) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

func durations(d *metav1.Duration) string {
	if d == nil {
		return "-"
	}
	return d.Duration.String()
}
