package traffic

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestValidReason(t *testing.T) {
	tests := []struct {
		reason string
		want   bool
	}{
		{"planned maintenance", true},
		{"café upgrade – window 2", true},
		{strings.Repeat("a", 256), true},
		{"", false},
		{strings.Repeat("a", 257), false},
		{" padded", false},
		{"padded ", false},
		{"two\nlines", false},
		{"tab\there", false},
		{"zero\u200bwidth", false},
		{"line\u2028sep", false},
		{"bad \xff utf8", false},
		{"key sk-abcdefghijklmnop", false},
		{"token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", false},
		{"Bearer abcdefghijkl", false},
		// Other separators and prefixes a pasted credential comes with.
		{"Bearer\u00a0abcdefghijkl", false},
		{"bearer:abcdefghijkl", false},
		{"authorization=Bearer=abcdefghijkl", false},
		{"token_sk-abcdefghijklmnop", false},
		{"jwt:eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", false},
		{"xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", false},
		{"token_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", false},
		// Words that only contain the markers are fine.
		{"task-maintenance window", true},
		{"torchbearer abcdefghijkl", true},
		{"bearer of bad news", true},
		{"monkeyjump.a.b. rollout", true},
	}
	for _, tt := range tests {
		if got := validReason(tt.reason); got != tt.want {
			t.Errorf("validReason(%q) = %v, want %v", tt.reason, got, tt.want)
		}
	}
}

func TestValidIDAndNames(t *testing.T) {
	for _, id := range []string{"maintenance-a", "a", strings.Repeat("a", 63)} {
		if !validID(id) {
			t.Errorf("validID(%q) = false", id)
		}
	}
	for _, id := range []string{"", "Maint", "a.b", strings.Repeat("a", 64), "-a", "sk-abcdefghijklmnop"} {
		if validID(id) {
			t.Errorf("validID(%q) = true", id)
		}
	}
	if !validName("qwen3-0-6b") || !validName("a.b") || validName("Qwen") || validName("") {
		t.Error("validName")
	}
	if !validCluster("worker-a") || !validCluster("worker.a") || validCluster("Worker") || validCluster("") {
		t.Error("validCluster")
	}
}

