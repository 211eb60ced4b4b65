package cli

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// hostileText is what a member's certificate, a Prometheus answer or an older manager could
// have left in a map's free text: clear the screen and home the cursor, then a fake
// "Passing" line, a bell, an OSC window title, and a C1 CSI that 8-bit terminals obey.
const hostileText = "\x1b[2J\x1b[HPassing \a\x1b]0;owned\a \u009b2J"

// hostileEscaped is hostileText as the plugin prints it.
const hostileEscaped = `\x1b[2J\x1b[HPassing \x07\x1b]0;owned\x07 \u009b2J`

// expectInert fails when out holds a control character a terminal would obey.
func expectInert(out string) {
	GinkgoHelper()
	i := strings.IndexFunc(out, func(r rune) bool {
		return (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f)
	})
	Expect(i).To(Equal(-1), "output holds a control character at byte %d: %q", i, out)
}

var _ = Describe("control characters in what the plugin prints", func() {
	It("prints them escaped in placement endpoint, traffic status and get trafficmaps", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`)
		writeMap(ctx, isvc)

		// The entry's probe message and the TrafficApplied message, as an older manager
		// that did not escape would have stored them.
		tm := &omev1beta1.TrafficMap{}
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(isvc), tm)).To(Succeed())
		tm.Spec.Entries[1].Probe.Message = "transport error: x509: certificate is valid for " + hostileText
		Expect(k8s.Update(ctx, tm)).To(Succeed())
		meta.SetStatusCondition(&tm.Status.Conditions, metav1.Condition{Type: omev1beta1.TrafficMapTrafficApplied,
			Status: metav1.ConditionFalse, Reason: "SplitOff", Message: hostileText, ObservedGeneration: tm.Generation})
		Expect(k8s.Status().Update(ctx, tm)).To(Succeed())
		// A map whose service name carries them, for get's SERVICE column.
		other := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: ns},
			Spec: omev1beta1.TrafficMapSpec{Service: hostileText, Mode: omev1beta1.PlacementModeAll}}
		Expect(k8s.Create(ctx, other)).To(Succeed())

		r := run(ctx, "placement", "endpoint", "chat", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		expectInert(r.stdout)
		Expect(r.stdout).To(ContainSubstring("certificate is valid for " + hostileEscaped))

		r = run(ctx, "traffic", "status", "chat", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		expectInert(r.stdout)
		Expect(r.stdout).To(ContainSubstring(hostileEscaped))

		r = run(ctx, "get", "trafficmaps", "-n", ns, "-o", "wide")
		Expect(r.code).To(BeZero(), r.stderr)
		expectInert(r.stdout)
		Expect(r.stdout).To(ContainSubstring(`\x1b[2J\x1b[HPassing`))
	})
})
