package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"
)

// GatewayClassController is the controllerName of Envoy Gateway's GatewayClasses, which
// its translator only accepts.
const GatewayClassController = "gateway.envoyproxy.io/gatewayclass-controller"

// EnvoyView is what Envoy Gateway's translator would program Envoy with for one route
// rule: the load-balancing weight of each backend that has endpoints, by the backend's
// name. A backend whose backendRef weight is 0 is left out of the cluster.
type EnvoyView struct {
	Weights map[string]uint32
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
	cluster := fmt.Sprintf("httproute/%s/%s/rule/0", route.Namespace, route.Name)
	assignment := findLoadAssignment(doc, cluster)
	if assignment == nil {
		return view, fmt.Errorf("no load assignment for cluster %s in the translator's output", cluster)
	}
	view.Weights = map[string]uint32{}
	endpoints, _ := assignment["endpoints"].([]any)
	for _, e := range endpoints {
		locality, _ := e.(map[string]any)
		name := backendOf(locality)
		weight, _ := locality["loadBalancingWeight"].(float64)
		if name == "" {
			return view, fmt.Errorf("cluster %s has an endpoint group without a backend: %v", cluster, locality)
		}
		view.Weights[name] = uint32(weight)
	}
	return view, nil
}

// manifest is an object as the translator reads it: with its kind, without the server's
// bookkeeping.
func manifest(obj client.Object) ([]byte, error) {
	u := &unstructured.Unstructured{}
	if uo, ok := obj.(*unstructured.Unstructured); ok {
		u = uo.DeepCopy()
	} else {
		gvk, err := apiutil.GVKForObject(obj, Scheme)
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

// findLoadAssignment finds, anywhere in the translator's output, the ClusterLoadAssignment
// of the named cluster (in an EDS dump, or inline in a cluster).
func findLoadAssignment(v any, cluster string) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if x["clusterName"] == cluster {
			if _, ok := x["endpoints"]; ok {
				return x
			}
		}
		for _, child := range x {
			if found := findLoadAssignment(child, cluster); found != nil {
				return found
			}
		}
	case []any:
		for _, child := range x {
			if found := findLoadAssignment(child, cluster); found != nil {
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
