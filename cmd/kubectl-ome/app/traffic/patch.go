package traffic

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/drain"
)

const jsonPatchType = types.JSONPatchType

type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// annotationPath is the JSON pointer of the drain annotation ("/" escaped as "~1").
var annotationPath = "/metadata/annotations/" + strings.ReplaceAll(strings.ReplaceAll(drain.Annotation, "~", "~0"), "/", "~1")

// guardedPatch is a JSON patch that first tests the UID and resourceVersion the preview
// showed, so the API server applies it to exactly that object or not at all, and then
// sets, adds or removes only the drain annotation: every other annotation is untouched.
func guardedPatch(p plan) ([]byte, error) {
	ops := []patchOp{
		{Op: "test", Path: "/metadata/uid", Value: string(p.isvc.UID)},
		{Op: "test", Path: "/metadata/resourceVersion", Value: p.isvc.ResourceVersion},
	}
	_, present := p.isvc.Annotations[drain.Annotation]
	switch {
	case p.remove:
		ops = append(ops, patchOp{Op: "remove", Path: annotationPath})
	case present:
		ops = append(ops, patchOp{Op: "replace", Path: annotationPath, Value: p.value})
	case p.isvc.Annotations != nil:
		ops = append(ops, patchOp{Op: "add", Path: annotationPath, Value: p.value})
	default:
		ops = append(ops, patchOp{Op: "add", Path: "/metadata/annotations", Value: map[string]string{drain.Annotation: p.value}})
	}
	return json.Marshal(ops)
}
