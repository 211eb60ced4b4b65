package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The spec's commands, as a reader copies them from it. The story runs them with the real
// kubectl so that what it prints is exactly what the reader will see.
const (
	// tableJSONPath is the spec's Step 3 jsonpath: cluster, weight, healthy, and the last
	// probe result and message.
	tableJSONPath = `{range .spec.entries[*]}{.cluster}{" "}{.weight}{" "}{.healthy}{" "}{.probe.result}{" "}{.probe.message}{"\n"}{end}`
	// capacityJSONPath shows each entry's capacity: cluster, weight, allocated, ready,
	// source and reported, as the capacity polling guide lists them.
	capacityJSONPath = `{range .spec.entries[*]}{.cluster}{" "}{.weight}{" "}{.capacity.allocated}{" "}{.capacity.ready}{" "}{.capacity.source}{" "}{.capacity.reported}{"\n"}{end}`
	// routableColumns is the spec's custom-columns view of the Routable condition.
	routableColumns = `custom-columns=ROUTABLE:.status.conditions[?(@.type=="Routable")].status,REASON:.status.conditions[?(@.type=="Routable")].reason,MESSAGE:.status.conditions[?(@.type=="Routable")].message`
)

// kubectlTimeout bounds one kubectl call: a local API server answers in milliseconds, so
// a call that takes longer means something is stuck, and the story should say so.
const kubectlTimeout = 30 * time.Second

// Kubectl runs the real kubectl binary against the demo's control plane.
type Kubectl struct {
	// Path is the kubectl binary.
	Path string
	// KubeConfig is the kubeconfig file the demo wrote for the control plane.
	KubeConfig string
	// Plugin is the kubectl-ome binary, "" when the story does not use it.
	Plugin string
	// out is where commands and their output are shown.
	out *Printer
}

// Run runs kubectl with args and returns its combined output. A failure includes the
// output, which is where kubectl explains itself.
func (k *Kubectl) Run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.Path, append([]string{"--kubeconfig", k.KubeConfig}, args...)...)
	if k.Plugin != "" && len(args) > 0 && args[0] == "ome" {
		// kubectl takes no flag before a plugin's name, so the plugin gets the kubeconfig
		// through the environment, and finds itself on PATH.
		cmd = exec.CommandContext(ctx, k.Path, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+k.KubeConfig,
			"PATH="+filepath.Dir(k.Plugin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return buf.String(), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(buf.String()))
	}
	return buf.String(), nil
}

// Show prints the command the way a user would type it, runs it, and prints its output.
func (k *Kubectl) Show(ctx context.Context, args ...string) error {
	k.out.Command("kubectl " + shellJoin(args))
	text, err := k.Run(ctx, args...)
	if err != nil {
		return err
	}
	k.out.Output(text)
	return nil
}

// tableArgs is the spec's Step 3 command.
func tableArgs() []string {
	return []string{"get", "trafficmap", serviceName, "-n", serviceNS, "-o", "jsonpath=" + tableJSONPath}
}

// capacityArgs prints each entry's capacity block.
func capacityArgs() []string {
	return []string{"get", "trafficmap", serviceName, "-n", serviceNS, "-o", "jsonpath=" + capacityJSONPath}
}

// routableArgs is the spec's Routable command.
func routableArgs() []string {
	return []string{"get", "trafficmap", serviceName, "-n", serviceNS, "-o", routableColumns}
}

// shellJoin quotes the arguments that a shell would split or expand, with single quotes
// as the spec writes them, so that a printed command can be pasted into a terminal.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

func shellQuote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\"'`$\\{}[]()*?<>|&;!#~") {
		return a
	}
	// The spec quotes only the template of a jsonpath, and a custom-columns argument whole.
	if rest, ok := strings.CutPrefix(a, "jsonpath="); ok {
		return "jsonpath=" + shellQuote(rest)
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
