package egtranslate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/internal/envfleet"
)

// GatewayClassController is the controllerName of Envoy Gateway's GatewayClasses, which
// its translator only accepts.
const GatewayClassController = "gateway.envoyproxy.io/gatewayclass-controller"

// EnvoyView is what Envoy Gateway's translator would program Envoy with for one route
// rule: the weight of each backend that would get traffic, by the backend's name. A
// backend whose backendRef weight is 0 gets none and is absent. When no backend is left,
// the route answers directly with DirectStatus.
type EnvoyView struct {
	Weights      map[string]uint32
	DirectStatus int
	// TLS are the upstream TLS contexts of the rule's clusters, one line each: the SNI
	// Envoy sends and the CAs it checks the certificate against ("worker-a.example.test
	// system CAs"), sorted; empty when Envoy speaks plain HTTP to the backends.
	TLS []string
	// RetryPolicy is the rule's Envoy retry policy as the translator printed it (its JSON
	// keys: retryOn, numRetries, retriableStatusCodes, perTryTimeout, retryHostPredicate,
	// retryBackOff, ...), nil without one; Timeout the route's own timeout, "" without.
	RetryPolicy map[string]any
	Timeout     string
	// RetryBudgets are the retry budgets of the circuit breakers of the rule's clusters
	// as the translator printed them (budgetPercent, minRetryConcurrency when not Envoy's
	// default), one per threshold that has one; empty without.
	RetryBudgets []map[string]any
	// Input is the file of objects the translator read, and Output what it printed.
	Input, Output []byte
}

// Translate runs `egctl x translate --from gateway-api --to xds` (Envoy Gateway's own
// translator, offline) on the objects and reads the endpoints of the route's first rule
// from the xDS it prints.
func Translate(ctx context.Context, egctl string, objs []client.Object, route types.NamespacedName) (EnvoyView, error) {
	var in bytes.Buffer
	for _, obj := range objs {
		doc, err := manifest(obj)
		if err != nil {
			return EnvoyView{}, err
		}
		in.WriteString("---\n")
		in.Write(doc)
	}
	dir, err := os.MkdirTemp("", "egctl-")
	if err != nil {
		return EnvoyView{}, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "objects.yaml")
	if err := os.WriteFile(file, in.Bytes(), 0o600); err != nil {
		return EnvoyView{}, err
	}
	cmd := exec.CommandContext(ctx, egctl, "x", "translate", "--from", "gateway-api", "--to", "xds", "-t", "all", "-o", "json", "-f", file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	view := EnvoyView{Input: in.Bytes(), Output: out}
	if err != nil {
		return view, fmt.Errorf("egctl x translate: %w: %s", err, stderr.String())
	}
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		return view, fmt.Errorf("egctl x translate printed no JSON: %w", err)
	}
	prefix := fmt.Sprintf("httproute/%s/%s/rule/0", route.Namespace, route.Name)
	envoyRoute := findObject(doc, func(m map[string]any) bool {
		name, _ := m["name"].(string)
		return strings.HasPrefix(name, prefix+"/match/") && (m["route"] != nil || m["directResponse"] != nil)
	})
	if envoyRoute == nil {
		return view, fmt.Errorf("no Envoy route for %s in the translator's output", prefix)
	}
	view.Weights = map[string]uint32{}
	if direct, ok := envoyRoute["directResponse"].(map[string]any); ok {
		status, _ := direct["status"].(float64)
		view.DirectStatus = int(status)
		return view, nil
	}
	action, _ := envoyRoute["route"].(map[string]any)
	view.RetryPolicy, _ = action["retryPolicy"].(map[string]any)
	view.Timeout, _ = action["timeout"].(string)
	// One cluster for the rule, its backends as weighted localities; or, when backendRefs
	// carry their own filters (rewriteHostname), one cluster per backend, weighted in the
	// route.
	if cluster, ok := action["cluster"].(string); ok {
		view.TLS = upstreamTLS(doc, cluster)
		view.RetryBudgets = retryBudgets(doc, cluster)
		return view, addLocalities(doc, cluster, 1, view.Weights)
	}
	weighted, _ := action["weightedClusters"].(map[string]any)
	clusters, _ := weighted["clusters"].([]any)
	for _, c := range clusters {
		wc, _ := c.(map[string]any)
		name, _ := wc["name"].(string)
		weight, _ := wc["weight"].(float64)
		if err := addLocalities(doc, name, uint32(weight), view.Weights); err != nil {
			return view, err
		}
		view.TLS = append(view.TLS, upstreamTLS(doc, name)...)
		view.RetryBudgets = append(view.RetryBudgets, retryBudgets(doc, name)...)
	}
	slices.Sort(view.TLS)
	return view, nil
}

