package util

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// kubeconfig is a kubeconfig with one context, "hub", on the given server and namespace.
func kubeconfig(server, namespace string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: hub
  cluster: {server: "` + server + `", certificate-authority-data: ""}
contexts:
- name: hub
  context: {cluster: hub, user: op, namespace: "` + namespace + `"}
current-context: hub
users:
- name: op
  user: {token: t}
`
}

func TestResolveRefusals(t *testing.T) {
	cases := []struct {
		name, config, context string
		want                  error
		message               string
	}{
		{name: "kubeconfig that does not parse", config: "clusters: [", want: ErrNamespaceResolve,
			message: "resolve workload namespace failed ("},
		{name: "namespace that is not a DNS label", config: kubeconfig("https://127.0.0.1:6443", "Prod_NS"), want: ErrNamespaceInvalid,
			message: `resolved workload namespace is invalid ("Prod_NS" is not a DNS-1123 label)`},
		// The namespace is resolved first, from the selected context: a context that does
		// not exist fails there, as the refusals' order says.
		{name: "context that does not exist", config: kubeconfig("https://127.0.0.1:6443", "prod"), context: "elsewhere",
			want: ErrNamespaceResolve, message: "resolve workload namespace failed ("},
		{name: "plain HTTP server", config: kubeconfig("http://127.0.0.1:8080", "prod"), want: ErrContextUnsafe,
			message: `selected kubeconfig context is unavailable or unsafe (context "hub" has server http://127.0.0.1:8080, which is not HTTPS)`},
		{name: "context that skips TLS verification", config: strings.Replace(kubeconfig("https://127.0.0.1:6443", "prod"),
			`certificate-authority-data: ""`, "insecure-skip-tls-verify: true", 1), want: ErrContextUnsafe,
			message: `selected kubeconfig context is unavailable or unsafe (context "hub" sets insecure-skip-tls-verify: the API server's certificate would not be verified)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(path, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			flags := genericclioptions.NewConfigFlags(false)
			flags.KubeConfig = &path
			if tc.context != "" {
				flags.Context = &tc.context
			}
			_, err := NewClientGetter(flags).Resolve()
			// The documented message starts the error; the detail in parentheses says why.
			if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("Resolve() = %v, want %q", err, tc.message)
			}
		})
	}
}

func TestResolveHTTPSContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(kubeconfig("https://127.0.0.1:6443", "prod")), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &path
	target, err := NewClientGetter(flags).Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if target.Namespace != "prod" || target.Context != "hub" {
		t.Errorf("target = %s in %s, want prod in hub", target.Namespace, target.Context)
	}
}
