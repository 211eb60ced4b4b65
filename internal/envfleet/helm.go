package envfleet

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// renderChart runs helm template on the chart with args and returns each YAML document it
// renders, so that what a suite installs is what the chart would. what names the rendering
// in errors.
func renderChart(ctx context.Context, what string, args ...string) ([][]byte, error) {
	helm := os.Getenv("HELM")
	if helm == "" {
		return nil, fmt.Errorf("HELM is not set: %s comes from the chart, which helm renders; make test sets HELM", what)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, helm, append([]string{"template", "ome", ChartDir()}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("helm template %s: %w\n%s", what, err, stderr.String())
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(&stdout))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
}