// TestCheckFlagsOrder gives several problems at once and expects the first in the
// documented order.
func TestCheckFlagsOrder(t *testing.T) {
	good := options{action: actionDrain, args: []string{"chat"}, id: "m", cluster: "worker-a", reason: "r", dryRun: "none", output: "table"}
	tests := []struct {
		name   string
		mutate func(*options)
		want   error
	}{
		{"valid", func(*options) {}, nil},
		{"no name before bad output", func(o *options) { o.args = nil; o.output = "xml" }, errOneService},
		{"two names", func(o *options) { o.args = []string{"a", "b"} }, errOneService},
		{"output before dry-run", func(o *options) { o.output = "xml"; o.dryRun = "maybe" }, errOutputForTest},
		{"dry-run before name", func(o *options) { o.dryRun = "maybe"; o.args = []string{"Bad"} }, errDryRunForTest},
		{"name before cluster", func(o *options) { o.args = []string{"Bad"}; o.cluster = "" }, errName},
		{"missing cluster before ID", func(o *options) { o.cluster = ""; o.id = "" }, errNeedCluster},
		{"ID before cluster rule", func(o *options) { o.id = "Bad"; o.cluster = "Bad" }, errID},
		{"cluster rule before reason", func(o *options) { o.cluster = "Bad_"; o.reason = "" }, errCluster},
		{"reason", func(o *options) { o.reason = " r" }, errReason},
		{"undrain ignores cluster and reason", func(o *options) { o.action = actionUndrain; o.cluster = ""; o.reason = "" }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.mutate(&o)
			if err := o.checkFlags(); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func isvcWith(mutate func(*omev1beta1.InferenceService)) *omev1beta1.InferenceService {
	isvc := &omev1beta1.InferenceService{
		ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "prod", UID: "u-1", ResourceVersion: "7"},
		Spec:       omev1beta1.InferenceServiceSpec{Placement: &omev1beta1.Placement{Policy: omev1beta1.PlacementPolicyClusterAffinity}},
	}
	if mutate != nil {
		mutate(isvc)
	}
	return isvc
}

func TestEligible(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*omev1beta1.InferenceService)
		want   bool
	}{
		{"placed with ClusterAffinity", nil, true},
		{"routing explicitly on", func(i *omev1beta1.InferenceService) { i.Spec.Routing = &omev1beta1.Routing{Enabled: ptr.To(true)} }, true},
		{"no placement", func(i *omev1beta1.InferenceService) { i.Spec.Placement = nil }, false},
		{"routing off", func(i *omev1beta1.InferenceService) { i.Spec.Routing = &omev1beta1.Routing{Enabled: ptr.To(false)} }, false},
	}
	for _, tt := range tests {
		if got := eligible(isvcWith(tt.mutate)); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
}

func TestPlanRefusals(t *testing.T) {
	drainOpts := options{action: actionDrain, id: "m", cluster: "worker-a", reason: "r"}
	undrainOpts := options{action: actionUndrain, id: "m"}
	annotated := func(v string) func(*omev1beta1.InferenceService) {
		return func(i *omev1beta1.InferenceService) { i.Annotations = map[string]string{"ome.io/traffic-drain": v} }
	}
	many := func(i *omev1beta1.InferenceService) {
		i.Annotations = map[string]string{}
		for n := range 256 {
			i.Annotations[strings.Repeat("k", 1+n%50)+string(rune('a'+n%26))+strings.Repeat("z", n/26)] = "v"
		}
	}
	tests := []struct {
		name   string
		opts   options
		mutate func(*omev1beta1.InferenceService)
		want   error
	}{
		{"drain ok", drainOpts, nil, nil},
		{"bounds before eligibility", drainOpts, func(i *omev1beta1.InferenceService) { many(i); i.Spec.Placement = nil }, errBounds},
		{"too many finalizers", drainOpts, func(i *omev1beta1.InferenceService) { i.Finalizers = make([]string, 65) }, errBounds},
		{"annotation too large", drainOpts, annotated(`{"a":{"cluster":"c","reason":"` + strings.Repeat("r", 33<<10) + `"}}`), errBounds},
		{"a 65th drain", drainOpts, annotated(manyDrains(64)), errBounds},
		{"not eligible before identity", drainOpts, func(i *omev1beta1.InferenceService) { i.Spec.Placement = nil; i.UID = "" }, errNotEligible},
		{"identity before deletion", drainOpts, func(i *omev1beta1.InferenceService) { i.ResourceVersion = ""; i.DeletionTimestamp = &metav1.Time{} }, errIdentity},
		{"being deleted", drainOpts, func(i *omev1beta1.InferenceService) { i.DeletionTimestamp = &metav1.Time{} }, errDeleting},
		{"malformed", drainOpts, annotated(`{"a":"b"}`), errMalformed},
		{"existing entry breaking the CLI's rules", drainOpts, annotated(`{"Upper":{"cluster":"c","reason":"r"}}`), errMalformed},
		{"ID exists even if identical", drainOpts, annotated(`{"m":{"cluster":"worker-a","reason":"r"}}`), errExists},
		{"undrain ok", undrainOpts, annotated(`{"m":{"cluster":"worker-a","reason":"r"}}`), nil},
		{"undrain missing", undrainOpts, annotated(`{"n":{"cluster":"worker-a","reason":"r"}}`), errMissing},
		{"undrain without annotation", undrainOpts, nil, errMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			if _, err := o.plan(targetForTest, isvcWith(tt.mutate)); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func manyDrains(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, `"d`+strings.Repeat("x", i)+`":{"cluster":"c","reason":"r"}`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestRefusalMessages pins every refusal's exact text: scripts and runbooks match on them.
func TestRefusalMessages(t *testing.T) {
	for err, want := range map[error]string{
		errFlags:            "invalid traffic action flags; use --help",
		errOneService:       "exactly one inference service is required",
		errName:             "invalid inference service name",
		errNeedCluster:      "traffic drain requires --workload-cluster; --cluster selects the Kubernetes API cluster",
		errID:               "traffic override ID must be a DNS-1123 label",
		errCluster:          "traffic drain cluster must be a DNS-1123 subdomain",
		errReason:           "traffic drain reason must be bounded, trimmed, printable, and non-secret",
		errReadFailed:       "required Kubernetes API request failed; check access and connectivity",
		errResponseUnbound:  "API response is not bound to the request; outcome unknown, check traffic status",
		errWriteResult:      "write traffic action result failed; check traffic status",
		errNotConfirmed:     "action not confirmed; noninteractive input requires --yes",
		errResponseMismatch: "action target response does not match exact request",
		errBounds:           "traffic action refused: traffic-drain state exceeds safety bounds",
		errNotEligible:      "traffic action refused: target is not eligible for cross-cluster traffic routing",
		errIdentity:         "action refused: target identity is missing or unsafe",
		errDeleting:         "action refused: target is being deleted",
		errMalformed:        "traffic action refused: existing traffic-drain annotation is malformed or unsafe",
		errExists:           "traffic drain refused: override ID already exists",
		errMissing:          "traffic undrain refused: override ID does not exist",
	} {
		if err.Error() != want {
			t.Errorf("got %q, want %q", err.Error(), want)
		}
	}
	if errConflictMessage != "guarded annotation patch rejected; refresh traffic status and retry explicitly" {
		t.Errorf("conflict message %q", errConflictMessage)
	}
}

// Each refused reason says which rule it breaks, without quoting the reason.
func TestReasonProblem(t *testing.T) {
	for reason, want := range map[string]string{
		"":                        "--reason is required",
		strings.Repeat("a", 257):  "--reason is 257 bytes, over 256",
		"bad \xff utf8":           "--reason is not valid UTF-8",
		" padded":                 "--reason starts or ends with space",
		"two\nlines":              "--reason holds a line break, control or invisible formatting character",
		"key sk-abcdefghijklmnop": "--reason looks like a credential",
		"planned maintenance":     "",
	} {
		if got := reasonProblem(reason); got != want {
			t.Errorf("reasonProblem(%q) = %q, want %q", reason, got, want)
		}
	}
}
