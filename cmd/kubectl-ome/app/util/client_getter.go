package util

import (
	"errors"
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// The refusals of the kubeconfig checks.
var (
	ErrNamespaceResolve = errors.New("resolve workload namespace failed")
	ErrNamespaceInvalid = errors.New("resolved workload namespace is invalid")
	ErrContextUnsafe    = errors.New("selected kubeconfig context is unavailable or unsafe")
)

// Scheme knows the ome.io types and the built-in ones.
var Scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := omev1beta1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// ClientGetter turns the kubeconfig flags into a namespace, a context name and a client.
type ClientGetter struct {
	flags *genericclioptions.ConfigFlags
}

// NewClientGetter wraps the command's ConfigFlags.
func NewClientGetter(flags *genericclioptions.ConfigFlags) *ClientGetter {
	return &ClientGetter{flags: flags}
}

// Target is where a command acts: the namespace, the context's name and a client for it.
type Target struct {
	Namespace string
	Context   string
	Client    client.Client
}

// Resolve finds the namespace (-n, else the context's, else "default") and the selected
// context, and builds a client. It refuses a context that does not exist or that would
// talk to the API server without verifying it, and says which.
func (g *ClientGetter) Resolve() (Target, error) {
	loader := g.flags.ToRawKubeConfigLoader()
	ns, _, err := loader.Namespace()
	if err != nil {
		return Target{}, fmt.Errorf("%w (%w)", ErrNamespaceResolve, err)
	}
	if problems := validation.IsDNS1123Label(ns); len(problems) > 0 {
		return Target{}, fmt.Errorf("%w (%q is not a DNS-1123 label)", ErrNamespaceInvalid, ns)
	}
	raw, err := loader.RawConfig()
	if err != nil {
		return Target{}, unsafeContext("the kubeconfig does not load: %v", err)
	}
	name := raw.CurrentContext
	if g.flags.Context != nil && *g.flags.Context != "" {
		name = *g.flags.Context
	}
	if _, ok := raw.Contexts[name]; !ok && name != "" {
		return Target{}, unsafeContext("context %q is not in the kubeconfig", name)
	}
	if g.flags.Insecure != nil && *g.flags.Insecure {
		return Target{}, unsafeContext("--insecure-skip-tls-verify is refused: the plugin only talks to an API server " +
			"whose certificate it verifies; give the context a certificate-authority instead")
	}
	which := fmt.Sprintf("context %q", name)
	if name == "" {
		which = "the configuration (no kubeconfig context is selected)"
	}
	cfg, err := g.flags.ToRESTConfig()
	if err != nil {
		return Target{}, unsafeContext("%s gives no usable client configuration: %v", which, err)
	}
	if why := unsafeReason(cfg); why != "" {
		return Target{}, unsafeContext("%s %s", which, why)
	}
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	if err != nil {
		return Target{}, unsafeContext("no client for %s: %v", which, err)
	}
	return Target{Namespace: ns, Context: name, Client: c}, nil
}

func unsafeContext(format string, args ...any) error {
	return fmt.Errorf("%w (%s)", ErrContextUnsafe, fmt.Sprintf(format, args...))
}

// unsafeReason says why a client configuration would not verify the API server, or "" if
// it would: the server must be HTTPS and its certificate checked.
func unsafeReason(cfg *rest.Config) string {
	u, err := url.Parse(cfg.Host)
	switch {
	case err != nil:
		return "has a server address that does not parse"
	case u.Scheme != "https":
		return fmt.Sprintf("has server %s, which is not HTTPS", (&url.URL{Scheme: u.Scheme, Host: u.Host}).String())
	case cfg.Insecure:
		return "sets insecure-skip-tls-verify: the API server's certificate would not be verified"
	}
	return ""
}
