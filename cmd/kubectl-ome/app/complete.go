package app

import (
	"slices"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// completeKubeconfigFlags completes --context from the kubeconfig and --namespace from the
// API server, as kubectl does.
func completeKubeconfigFlags(cmd *cobra.Command, getter *util.ClientGetter) {
	util.CompleteFlag(cmd, "context", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		if f := cmd.PersistentFlags().Lookup("kubeconfig"); f != nil && f.Value.String() != "" {
			rules.ExplicitPath = f.Value.String()
		}
		cfg, err := rules.Load()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := make([]string, 0, len(cfg.Contexts))
		for name := range cfg.Contexts {
			names = append(names, name)
		}
		slices.Sort(names)
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	util.CompleteFlag(cmd, "namespace", util.CompleteNamespaces(getter))
}
