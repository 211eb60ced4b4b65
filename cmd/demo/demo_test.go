package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/test/framework"
)

// testTiming is the demo's timing halved, so that the story runs in about 20 seconds once
// the API servers are up. Step is generous: the test shares two cores with other suites.
var testTiming = Timing{Period: time.Second, Timeout: 500 * time.Millisecond, Step: 45 * time.Second, Ready: 90 * time.Second, Poll: 100 * time.Millisecond}

// TestDemoStory runs the demo's story, the code `make demo` runs, so that the demo cannot
// rot: each step must reach its state, and the test then checks that state itself, field
// by field, rather than trusting the story's own wait.
//
// It runs the manager binary make test built (OME_MANAGER_BIN), or one built from this
// checkout for the test (a bin/manager left from an older `make build` could be stale);
// DEMO_IN_PROCESS=1 runs the controllers in the test's process instead.
func TestDemoStory(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set, so no API server can start: run `make test`, which builds and sets it")
	}
	kubectl := os.Getenv("KUBECTL")
	if kubectl == "" {
		kubectl = filepath.Join(assets, "kubectl")
	}
	// The demo's client and envtest log through controller-runtime and klog; unset, they
	// warn on stderr after 30 seconds.
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	klog.SetLogger(ctrl.Log)

	// The printer serialises its writes, and the test reads the transcript only between
	// steps, so a plain buffer will do.
	transcript := &bytes.Buffer{}
	d := New(Config{Dir: t.TempDir(), Kubectl: kubectl, Manager: managerBinary(t), Plugin: pluginBinary(t), Timing: testTiming,
		Egctl: os.Getenv("EGCTL")},
		NewPrinter(io.MultiWriter(t.Output(), transcript)))
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	ctx := t.Context()
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.StartManager(ctx); err != nil {
		t.Fatal(err)
	}

	steps := d.Steps()
	if len(steps) != len(wantStates) {
		t.Fatalf("the story has %d steps, the test checks %d", len(steps), len(wantStates))
	}
	for i, s := range steps {
		if err := d.RunStep(ctx, i+1, len(steps), s); err != nil {
			t.Fatal(err)
		}
		v, err := d.read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := wantStates[i].check(v); diff != "" {
			t.Fatalf("after step %d (%s): %s\n%s", i+1, s.Title, diff, v.summary())
		}
	}

	// What the reader is told to expect from kubectl, as the spec words it.
	for _, want := range []string{
		"inferenceservice.ome.io/qwen3-0-6b created",
		"inferenceservice.ome.io/qwen3-0-6b configured",
		"worker-a 1 true Passing HTTP 200",
		"worker-b 0 false Failing HTTP 503",
		"worker-b 0  1 Endpoint 0",
		"2 home(s) have conclusive probe failures; preserving traffic among homes with ready capacity",
		"2 home(s) have conclusive probe failures; all route weights are zero",
		"Override count    0 -> 1",
		"applied       Yes",
		"Drain refs           maintenance-a",
		"Override count    1 -> 0",
		// The ramp's first step, at the lift: 100 * period / (rampUp + period), rounded up.
		"worker-b: weight 17, healthy true, Passing HTTP 200, ramping up at 17% of its weight",
		"worker-b 17 true Passing HTTP 200",
	} {
		if !strings.Contains(transcript.String(), want) {
			t.Errorf("the demo never printed %q", want)
		}
	}
	// The publisher's route follows the map, and so does Envoy Gateway's view of it.
	gateway := []string{
		"HTTPRoute qwen3-0-6b/qwen3-0-6b-global (the publisher's): worker-a weight=1  worker-b weight=0",
		"HTTPRoute qwen3-0-6b/qwen3-0-6b-global (the publisher's): worker-a weight=0  worker-b weight=0",
	}
	if os.Getenv("EGCTL") != "" {
		gateway = append(gateway,
			"Envoy Gateway's translator (egctl x translate; its view, not measured traffic): worker-a 50%  worker-b 50%",
			"Envoy Gateway's translator (egctl x translate; its view, not measured traffic): worker-a 100%  worker-b 0%",
			"Envoy Gateway's translator (egctl x translate; its view, not measured traffic): no backend left; the route answers 500 itself")
	}
	// And so do the real requests through haproxy, where it can run.
	if haproxyingress.DataPlaneMissing() == nil {
		gateway = append(gateway,
			"requests: worker-a 50  worker-b 50\n",
			"requests: worker-a 100  worker-b 0\n",
			"requests: worker-a 50 (answered 503 itself)  worker-b 50 (answered 503 itself)\n",
			"requests: worker-a 0  worker-b 0  haproxy 100 (its own 503, no server left)\n",
			"requests: worker-a 0  worker-b 100\n")
	}
	// And the gateway's own counters say the gate reached the traffic, where Prometheus runs.
	if haproxyingress.DataPlaneMissing() == nil && promserver.Missing() == nil {
		gateway = append(gateway, `get trafficmap qwen3-0-6b -n qwen3-0-6b -o jsonpath='{.status.conditions[?(@.type=="TrafficApplied")].message}{"\n"}'`)
		if !regexp.MustCompile(`The gateway sends no request to the 1 cluster\(s\) the route holds at weight 0: ` +
			`worker-b: weight 0 in the route after [0-9.]+m?s, no requests after [0-9.]+m?s\n`).MatchString(transcript.String()) {
			t.Error("the demo never printed worker-b's TrafficApplied evidence")
		}
	}
	for _, want := range gateway {
		if !strings.Contains(transcript.String(), want) {
			t.Errorf("the demo never printed %q", want)
		}
	}
	checkYourTurn(t, d, transcript)
	checkRehearsal(t, d)
}

