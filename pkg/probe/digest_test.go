package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
)

// TestDigestEncoding holds Digest to the encoding its comment documents: a change to either
// would change every stored digest and lift every gate.
// step1DigestText is the text Digest hashes for the Step 1 policy.
const step1DigestText = "probe-policy/v1\n" +
	"path=\"/v1/models\"\n" +
	"method=GET\n" +
	"acceptStatuses=200\n" +
	"gateStatuses=404,500,502,503,504\n" +
	"period=10000000000\n" +
	"timeout=3000000000\n" +
	"failureThreshold=3\n" +
	"successThreshold=2\n" +
	"allFailedPolicy=PreserveTraffic\n"

func TestDigestEncoding(t *testing.T) {
	text := step1DigestText
	sum := sha256.Sum256([]byte(text))
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := Digest(step1Policy()); got != want {
		t.Fatalf("Digest = %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(want) {
		t.Fatalf("digest %q does not match the CRD's pattern", want)
	}
}

func TestDigestEqual(t *testing.T) {
	millisecondForm, err := time.ParseDuration("10000ms")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(*Policy)
	}{
		{name: "period 10000ms", change: func(p *Policy) { p.Period = millisecondForm }},
		{name: "gate statuses reordered", change: func(p *Policy) { p.GateStatuses = []int32{504, 503, 502, 500, 404} }},
		{name: "statuses duplicated", change: func(p *Policy) {
			p.AcceptStatuses = []int32{200, 200}
			p.GateStatuses = []int32{503, 404, 500, 502, 503, 504, 404}
		}},
	}
	base := Digest(step1Policy())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := step1Policy()
			tt.change(&p)
			if got := Digest(p); got != base {
				t.Fatalf("Digest = %s, want the unchanged policy's %s", got, base)
			}
		})
	}
}

func TestDigestDiffers(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Policy)
	}{
		{name: "path", change: func(p *Policy) { p.Path = "/healthz" }},
		{name: "path with a newline that mimics a field", change: func(p *Policy) { p.Path = "/v1/models\"\nmethod=GET" }},
		{name: "method", change: func(p *Policy) { p.Method = "HEAD" }},
		{name: "an accept status added", change: func(p *Policy) { p.AcceptStatuses = []int32{200, 204} }},
		{name: "a gate status removed", change: func(p *Policy) { p.GateStatuses = []int32{404, 500, 502, 503} }},
		{name: "a status moved between the lists", change: func(p *Policy) {
			p.AcceptStatuses = []int32{200, 404}
			p.GateStatuses = []int32{500, 502, 503, 504}
		}},
		{name: "period", change: func(p *Policy) { p.Period = 10*time.Second + time.Nanosecond }},
		{name: "timeout", change: func(p *Policy) { p.Timeout = 4 * time.Second }},
		{name: "period and timeout swapped in value", change: func(p *Policy) { p.Period, p.Timeout = 3*time.Second, 10*time.Second }},
		{name: "failureThreshold", change: func(p *Policy) { p.FailureThreshold = 4 }},
		{name: "successThreshold", change: func(p *Policy) { p.SuccessThreshold = 3 }},
		{name: "thresholds swapped", change: func(p *Policy) { p.FailureThreshold, p.SuccessThreshold = 2, 3 }},
		{name: "allFailedPolicy", change: func(p *Policy) { p.AllFailedPolicy = v1beta1.AllFailedDrain }},
	}
	seen := map[string]string{Digest(step1Policy()): "the unchanged policy"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := step1Policy()
			tt.change(&p)
			d := Digest(p)
			if other, ok := seen[d]; ok {
				t.Fatalf("Digest = %s, the same as for %s", d, other)
			}
			seen[d] = tt.name
		})
	}
}
