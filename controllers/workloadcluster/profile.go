package workloadcluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
	kjson "sigs.k8s.io/json"
)

// The settings that let WorkloadClusters connect through ClusterProfiles, as messages name
// them: the chart value first, then the manager flag it renders.
const (
	profileNamespaceSetting = "ome.multicluster.clusterProfiles.namespace (--clusterprofile-namespace)"
	profileProvidersSetting = "ome.multicluster.clusterProfiles.providers (--clusterprofile-provider-file)"
)

// ClusterProfiles is the installation's ClusterProfile setting. The zero value reads
// none: a WorkloadCluster that names one is ClusterProfileUnsupported.
type ClusterProfiles struct {
	// Namespace is the one namespace ClusterProfiles are read (and cached) from: the
	// fleet manager's inventory namespace. Empty reads none.
	Namespace string
	// Providers are the access providers a profile may offer, in order of preference,
	// each with the exec plugin that gets its credential (KEP-5339's provider file).
	Providers []access.Provider
}

// ParseProviders reads KEP-5339's provider file ({"providers": [...]}) strictly: a
// misspelt field (case included) or one given twice is an error, not a provider without it.
func ParseProviders(data []byte) ([]access.Provider, error) {
	var file access.Config
	strict, err := kjson.UnmarshalStrict(data, &file, kjson.DisallowUnknownFields, kjson.DisallowDuplicateFields)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(strict...); err != nil {
		return nil, err
	}
	return file.Providers, nil
}

// Enabled says whether the installation reads ClusterProfiles at all.
func (p ClusterProfiles) Enabled() bool { return p.Namespace != "" }

// Validate refuses a provider list that no profile could use as written: the same checks
// the manager makes on the provider file when it starts.
func (p ClusterProfiles) Validate() error {
	var errs []error
	seen := map[string]bool{}
	for i, pr := range p.Providers {
		at := fmt.Sprintf("%s: providers[%d]", profileProvidersSetting, i)
		switch {
		case pr.Name == "":
			errs = append(errs, fmt.Errorf("%s.name must not be empty", at))
		case seen[pr.Name]:
			errs = append(errs, fmt.Errorf("%s.name %q is given twice", at, pr.Name))
		}
		seen[pr.Name] = true
		if pr.ExecConfig == nil || pr.ExecConfig.Command == "" {
			errs = append(errs, fmt.Errorf("%s.execConfig.command must be set: a provider gets its credential from an exec plugin", at))
		} else if v := pr.ExecConfig.APIVersion; v != "client.authentication.k8s.io/v1" && v != "client.authentication.k8s.io/v1beta1" {
			errs = append(errs, fmt.Errorf("%s.execConfig.apiVersion %q must be client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1", at, v))
		}
		switch pr.ProfileSourcedCLIArgsPolicy {
		case "", access.ProfileSourcedCLIArgsPolicyIgnore, access.ProfileSourcedCLIArgsPolicyAppend:
		default:
			errs = append(errs, fmt.Errorf("%s.profileSourcedCLIArgsPolicy %q must be Ignore or Append", at, pr.ProfileSourcedCLIArgsPolicy))
		}
		switch pr.ProfileSourcedEnvVarsPolicy {
		case "", access.ProfileSourcedEnvVarsPolicyIgnore, access.ProfileSourcedEnvVarsPolicyAppendIfNotExists, access.ProfileSourcedEnvVarsPolicyReplace:
		default:
			errs = append(errs, fmt.Errorf("%s.profileSourcedEnvVarsPolicy %q must be Ignore, AppendIfNotExists or Replace", at, pr.ProfileSourcedEnvVarsPolicy))
		}
	}
	if p.Namespace != "" && len(p.Providers) == 0 {
		errs = append(errs, fmt.Errorf("%s is empty: with %s set, every ClusterProfile needs a provider to connect through", profileProvidersSetting, profileNamespaceSetting))
	}
	return errors.Join(errs...)
}

