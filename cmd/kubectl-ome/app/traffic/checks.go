package traffic

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
)

// Refusals before the service is read, in the order they are checked.
var (
	errFlags           = errors.New("invalid traffic action flags; use --help")
	errOneService      = errors.New("exactly one inference service is required")
	errName            = errors.New("invalid inference service name")
	errNeedCluster     = errors.New("traffic drain requires --workload-cluster; --cluster selects the Kubernetes API cluster")
	errID              = errors.New("traffic override ID must be a DNS-1123 label")
	errCluster         = errors.New("traffic drain cluster must be a DNS-1123 subdomain")
	errReason          = errors.New("traffic drain reason must be bounded, trimmed, printable, and non-secret")
	errReadFailed      = errors.New("required Kubernetes API request failed; check access and connectivity")
	errResponseUnbound = errors.New("API response is not bound to the request; outcome unknown, check traffic status")
	errWriteResult     = errors.New("write traffic action result failed; check traffic status")
	errNotConfirmed    = errors.New("action not confirmed; noninteractive input requires --yes")
	errConflictMessage = "guarded annotation patch rejected; refresh traffic status and retry explicitly"
)

// Refusals after the service is read, in the order they are checked.
var (
	errResponseMismatch = errors.New("action target response does not match exact request")
	errBounds           = errors.New("traffic action refused: traffic-drain state exceeds safety bounds")
	errNotEligible      = errors.New("traffic action refused: target is not eligible for cross-cluster traffic routing")
	errIdentity         = errors.New("action refused: target identity is missing or unsafe")
	errDeleting         = errors.New("action refused: target is being deleted")
	errMalformed        = errors.New("traffic action refused: existing traffic-drain annotation is malformed or unsafe")
	errExists           = errors.New("traffic drain refused: override ID already exists")
	errMissing          = errors.New("traffic undrain refused: override ID does not exist")
)

// maxReasonBytes bounds a reason.
const maxReasonBytes = 256

// credentialLike matches text that looks like a secret: an API key of the "sk-" kind, a JWT,
// a bearer token or a PEM block. Names, IDs and reasons end up in annotations, events and
// logs that many people read, so a pasted secret is refused rather than spread.
//
// A key or a scheme starts after anything but a letter or digit ("token_sk-…" too, where a
// word boundary would miss it, but not "task-…"). A JWT is caught wherever it starts, by
// its header: base64url of `{"`, which is "eyJ" in that case. After "bearer" any run of
// non-alphanumerics separates the token (a no-break space, a colon, an equals sign).
var credentialLike = regexp.MustCompile(`(?i)` +
	`(?:^|[^a-z0-9])sk-[a-z0-9_-]{8,}` +
	`|(?-i:eyJ)[a-z0-9_-]{5,}\.[a-z0-9_-]+\.` +
	`|(?:^|[^a-z0-9])bearer[^a-z0-9]*[a-z0-9._~+/=-]{8,}` +
	`|-----BEGIN `)

func validName(s string) bool {
	return len(validation.IsDNS1123Subdomain(s)) == 0 && !credentialLike.MatchString(s)
}

func validID(s string) bool {
	return len(validation.IsDNS1123Label(s)) == 0 && !credentialLike.MatchString(s)
}

func validCluster(s string) bool {
	return len(validation.IsDNS1123Subdomain(s)) == 0
}

// validReason is at most 256 bytes of valid UTF-8 with no surrounding space, no line break,
// control or invisible formatting character, and nothing that looks like a credential.
func validReason(s string) bool { return reasonProblem(s) == "" }

// nameProblem says why what (a flag or "the name") is not a DNS-1123 subdomain. The value
// is quoted back unless it looks like a credential, which is never repeated.
func nameProblem(s, what string) string {
	switch {
	case s == "":
		return what + " is empty"
	case credentialLike.MatchString(s):
		return what + " looks like a credential"
	}
	return fmt.Sprintf("%s %q is not a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters", what, s)
}

// idProblem says why --id is refused.
func idProblem(s string) string {
	switch {
	case s == "":
		return "--id is required"
	case credentialLike.MatchString(s):
		return "--id looks like a credential"
	}
	return fmt.Sprintf("--id %q is not a DNS-1123 label: lowercase letters, digits and '-', at most 63 characters, "+
		"starting and ending with a letter or digit", s)
}

