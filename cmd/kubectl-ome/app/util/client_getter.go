package util

import (
	"errors"
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
// talk to the API server without verifying it.
func (g *ClientGetter) Resolve() (Target, error) {
	loader := g.flags.ToRawKubeConfigLoader()
	ns, _, err := loader.Namespace()
	if err != nil {
		return Target{}, ErrNamespaceResolve
	}
	if len(validation.IsDNS1123Label(ns)) > 0 {
		return Target{}, ErrNamespaceInvalid
	}
	raw, err := loader.RawConfig()
	if err != nil {
		return Target{}, ErrContextUnsafe
	}
	name := raw.CurrentContext
	if g.flags.Context != nil && *g.flags.Context != "" {
		name = *g.flags.Context
	}
	if _, ok := raw.Contexts[name]; !ok && name != "" {
		return Target{}, ErrContextUnsafe
	}
	cfg, err := g.flags.ToRESTConfig()
	if err != nil || !safe(cfg) {
		return Target{}, ErrContextUnsafe
	}
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	if err != nil {
		return Target{}, ErrContextUnsafe
	}
	return Target{Namespace: ns, Context: name, Client: c}, nil
}

// safe is an HTTPS server whose certificate is verified.
func safe(cfg *rest.Config) bool {
	u, err := url.Parse(cfg.Host)
	return err == nil && u.Scheme == "https" && !cfg.Insecure
}
