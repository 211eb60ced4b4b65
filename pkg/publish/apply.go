package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ome-routing/operator/pkg/version"
)

// DigestAnnotation on every object the publisher writes holds a digest of the object as
// the publisher applied it. With it, a publisher that starts (a restart, a new leader)
// tells an object that is already what the plan says from one written under other
// settings, without writing it again.
const DigestAnnotation = "ome.io/publication-digest"

// KindTLSPolicy is how messages name a backend's BackendTLSPolicy, as OME's do.
const KindTLSPolicy = "BackendTLSPolicy"

// Object is one object of the plan as the publisher applies it.
type Object struct {
	// Kind names the object's kind in messages: "HTTPRoute", a backend kind's Noun, ...
	Kind string
	// Object is what is applied: only the fields the publisher owns, and the digest.
	Object *unstructured.Unstructured
}

// Objects are the plan's objects in the order they are applied: the backends in name
// order, their EndpointSlices (under EndpointSlices, IPv4 before IPv6), their
// BackendTLSPolicies (under TLS), the route's BackendTrafficPolicy (under a retry budget
// on Envoy Gateway), then the route, so that a backend, its addresses and its policy
// exist before the route names it: a gateway never sends plain HTTP to a backend that is
// meant to get TLS, nor retries without the budget. The route is always last.
func (p Plan) Objects() ([]Object, error) {
	backends := slices.Clone(p.Backends)
	slices.SortFunc(backends, func(a, b Backend) int { return strings.Compare(a.Name, b.Name) })
	out := make([]Object, 0, 2*len(backends)+1)
	for _, b := range backends {
		kind := BackendKindOf(b.Kind)
		u, err := applied(kind.Build(b))
		if err != nil {
			return nil, err
		}
		out = append(out, Object{Kind: kind.Noun, Object: u})
	}
	if p.EndpointSlices {
		for _, b := range backends {
			addrs, ok := p.Addresses[b.Cluster]
			if !ok || addrs.Empty() {
				return nil, fmt.Errorf("no Gateway addresses were resolved for cluster %q", b.Cluster)
			}
			for _, s := range b.EndpointSlices(addrs) {
				u, err := applied(s)
				if err != nil {
					return nil, err
				}
				out = append(out, Object{Kind: KindEndpointSlice, Object: u})
			}
		}
	}
	if p.TLS {
		for _, b := range backends {
			u, err := applied(b.TLSPolicy())
			if err != nil {
				return nil, err
			}
			out = append(out, Object{Kind: KindTLSPolicy, Object: u})
		}
	}
	if policy := p.TrafficPolicy(); policy != nil {
		u, err := applied(policy)
		if err != nil {
			return nil, err
		}
		out = append(out, Object{Kind: KindTrafficPolicy, Object: u})
	}
	u, err := applied(p.Route)
	if err != nil {
		return nil, err
	}
	return append(out, Object{Kind: "HTTPRoute", Object: u}), nil
}

// applied is obj as an apply configuration: no status, no empty creation time, the
// release that writes it in version.Annotation, and the digest of the rest (the release
// included, so that an upgrade applies every object once) in DigestAnnotation.
func applied(obj runtime.Object) (*unstructured.Unstructured, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if ok {
		u = u.DeepCopy()
	} else {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		delete(m, "status")
		unstructured.RemoveNestedField(m, "metadata", "creationTimestamp")
		u = &unstructured.Unstructured{Object: m}
	}
	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[version.Annotation] = version.Stamp()
	u.SetAnnotations(annotations)
	raw, err := json.Marshal(u.Object)
	if err != nil {
		return nil, fmt.Errorf("digest %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	sum := sha256.Sum256(raw)
	annotations[DigestAnnotation] = hex.EncodeToString(sum[:16])
	u.SetAnnotations(annotations)
	return u, nil
}

// UpToDate says whether live, an object as the API server holds it, already is what
// applying desired would make it: it carries desired's digest, so it was applied from the
// same plan, and every field desired sets still has that value, so nobody has edited it
// since. Fields live has beyond desired (defaults, other writers' fields) do not matter:
// applying desired would not change them either.
func UpToDate(desired, live map[string]any) bool {
	want, _, _ := unstructured.NestedString(desired, "metadata", "annotations", DigestAnnotation)
	got, _, _ := unstructured.NestedString(live, "metadata", "annotations", DigestAnnotation)
	return want != "" && want == got && covers(desired, live)
}

// covers says whether every value set in desired is in live. Lists must have the same
// length and cover item by item; an empty or null desired value is covered by an absent
// one; numbers compare by value whatever their Go type.
func covers(desired, live any) bool {
	switch d := desired.(type) {
	case nil:
		return live == nil || isEmpty(live)
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return len(d) == 0 && live == nil
		}
		for k, v := range d {
			lv, present := l[k]
			if !present {
				if v == nil || isEmpty(v) {
					continue
				}
				return false
			}
			if !covers(v, lv) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok {
			return len(d) == 0 && live == nil
		}
		if len(d) != len(l) {
			return false
		}
		for i := range d {
			if !covers(d[i], l[i]) {
				return false
			}
		}
		return true
	}
	if dn, ok := number(desired); ok {
		ln, ok := number(live)
		return ok && dn == ln
	}
	return desired == live
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