// reasonProblem says which rule a reason breaks, or "" when it breaks none. It never
// quotes the reason back: a refused reason may be a pasted secret.
func reasonProblem(s string) string {
	switch {
	case s == "":
		return "--reason is required"
	case len(s) > maxReasonBytes:
		return fmt.Sprintf("--reason is %d bytes, over %d", len(s), maxReasonBytes)
	case !utf8.ValidString(s):
		return "--reason is not valid UTF-8"
	case strings.TrimSpace(s) != s:
		return "--reason starts or ends with space"
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return "--reason holds a line break, control or invisible formatting character"
		}
	}
	if credentialLike.MatchString(s) {
		return "--reason looks like a credential"
	}
	return ""
}

// Safety bounds on the service and on the change.
const (
	maxObjectBytes     = 1 << 20
	maxAnnotations     = 256
	maxLabels          = 256
	maxFinalizers      = 64
	maxConditions      = 64
	maxMetadataBytes   = 64 << 10
	maxAnnotationBytes = 32 << 10
)

// withinBounds checks the service as read, and as it would be after the change, against
// the limits the command is willing to inspect and write.
func withinBounds(isvc *omev1beta1.InferenceService, newValue string, removes bool) bool {
	if raw, err := json.Marshal(isvc); err != nil || len(raw) > maxObjectBytes {
		return false
	}
	if len(isvc.Labels) > maxLabels || len(isvc.Finalizers) > maxFinalizers || len(isvc.Status.Conditions) > maxConditions {
		return false
	}
	annotations := map[string]string{}
	for k, v := range isvc.Annotations {
		annotations[k] = v
	}
	if err := boundedDrains(annotations); err != nil {
		return false
	}
	if removes {
		delete(annotations, drain.Annotation)
	} else {
		annotations[drain.Annotation] = newValue
	}
	if len(isvc.Annotations) > maxAnnotations || len(annotations) > maxAnnotations || boundedDrains(annotations) != nil {
		return false
	}
	return metadataBytes(isvc.Labels, isvc.Annotations, isvc.Finalizers) <= maxMetadataBytes &&
		metadataBytes(isvc.Labels, annotations, isvc.Finalizers) <= maxMetadataBytes
}

// boundedDrains checks the annotation's size and drain count. A value that is not even a
// JSON object is left to the malformed check.
func boundedDrains(annotations map[string]string) error {
	v, ok := annotations[drain.Annotation]
	if !ok {
		return nil
	}
	if len(v) > maxAnnotationBytes {
		return errBounds
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(v), &m) == nil && len(m) > drain.MaxOverrides {
		return errBounds
	}
	return nil
}

func metadataBytes(labels, annotations map[string]string, finalizers []string) int {
	n := 0
	for k, v := range labels {
		n += len(k) + len(v)
	}
	for k, v := range annotations {
		n += len(k) + len(v)
	}
	for _, f := range finalizers {
		n += len(f)
	}
	return n
}

// eligible is this project's routing rule: a service is routed when it has a
// spec.placement (whose only policy is ClusterAffinity) and has not opted out with
// spec.routing.enabled: false.
func eligible(isvc *omev1beta1.InferenceService) bool {
	p := isvc.Spec.Placement
	if p == nil || p.Policy != omev1beta1.PlacementPolicyClusterAffinity {
		return false
	}
	r := isvc.Spec.Routing
	return r == nil || r.Enabled == nil || *r.Enabled
}

// existingDrains parses the current annotation strictly, and also holds every entry to the
// rules the command enforces on what it writes.
func existingDrains(isvc *omev1beta1.InferenceService) ([]drain.Override, error) {
	value, present := isvc.Annotations[drain.Annotation]
	overrides, err := drain.Parse(value, present)
	if err != nil {
		return nil, errMalformed
	}
	for _, o := range overrides {
		if !validID(o.ID) || !validCluster(o.Cluster) || !validReason(o.Reason) {
			return nil, errMalformed
		}
	}
	return overrides, nil
}