// upstreamTLS reads the TLS contexts a cluster's endpoints are sent with (Envoy Gateway
// puts one transport socket match per TLS backend): each one's SNI, and "system CAs" when
// it validates against the system's trusted CAs, or the name of the secret it uses.
func upstreamTLS(doc any, cluster string) []string {
	def := findObject(doc, func(m map[string]any) bool {
		_, ok := m["connectTimeout"]
		return m["name"] == cluster && ok
	})
	matches, _ := def["transportSocketMatches"].([]any)
	var out []string
	for _, m := range matches {
		match, _ := m.(map[string]any)
		socket, _ := match["transportSocket"].(map[string]any)
		config, _ := socket["typedConfig"].(map[string]any)
		sni, _ := config["sni"].(string)
		common, _ := config["commonTlsContext"].(map[string]any)
		combined, _ := common["combinedValidationContext"].(map[string]any)
		sds, _ := combined["validationContextSdsSecretConfig"].(map[string]any)
		ca, _ := sds["name"].(string)
		if ca == "system_ca_certificates" {
			ca = "system CAs"
		}
		out = append(out, sni+" "+ca)
	}
	return out
}

// retryBudgets reads the retry budgets of a cluster's circuit breaker thresholds.
func retryBudgets(doc any, cluster string) []map[string]any {
	def := findObject(doc, func(m map[string]any) bool {
		_, ok := m["connectTimeout"]
		return m["name"] == cluster && ok
	})
	breakers, _ := def["circuitBreakers"].(map[string]any)
	thresholds, _ := breakers["thresholds"].([]any)
	var out []map[string]any
	for _, t := range thresholds {
		threshold, _ := t.(map[string]any)
		if budget, ok := threshold["retryBudget"].(map[string]any); ok {
			out = append(out, budget)
		}
	}
	return out
}

// addLocalities adds the backends of a cluster's load assignment to weights, each with
// its locality weight times scale; zero weights are left out.
func addLocalities(doc any, cluster string, scale uint32, weights map[string]uint32) error {
	assignment := findObject(doc, func(m map[string]any) bool {
		_, ok := m["endpoints"]
		return m["clusterName"] == cluster && ok
	})
	if assignment == nil {
		return fmt.Errorf("no load assignment for cluster %s in the translator's output", cluster)
	}
	endpoints, _ := assignment["endpoints"].([]any)
	for _, e := range endpoints {
		locality, _ := e.(map[string]any)
		name := backendOf(locality)
		weight, _ := locality["loadBalancingWeight"].(float64)
		if name == "" {
			return fmt.Errorf("cluster %s has an endpoint group without a backend: %v", cluster, locality)
		}
		if w := uint32(weight) * scale; w > 0 {
			weights[name] += w
		}
	}
	return nil
}

// manifest is an object as the translator reads it: with its kind, without the server's
// bookkeeping.
func manifest(obj client.Object) ([]byte, error) {
	u := &unstructured.Unstructured{}
	if uo, ok := obj.(*unstructured.Unstructured); ok {
		u = uo.DeepCopy()
	} else {
		gvk, err := apiutil.GVKForObject(obj, envfleet.Scheme)
		if err != nil {
			return nil, err
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u.Object = m
		u.SetGroupVersionKind(gvk)
	}
	u.SetManagedFields(nil)
	u.SetResourceVersion("")
	u.SetUID("")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(data)
}

// findObject finds, depth first anywhere in the translator's output, the first object
// that match accepts.
func findObject(v any, match func(map[string]any) bool) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if match(x) {
			return x
		}
		for _, child := range x {
			if found := findObject(child, match); found != nil {
				return found
			}
		}
	case []any:
		for _, child := range x {
			if found := findObject(child, match); found != nil {
				return found
			}
		}
	}
	return nil
}

// backendOf is the name of the backend an endpoint group stands for, from the metadata
// Envoy Gateway puts on it.
func backendOf(locality map[string]any) string {
	md, _ := locality["metadata"].(map[string]any)
	fm, _ := md["filterMetadata"].(map[string]any)
	eg, _ := fm["envoy-gateway"].(map[string]any)
	resources, _ := eg["resources"].([]any)
	for _, r := range resources {
		if m, ok := r.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				return name
			}
		}
	}
	return ""
}
