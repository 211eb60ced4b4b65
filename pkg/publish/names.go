package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// The labels every object the publisher writes carries. Together they say which
// InferenceService an object publishes; an object at one of our names without exactly
// these belongs to someone else and is never touched.
const (
	// LabelManagedBy marks the publisher's objects; its value is ManagedByValue.
	LabelManagedBy = "ome.io/managed-by"
	// ManagedByValue is LabelManagedBy's value, OME's.
	ManagedByValue = "placement-endpoint"
	// LabelService is the published InferenceService's name.
	LabelService = "ome.io/placement-endpoint-isvc"
	// LabelServiceNamespace is the published InferenceService's namespace.
	LabelServiceNamespace = "ome.io/placement-endpoint-isvc-namespace"
	// LabelCluster is the workload cluster a backend stands for.
	LabelCluster = "ome.io/placement-cluster"
)

// GlobalHostAnnotation on an InferenceService names its global hostname, ahead of the
// installation's globalHostTemplate.
const GlobalHostAnnotation = "ome.io/global-host"

// backendHashDomain versions the backend name hash, as OME's does, so that a change of
// the scheme changes every name.
const backendHashDomain = "gateway-api-trafficmap-backend/v2"

// maxNameLength bounds the route name to a DNS-1035 label.
const maxNameLength = 63

// routeHashBytes is how much of the namespace/name hash a route outside its service's
// namespace carries in its name.
const routeHashBytes = 8

// boundHashBytes is how much of its hash a name cut to maxNameLength keeps.
const boundHashBytes = 8

// Labels are the labels of every object that publishes the service namespace/name.
func Labels(namespace, name string) map[string]string {
	return map[string]string{
		LabelManagedBy:        ManagedByValue,
		LabelService:          name,
		LabelServiceNamespace: namespace,
	}
}

// OwnedBy says whether an object's labels mark it as publishing namespace/name.
func OwnedBy(labels map[string]string, namespace, name string) bool {
	for k, v := range Labels(namespace, name) {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// RouteName is the name of the service's HTTPRoute in routeNamespace: <name>-global, or,
// when the route lives outside the service's namespace, <name>-<16 hex>-global with the
// hex (64 bits) from the service's namespace and name, so that services of the same name
// in two namespaces do not collide. 64 bits for the reason boundName gives: with 32, a
// tenant in a shared routeNamespace finds a namespace and name whose route name is
// another service's in seconds and holds that route name first.
func RouteName(namespace, name, routeNamespace string) string {
	base := name
	if routeNamespace != "" && routeNamespace != namespace {
		sum := sha256.Sum256([]byte(namespace + "/" + name))
		base = name + "-" + hex.EncodeToString(sum[:routeHashBytes])
	}
	return boundName(base + "-global")
}

// boundName fits a name into a DNS-1035 label: a name over 63 characters keeps its first
// 46 and gets "-" and 16 hex (64 bits) of its own hash, and a name that does not start
// with a lowercase letter gets an "a" in front. (OME's truncation scheme is not
// documented; this one keeps names unique and readable.) 64 bits, because in a shared
// routeNamespace a tenant who could find another service's truncated name by search
// would hold its route name first: 32 bits are hours on one core.
//
// The "a" alone would make 1abc and a1abc both a1abc-global, so a name that already looks
// prefixed, a run of a's and then a digit, gets one more: 1abc -> a1abc, a1abc -> aa1abc,
// aa1abc -> aaa1abc. Stripping one leading "a" from a name that has a run of a's and a digit
// gives back the original, so no two names meet.
func boundName(name string) string {
	if needsLetter(name) {
		name = "a" + name
	}
	if len(name) <= maxNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return strings.TrimRight(name[:maxNameLength-1-2*boundHashBytes], "-.") + "-" + hex.EncodeToString(sum[:boundHashBytes])
}

// BackendName is the name of the backend (Service or Envoy Gateway Backend) that stands
// for cluster in the service's route: "tmb-" and the first 52 hex characters of a SHA-256
// over the NUL-joined hash domain, namespace, name and cluster. It stays 56 characters
// whatever the names' lengths.
func BackendName(namespace, name, cluster string) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{backendHashDomain, namespace, name, cluster}, "\x00")))
	return "tmb-" + hex.EncodeToString(sum[:])[:52]
}

// needsLetter says whether boundName puts an "a" in front of name: it does not start with
// a lowercase letter, or it starts with a's followed by a digit, as a prefixed name does.
func needsLetter(name string) bool {
	if name == "" {
		return false
	}
	if name[0] < 'a' || name[0] > 'z' {
		return true
	}
	rest := strings.TrimLeft(name, "a")
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}
