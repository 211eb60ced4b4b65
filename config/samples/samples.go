// Package samples holds the quickstart's manifests as files a user applies with kubectl,
// and gives the same bytes to the demo and the tests, so that the objects a user copies
// are the ones the suites prove.
package samples

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed inferenceservice.yaml
var inferenceServiceFile string

// GuideInferenceService is the user guide's isvc.yaml (Step 2): the InferenceService
// document of inferenceservice.yaml, byte for byte, without its Namespace.
func GuideInferenceService() string {
	for _, doc := range strings.Split(inferenceServiceFile, "\n---\n") {
		if strings.Contains(doc, "\nkind: InferenceService\n") {
			return doc
		}
	}
	panic("config/samples/inferenceservice.yaml has no InferenceService document")
}

// ProbeField is one field of the probe block and the value to give it.
type ProbeField struct{ Name, Value string }

// GuideInferenceServiceWith is GuideInferenceService with each probe field given its value,
// in order. A field the guide's probe lacks is added at the end of the probe block. It fails
// on a field the guide sets twice, which would make the edit ambiguous.
func GuideInferenceServiceWith(fields ...ProbeField) (string, error) {
	return withProbeFields(GuideInferenceService(), fields)
}

func withProbeFields(doc string, fields []ProbeField) (string, error) {
	for _, f := range fields {
		prefix := "\n      " + f.Name + ": "
		switch n := strings.Count(doc, prefix); n {
		case 0:
			doc += strings.TrimPrefix(prefix, "\n") + f.Value + "\n"
		case 1:
			at := strings.Index(doc, prefix) + len(prefix)
			end := at + strings.IndexByte(doc[at:], '\n')
			doc = doc[:at] + f.Value + doc[end:]
		default:
			return "", fmt.Errorf("probe field %q appears %d times in the guide's InferenceService", f.Name, n)
		}
	}
	return doc, nil
}