// pluginBinary is kubectl-ome: make test's, or one built from this checkout once per test
// run. Its folder goes on kubectl's PATH.
func pluginBinary(t *testing.T) string {
	bin, err := framework.PluginBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// managerBinary is the manager the test runs, "" for the in-process one.
func managerBinary(t *testing.T) string {
	if os.Getenv("DEMO_IN_PROCESS") == "1" {
		return ""
	}
	bin, err := framework.ManagerBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestMain removes the binaries the tests built, once every test is done (framework.Main).
func TestMain(m *testing.M) { framework.Main(m) }

// entryState is what the test expects of one cluster's entry after a step.
type entryState struct {
	weight  int32
	healthy bool
	result  omev1beta1.ProbeResult
	gated   bool
	// drainRefs are the entry's drainRefs, comma-joined.
	drainRefs string
}

// mapState is what the test expects of the map after a step.
type mapState struct {
	entries        map[string]entryState
	routable       metav1.ConditionStatus
	reason         string
	messageContain string
}

// check returns what differs from the state, or "".
func (s mapState) check(v View) string {
	if v.Map == nil {
		return "no TrafficMap"
	}
	var diffs []string
	for w, want := range s.entries {
		e, ok := v.Entries[w]
		switch {
		case !ok:
			diffs = append(diffs, w+": no entry")
		case e.Probe == nil:
			diffs = append(diffs, w+": no probe record")
		default:
			got := entryState{e.Weight, e.Healthy, e.Probe.Result, e.Probe.Gated, strings.Join(e.DrainRefs, ",")}
			if got != want {
				diffs = append(diffs, w+": got "+describe(e))
			}
		}
	}
	c := v.Routable
	if c == nil || c.Status != s.routable || c.Reason != s.reason || !strings.Contains(c.Message, s.messageContain) {
		diffs = append(diffs, "Routable is not "+string(s.routable)+" "+s.reason+" ("+s.messageContain+")")
	}
	return strings.Join(diffs, "; ")
}

var (
	passingEntry = entryState{weight: 1, healthy: true, result: omev1beta1.ProbePassing}
	gatedKept    = entryState{weight: 1, healthy: false, result: omev1beta1.ProbeFailing, gated: true}
	cappedToZero = entryState{weight: 0, healthy: true, result: omev1beta1.ProbePassing}
	gatedDrained = entryState{weight: 0, healthy: false, result: omev1beta1.ProbeFailing, gated: true}
	heldByDrain  = entryState{weight: 0, healthy: true, result: omev1beta1.ProbePassing, drainRefs: "maintenance-a"}
)

// wantStates are the states of the spec the story's steps must reach, in order.
var wantStates = []mapState{
	{map[string]entryState{"worker-a": passingEntry, "worker-b": passingEntry}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "2 of 2"},
	{map[string]entryState{"worker-a": passingEntry, "worker-b": gatedDrained}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "1 of 2"},
	{map[string]entryState{"worker-a": passingEntry, "worker-b": passingEntry}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "2 of 2"},
	{map[string]entryState{"worker-a": passingEntry, "worker-b": cappedToZero}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "1 of 2"},
	{map[string]entryState{"worker-a": gatedKept, "worker-b": gatedKept}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonAllHomesProbeFailed), "preserving traffic"},
	{map[string]entryState{"worker-a": gatedDrained, "worker-b": gatedDrained}, metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonAllHomesProbeFailed), "all route weights are zero"},
	{map[string]entryState{"worker-a": heldByDrain, "worker-b": passingEntry}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "1 of 2"},
	{map[string]entryState{"worker-a": passingEntry, "worker-b": passingEntry}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "2 of 2"},
	// The ramp: worker-b gated under the probe with rampUp, then back at its full weight.
	{map[string]entryState{"worker-a": passingEntry, "worker-b": gatedDrained}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "1 of 2"},
	{map[string]entryState{"worker-a": passingEntry, "worker-b": passingEntry}, metav1.ConditionTrue, string(omev1beta1.TrafficMapReasonRoutable), "2 of 2"},
}
