package placement

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// failoverMap is a map built under failover tiers: east has lost capacity and takes 70%,
// west takes the 30% east lacks, and worker-c, which no tier names, stands by.
func failoverMap() *omev1beta1.TrafficMap {
	return &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", Generation: 2,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "ome.io/v1beta1", Kind: "InferenceService", Name: "chat", UID: "isvc-uid", Controller: ptr.To(true)}}},
		Spec: omev1beta1.TrafficMapSpec{Service: "chat", ObservedISVCGeneration: 3,
			Failover: &omev1beta1.TrafficMapFailover{OverprovisioningPercent: 140, Summary: "east 70%, west 30%, unlisted 0%",
				Tiers: []omev1beta1.TrafficMapTier{{Name: "east", Health: 70, LoadPercent: 70}, {Name: "west", Health: 100, LoadPercent: 30},
					{Name: omev1beta1.UnlistedTier, Health: 100, LoadPercent: 0}}},
			Entries: []omev1beta1.TrafficMapEntry{
				{Cluster: "worker-a", Endpoint: "https://a.example.com", Weight: 70, Healthy: true, Tier: "east",
					WeightReason: omev1beta1.WeightRouted},
				{Cluster: "worker-b", Endpoint: "https://b.example.com", Weight: 30, Healthy: true, Tier: "west",
					WeightReason: omev1beta1.WeightSpilled, WeightMessage: "takes the 30% the tiers before it lack"},
				{Cluster: "worker-c", Endpoint: "https://c.example.com", Weight: 0, Healthy: true, Tier: omev1beta1.UnlistedTier,
					WeightReason: omev1beta1.WeightStandby, WeightMessage: "tier unlisted gets no traffic while east and west take it all"},
			}},
	}
}

func TestEndpointTableWithFailover(t *testing.T) {
	isvc := source()
	isvc.Annotations = nil
	r := buildReport(isvc, failoverMap(), nil, now)
	want := `FIELD                VALUE
TrafficMap state     Observed
TrafficMap reason
Routing freshness    Current
Traffic override     Unknown: NotRecorded (Unverifiable)
Capacity fallback    Unknown: NotRecorded (Unverifiable)
Routable             Unknown: NotRecorded
Routable freshness   Unverifiable:
Published            Unknown: NotRecorded (Unverifiable)
Settings accepted    Unknown: NotRecorded (Unverifiable)
Serving homes        NotRecorded
Failover             3 tier(s); overprovisioning 140%
Failover tier        east: load 70%; health 70 of 100
Failover tier        west: load 30%; health 100 of 100
Failover tier        unlisted: load 0%; health 100 of 100
Route home           worker-a
Endpoint origin      https://a.example.com
Tier                 east
Final weight         70; healthy=true
Serving state        Unknown: the manager recorded no serving state for it
Weight reason        Routed
Recorded probe       NotRecorded
Probe gate           NotRecorded
Last probed          NotRecorded
Route evidence       drains=0; gate=NotRecorded; fallback=NotRecorded
Drain refs           Validated
Probe policy         NotRecorded
Route home           worker-b
Endpoint origin      https://b.example.com
Tier                 west
Final weight         30; healthy=true
Serving state        Unknown: the manager recorded no serving state for it
Weight reason        Spilled: takes the 30% the tiers before it lack
Recorded probe       NotRecorded
Probe gate           NotRecorded
Last probed          NotRecorded
Route evidence       drains=0; gate=NotRecorded; fallback=NotRecorded
Drain refs           Validated
Probe policy         NotRecorded
Route home           worker-c
Endpoint origin      https://c.example.com
Tier                 unlisted
Final weight         0; healthy=true
Serving state        Unknown: the manager recorded no serving state for it
Weight reason        Standby: tier unlisted gets no traffic while east and
                     west take it all
Recorded probe       NotRecorded
Probe gate           NotRecorded
Last probed          NotRecorded
Route evidence       drains=0; gate=NotRecorded; fallback=NotRecorded
Drain refs           Validated
Probe policy         NotRecorded
Hint                 Recorded probes only; no CLI network probe
View                 Bounded cells; use -o json for complete identities
`
	if got := rowsText(endpointRows(r, false)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	wide := rowsText(endpointRows(r, true))
	for _, line := range []string{
		"Failover tier        unlisted: load 0%; health 100 of 100\nRoute home           worker-a\nEndpoint origin      https://a.example.com\nTier                 east\n",
		"Weight reason        Standby: tier unlisted gets no traffic while east and west take it all\n",
	} {
		if !strings.Contains(wide, line) {
			t.Errorf("wide output lacks %q:\n%s", line, wide)
		}
	}
}

// A map without failover has no tier rows at all, and its JSON no tier fields: it prints
// as it did before tiers existed (TestEndpointTable holds the whole table).
func TestEndpointWithoutFailoverHasNoTiers(t *testing.T) {
	r := buildReport(source(), drainedAndGated(), nil, now)
	for _, wide := range []bool{false, true} {
		if got := rowsText(endpointRows(r, wide)); strings.Contains(got, "Tier") || strings.Contains(got, "Failover") {
			t.Errorf("a map without failover prints tier rows (wide=%t):\n%s", wide, got)
		}
	}
	var b bytes.Buffer
	if err := util.PrintObject("json", r, &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"tier"`) || strings.Contains(b.String(), `"failover"`) {
		t.Errorf("JSON of a map without failover has tier fields: %s", b.String())
	}
}

func TestEndpointFailoverObject(t *testing.T) {
	tm := failoverMap()
	tm.Spec.Entries[2].Tier = "" // from a manager that wrote no tier for it
	var b bytes.Buffer
	if err := util.PrintObject("json", buildReport(source(), tm, nil, now), &b); err != nil {
		t.Fatal(err)
	}
	var got EndpointReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	f := got.Content.Failover
	if f == nil || f.OverprovisioningPercent != 140 || f.Summary != "east 70%, west 30%, unlisted 0%" || len(f.Tiers) != 3 ||
		f.Tiers[1] != (TierView{Name: "west", Health: 100, LoadPercent: 30}) {
		t.Errorf("failover: %+v", f)
	}
	if h := got.Content.RouteHomes; h[0].Tier != "east" || h[1].Tier != "west" || h[2].Tier != "" {
		t.Errorf("tiers: %q %q %q", h[0].Tier, h[1].Tier, h[2].Tier)
	}
	if text := rowsText(endpointRows(&got, false)); !strings.Contains(text, "Route home           worker-c\nEndpoint origin      https://c.example.com\nTier                 NotRecorded\n") {
		t.Errorf("a home without a tier in a map with failover:\n%s", text)
	}
}
