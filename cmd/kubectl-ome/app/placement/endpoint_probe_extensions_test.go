package placement

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// withProbeExtensions is drainedAndGated with what the probe's optional settings record:
// worker-a ramping back up under rampUp after a damped gate, worker-b gated by a Shadow
// probe, which records it as wouldGate.
func withProbeExtensions() []byte {
	tm := drainedAndGated()
	lifted := metav1.NewTime(now.Add(-30 * time.Second))
	a, b := tm.Spec.Entries[0].Probe, tm.Spec.Entries[1].Probe
	a.RampPercent, a.DampingFactor, a.LastLiftTime = 43, 4, &lifted
	b.Gated, b.WouldGate = false, true
	r := buildReport(source(), tm, nil, now)
	var out bytes.Buffer
	if err := util.PrintFixedRows(&out, endpointRows(r, false)); err != nil {
		panic(err)
	}
	return out.Bytes()
}

func TestEndpointShowsTheProbeExtensions(t *testing.T) {
	got := string(withProbeExtensions())
	for _, block := range []string{
		"Probe gate           False (Reported); failures=0\n" +
			"Damping factor       4 (Reported); lifting needs successThreshold x 4\n" +
			"Ramp                 43% of its weight (Reported)\n" +
			"Last probed          12s ago\n",
		"Probe gate           False (Reported); failures=3\n" +
			"Shadow gate          True (Reported); weight unchanged\n" +
			"Last probed          12s ago\n",
	} {
		if !strings.Contains(got, block) {
			t.Errorf("the table lacks\n%s\nit printed:\n%s", block, got)
		}
	}
	// Without the settings, none of the rows shows (TestEndpointTable has the whole table).
	plain := rowsText(endpointRows(buildReport(source(), drainedAndGated(), nil, now), true))
	for _, row := range []string{"Shadow gate", "Damping factor", "Ramp "} {
		if strings.Contains(plain, row) {
			t.Errorf("a probe without the optional settings shows %q:\n%s", row, plain)
		}
	}
}

func TestEndpointObjectCarriesTheProbeExtensions(t *testing.T) {
	tm := drainedAndGated()
	lifted := metav1.NewTime(now.Add(-30 * time.Second))
	a := tm.Spec.Entries[0].Probe
	a.RampPercent, a.DampingFactor, a.LastLiftTime = 43, 4, &lifted
	tm.Spec.Entries[1].Probe.Gated, tm.Spec.Entries[1].Probe.WouldGate = false, true
	var b bytes.Buffer
	if err := util.PrintObject("json", buildReport(source(), tm, nil, now), &b); err != nil {
		t.Fatal(err)
	}
	var got EndpointReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	pa, pb := got.Content.RouteHomes[0].Probe, got.Content.RouteHomes[1].Probe
	if pa.RampPercent != 43 || pa.DampingFactor != 4 || pa.LastLiftTime == nil || !pa.LastLiftTime.Equal(&lifted) || pa.WouldGate {
		t.Errorf("worker-a probe %+v", pa)
	}
	if !pb.WouldGate || pb.Gated || pb.RampPercent != 0 {
		t.Errorf("worker-b probe %+v", pb)
	}
	var plain bytes.Buffer
	if err := util.PrintObject("json", buildReport(source(), drainedAndGated(), nil, now), &plain); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"wouldGate", "dampingFactor", "rampPercent", "lastLiftTime"} {
		if strings.Contains(plain.String(), key) {
			t.Errorf("JSON without the optional settings has %q", key)
		}
	}
}