// profileConfig turns a ClusterProfile into a client configuration through the first of
// the installation's providers the profile offers, as cluster-inventory-api's access
// package matches them, and holds the result to the rules a kubeconfig Secret is held to:
// an https server, inline CA data, no proxy, and an exec plugin only from the allow-list.
// It also returns the connection's identity: a change of it replaces the connection.
func profileConfig(cp *v1alpha1.ClusterProfile, profiles ClusterProfiles, policy ExecPolicy) (*rest.Config, []byte, error) {
	offered := offeredProviders(cp)
	var known []string
	for _, pr := range profiles.Providers {
		known = append(known, pr.Name)
	}
	if !slices.ContainsFunc(known, func(n string) bool { return slices.Contains(offered, n) }) {
		return nil, nil, fmt.Errorf("ClusterProfile %s/%s offers access providers [%s], none of which is in %s [%s]",
			cp.Namespace, cp.Name, strings.Join(offered, ", "), profileProvidersSetting, strings.Join(known, ", "))
	}
	// The provider list is the manager's own copy: BuildConfigFromCP appends a profile's
	// arguments and variables to the exec config it is given.
	cfg, err := access.New(cloneProviders(profiles.Providers)).BuildConfigFromCP(cp)
	if err != nil {
		// Its errors quote what a profile's exec extensions hold (arguments, variables),
		// which may be a credential; the message becomes the WorkloadCluster's status.
		return nil, nil, fmt.Errorf("ClusterProfile %s/%s: its access provider's exec extensions are refused (the parser's message is withheld, as it may quote a credential)", cp.Namespace, cp.Name)
	}
	cluster := clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	if cfg.Proxy != nil {
		if u, _ := cfg.Proxy(&http.Request{}); u != nil {
			cluster.ProxyURL = u.String()
		}
	}
	// BuildConfigFromCP merges a profile's variables through a map: in name order, the
	// identity below is the same from one reconcile to the next, and the connection stays.
	slices.SortStableFunc(cfg.ExecProvider.Env, func(a, b clientcmdapi.ExecEnvVar) int { return strings.Compare(a.Name, b.Name) })
	if err := errors.Join(checkCluster(&cluster), policy.check(cfg.ExecProvider, providerEnv(profiles, cp))); err != nil {
		return nil, nil, fmt.Errorf("ClusterProfile %s/%s: %w", cp.Namespace, cp.Name, err)
	}
	cfg.Proxy = nil
	identity, err := json.Marshal(struct {
		Host string
		CA   []byte
		Exec *clientcmdapi.ExecConfig
	}{cfg.Host, cfg.CAData, cfg.ExecProvider})
	if err != nil {
		return nil, nil, err
	}
	policy.useExecPlugin(cfg, cfg.ExecProvider)
	return cfg, identity, nil
}

// providerEnv are the variables the installation's provider that BuildConfigFromCP
// chose for cp sets itself: the first provider of the installation's that cp offers.
func providerEnv(profiles ClusterProfiles, cp *v1alpha1.ClusterProfile) []clientcmdapi.ExecEnvVar {
	offered := offeredProviders(cp)
	for _, pr := range profiles.Providers {
		if slices.Contains(offered, pr.Name) {
			if pr.ExecConfig == nil {
				return nil
			}
			return pr.ExecConfig.Env
		}
	}
	return nil
}

// offeredProviders are the names of the access providers a profile offers, in its own
// order, the deprecated credentialProviders included.
func offeredProviders(cp *v1alpha1.ClusterProfile) []string {
	var names []string
	for _, list := range [][]v1alpha1.AccessProvider{cp.Status.AccessProviders, cp.Status.CredentialProviders} {
		for _, p := range list {
			if !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
	}
	return names
}

// cloneProviders copies the providers deeply enough that building a config changes none
// of them.
func cloneProviders(in []access.Provider) []access.Provider {
	out := make([]access.Provider, len(in))
	for i, p := range in {
		out[i] = p
		if p.ExecConfig != nil {
			e := *p.ExecConfig
			e.Args = slices.Clone(e.Args)
			e.Env = slices.Clone(e.Env)
			out[i].ExecConfig = &e
		}
	}
	return out
}

// clusterInfo is the cluster a plugin with provideClusterInfo is told about in
// KUBERNETES_EXEC_INFO, as client-go's exec authenticator fills it in: the server, its CA
// and the profile's client.authentication.k8s.io/exec extension.
func clusterInfo(cfg *rest.Config, e *clientcmdapi.ExecConfig) map[string]any {
	info := map[string]any{"server": cfg.Host, "certificate-authority-data": cfg.CAData}
	switch c := e.Config.(type) {
	case nil:
	case *runtime.Unknown:
		info["config"] = json.RawMessage(c.Raw)
	default:
		info["config"] = c
	}
	return info
}
