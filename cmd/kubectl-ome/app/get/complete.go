package get

// This file owns the shell completion of the arguments: the resource names, then the maps
// of the namespace.

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

func complete(getter *util.ClientGetter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			var out []cobra.Completion
			for _, n := range resourceNames {
				if strings.HasPrefix(n, toComplete) {
					out = append(out, n)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		case len(args) == 1 && checkResource(args[0]) == nil:
			return util.CompleteTrafficMaps(getter)(cmd, nil, toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}
