package util

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
)

// Shell completion. kubectl completes a plugin's arguments by running the executable
// kubectl_complete-ome from PATH, which asks this binary (`kubectl-ome __complete ...`).
// Completions read the API server with the same kubeconfig flags as the command; a failure
// completes nothing rather than printing an error into the user's prompt.

// completeBudget bounds the requests one completion makes: a prompt must not hang.
const completeBudget = 5 * time.Second

// completeLimit bounds how many objects one completion lists.
const completeLimit = 500

// CompleteFlag registers fn for the flag name of cmd. Registration fails only for a flag
// that does not exist or is registered twice, which is a bug the tests catch.
func CompleteFlag(cmd *cobra.Command, name string, fn cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, fn); err != nil {
		panic(err)
	}
}

// CompleteFlagValues completes the flag name with a fixed set of values.
func CompleteFlagValues(cmd *cobra.Command, name string, values ...string) {
	CompleteFlag(cmd, name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// CompleteServices completes the first argument with the InferenceServices of the
// namespace.
func CompleteServices(getter *ClientGetter) cobra.CompletionFunc {
	return completeNames(getter, "InferenceServiceList")
}

// CompleteTrafficMaps completes the first argument with the TrafficMaps of the namespace.
func CompleteTrafficMaps(getter *ClientGetter) cobra.CompletionFunc {
	return completeNames(getter, "TrafficMapList")
}

// completeNames completes the first argument with the names of the namespace's objects of
// listKind (an ome.io list kind), read as metadata only: a name is all completion needs.
func completeNames(getter *ClientGetter, listKind string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withTarget(cmd, getter, func(ctx context.Context, t Target) []string {
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(omev1beta1.GroupVersion.WithKind(listKind))
			if t.Client.List(ctx, list, client.InNamespace(t.Namespace), client.Limit(completeLimit)) != nil {
				return nil
			}
			names := make([]string, 0, len(list.Items))
			for _, o := range list.Items {
				names = append(names, o.Name)
			}
			return names
		}, toComplete)
	}
}

// CompleteClusters completes --workload-cluster with the WorkloadClusters and the entries
// of the service's TrafficMap.
func CompleteClusters(getter *ClientGetter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withTarget(cmd, getter, func(ctx context.Context, t Target) []string {
			var names []string
			var wlcs omev1beta1.WorkloadClusterList
			if t.Client.List(ctx, &wlcs, client.Limit(completeLimit)) == nil {
				for _, w := range wlcs.Items {
					names = append(names, w.Name)
				}
			}
			if len(args) > 0 {
				tm := &omev1beta1.TrafficMap{}
				if t.Client.Get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: args[0]}, tm) == nil {
					for _, e := range tm.Spec.Entries {
						names = append(names, e.Cluster)
					}
				}
			}
			return names
		}, toComplete)
	}
}

// CompleteDrainIDs completes --id with the overrides the service's annotation holds.
func CompleteDrainIDs(getter *ClientGetter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withTarget(cmd, getter, func(ctx context.Context, t Target) []string {
			isvc := &omev1beta1.InferenceService{}
			if t.Client.Get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: args[0]}, isvc) != nil {
				return nil
			}
			value, present := isvc.Annotations[drain.Annotation]
			overrides, err := drain.Parse(value, present)
			if err != nil {
				return nil
			}
			ids := make([]string, 0, len(overrides))
			for _, o := range overrides {
				ids = append(ids, o.ID)
			}
			return ids
		}, toComplete)
	}
}

// withTarget resolves the kubeconfig flags and runs list with a bounded context, then
// keeps the distinct names that start with toComplete, sorted.
func withTarget(cmd *cobra.Command, getter *ClientGetter, list func(context.Context, Target) []string,
	toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	t, err := getter.Resolve()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	parent := cmd.Context()
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, completeBudget)
	defer cancel()
	var out []cobra.Completion
	for _, n := range list(ctx, t) {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), cobra.ShellCompDirectiveNoFileComp
}

// CompleteNamespaces completes --namespace with the namespaces the user may list.
func CompleteNamespaces(getter *ClientGetter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withTarget(cmd, getter, func(ctx context.Context, t Target) []string {
			var list corev1.NamespaceList
			if t.Client.List(ctx, &list, client.Limit(completeLimit)) != nil {
				return nil
			}
			names := make([]string, 0, len(list.Items))
			for _, n := range list.Items {
				names = append(names, n.Name)
			}
			return names
		}, toComplete)
	}
}
