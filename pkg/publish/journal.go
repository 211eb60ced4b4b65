package publish

// journal.go decides the publisher's journal in a map's status.publisher: which routes
// the map claims, whether another publisher's claims stand in the way, the digest of the
// options it publishes with, and the last publication that sent traffic. The controller
// records the claims before it writes a route, so no route it wrote is ever unrecorded.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// MaxClaims is how many targets a map's journal holds. OME allows 128; here a target is at
// most 140 bytes and the map must fit one etcd write with every other field at its
// maximum, so the CRD allows 32, which is still 31 moves ahead of the one route a map has.
const MaxClaims = 32

// routeClaimPrefix starts a claim on an HTTPRoute: v1:httproute:<namespace>/<name>.
const routeClaimPrefix = "v1:httproute:"

// clusterTargetPrefix starts a target of lastPositive: v1:cluster:<cluster>.
const clusterTargetPrefix = "v1:cluster:"

// RouteClaim is the journal's claim on the route at key.
func RouteClaim(key types.NamespacedName) string {
	return routeClaimPrefix + key.Namespace + "/" + key.Name
}

// ClaimedRoute is the route a claim names; false for a claim that names no route (a
// claim of a later format, or a hand edit), which the publisher leaves alone.
func ClaimedRoute(claim string) (types.NamespacedName, bool) {
	rest, ok := strings.CutPrefix(claim, routeClaimPrefix)
	if !ok {
		return types.NamespacedName{}, false
	}
	ns, name, ok := strings.Cut(rest, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: ns, Name: name}, true
}

// Claims are the targets a map's journal holds, none without a journal.
func Claims(j *omev1beta1.TrafficMapPublisherStatus) []string {
	if j == nil {
		return nil
	}
	return j.ClaimedTargets
}

// ClaimUnion is the journal's claims with want added, sorted: what is recorded before a
// route at want is written, so that the route it replaces stays claimed until it is gone.
func ClaimUnion(claims []string, want string) ([]string, error) {
	out := slices.Clone(claims)
	if !slices.Contains(out, want) {
		out = append(out, want)
	}
	slices.Sort(out)
	if len(out) > MaxClaims {
		return nil, fmt.Errorf("publisher claim union has %d targets, maximum is %d", len(out), MaxClaims)
	}
	return out, nil
}

// StaleClaims are the claims other than want: routes the map published before and no
// longer needs, to be drained and deleted.
func StaleClaims(claims []string, want string) []string {
	var out []string
	for _, c := range claims {
		if c != want {
			out = append(out, c)
		}
	}
	return out
}

// CheckPublisher refuses to publish a map whose journal holds claims another publisher
// made: its routes are that publisher's to remove, and this one must not take them over.
func CheckPublisher(mapKey types.NamespacedName, j *omev1beta1.TrafficMapPublisherStatus, selected string) error {
	if j == nil || len(j.ClaimedTargets) == 0 || j.PublisherName == selected {
		return nil
	}
	return fmt.Errorf("TrafficMap %s retains claims for publisher %q while publisher %q is selected", mapKey, j.PublisherName, selected)
}

// ClaimCollision is the error for a target another map's journal already claims.
func ClaimCollision(target string, holder types.NamespacedName) error {
	return fmt.Errorf("publisher target %q is already claimed by TrafficMap %s", target, holder)
}

// OptionsDigest is observedOptionsDigest: the SHA-256 of the JSON document
// {"version":"v1","publisher":<name>,"options":{...}}, options with sorted keys ({} when
// there are none).
func OptionsDigest(publisher string, options map[string]string) string {
	if options == nil {
		options = map[string]string{}
	}
	doc := struct {
		Version   string            `json:"version"`
		Publisher string            `json:"publisher"`
		Options   map[string]string `json:"options"`
	}{"v1", publisher, options}
	raw, _ := json.Marshal(doc) // a struct of strings always encodes
	return digest(raw)
}

// LastPositive is the journal's record of publishing p at the map's generation, built from
// the service's generation observed, or nil when the route sends nothing.
func LastPositive(p Plan, generation, observedISVCGeneration int64) *omev1beta1.TrafficMapPublisherLastPositive {
	var targets []omev1beta1.TrafficMapPublisherTarget
	positive := false
	for _, b := range p.Backends {
		targets = append(targets, omev1beta1.TrafficMapPublisherTarget{Target: clusterTargetPrefix + b.Cluster, Weight: int64(b.Weight)})
		positive = positive || b.Weight > 0
	}
	if !positive || generation < 1 || observedISVCGeneration < 1 {
		return nil
	}
	return &omev1beta1.TrafficMapPublisherLastPositive{
		TrafficMapGeneration:    generation,
		ObservedISVCGeneration:  observedISVCGeneration,
		PlanCompatibilityDigest: CompatibilityDigest(p),
		Targets:                 targets,
	}
}

// CompatibilityDigest identifies what a plan is published into: the route's key, its
// Gateway, hostname, backend port and backend kind, and whether it rewrites the Host or
// speaks TLS. Two plans with one digest differ only in their backends' weights and hosts.
func CompatibilityDigest(p Plan) string {
	gw := string(p.Gateway.Name)
	if p.Gateway.Namespace != nil {
		gw = string(*p.Gateway.Namespace) + "/" + gw
	}
	fields := []string{"v1", p.Namespace, routeName(p), gw, p.Hostname, string(p.BackendKind), fmt.Sprint(p.BackendPort),
		fmt.Sprint(p.RewriteHostname), fmt.Sprint(p.TLS), fmt.Sprint(p.EndpointSlices)}
	return digest([]byte(strings.Join(fields, "\x00")))
}

func routeName(p Plan) string {
	if p.Route == nil {
		return ""
	}
	return p.Route.Name
}

func digest(raw []byte) string {
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}
