package get

// This file owns the command: its arguments and flags, and the reads it makes.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// requestBudget bounds each API request.
const requestBudget = 10 * time.Second

// pageSize is how many maps one list request asks for, as kubectl's --chunk-size.
const pageSize = 500

var (
	errFlags         = errors.New("invalid get flags; use --help")
	errNoResource    = fmt.Errorf("a resource is required (%s)", validResources)
	errArgs          = errors.New("get takes a resource and at most one name")
	errNameAcrossAll = errors.New("a trafficmap cannot be read by name across all namespaces; use -n NAMESPACE")
	errName          = errors.New("invalid trafficmap name")
)

// NewCommand is `kubectl ome get`.
func NewCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	var allNamespaces bool
	cmd := &cobra.Command{
		Use:   "get RESOURCE [NAME]",
		Short: "List TrafficMaps: mode, targets, routability and publication (read-only, alpha)",
		Long: `List TrafficMaps: mode, targets, routability and publication (read-only, alpha).

RESOURCE is trafficmaps (or trafficmap, tm, tmap). A condition written for a route the map
no longer has reads Unknown, as does one that is not recorded. -o wide adds the service,
the active and healthy targets, the override, the Routable reason, the gateway route and
whether the publisher has published the current weights.`,
		Example: `  # The TrafficMaps of namespace prod
  kubectl ome get trafficmaps -n prod

  # One map, with every column
  kubectl ome get tm chat -n prod -o wide

  # Every map in the cluster, as a List for a script
  kubectl ome get tm -A -o json`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: complete(getter),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return errNoResource
			case checkResource(args[0]) != nil:
				return checkResource(args[0])
			case len(args) > 2:
				return util.Explain(errArgs, "got %d arguments", len(args))
			case util.CheckOutput(output) != nil:
				return util.ErrOutput
			}
			name := ""
			if len(args) == 2 {
				name = args[1]
				if allNamespaces {
					return errNameAcrossAll
				}
				if problems := validation.IsDNS1123Subdomain(name); len(problems) > 0 {
					return util.Explain(errName, "%q is not a DNS-1123 subdomain", name)
				}
			}
			target, err := getter.Resolve()
			if err != nil {
				return err
			}
			maps, err := read(cmd.Context(), target, name, allNamespaces)
			if err != nil {
				return err
			}
			return printMaps(streams.Out, streams.ErrOut, output, maps, time.Now(), allNamespaces)
		},
	}
	cmd.SetFlagErrorFunc(util.FlagErrors(errFlags.Error()))
	cmd.Flags().StringVarP(&output, "output", "o", util.OutputTable, "Output: table, wide, json or yaml")
	cmd.Flags().BoolVarP(&allNamespaces, "all-namespaces", "A", false, "List the maps of every namespace, with a NAMESPACE column")
	util.CompleteFlagValues(cmd, "output", util.OutputTable, util.OutputWide, util.OutputJSON, util.OutputYAML)
	return cmd
}

// read gets the named map, or lists the namespace's (every namespace's) maps page by page.
// A failed request is the error, in the form "get trafficmaps team-a/missing: NotFound".
func read(ctx context.Context, target util.Target, name string, allNamespaces bool) ([]omev1beta1.TrafficMap, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if name != "" {
		r := util.Request{Verb: "get", Resource: resource, Group: omev1beta1.GroupVersion.Group, Namespace: target.Namespace, Name: name}
		tm := &omev1beta1.TrafficMap{}
		reqCtx, cancel := context.WithTimeout(ctx, requestBudget)
		defer cancel()
		if err := target.Client.Get(reqCtx, client.ObjectKey{Namespace: target.Namespace, Name: name}, tm); err != nil {
			return nil, errors.New(r.Detail(err))
		}
		return []omev1beta1.TrafficMap{*tm}, nil
	}
	opts := []client.ListOption{client.Limit(pageSize)}
	scope := "-n " + target.Namespace
	if allNamespaces {
		scope = "-A"
	} else {
		opts = append(opts, client.InNamespace(target.Namespace))
	}
	var maps []omev1beta1.TrafficMap
	next := ""
	for {
		// A fresh list each page: decoding into the last one would reuse the slices that
		// the maps already kept share with it.
		var page omev1beta1.TrafficMapList
		reqCtx, cancel := context.WithTimeout(ctx, requestBudget)
		err := target.Client.List(reqCtx, &page, append(opts, client.Continue(next))...)
		cancel()
		if err != nil {
			return nil, listError(scope, err)
		}
		maps = append(maps, page.Items...)
		if next = page.Continue; next == "" {
			return maps, nil
		}
	}
}

// listError is a failed list as "list trafficmaps -n team-a: Forbidden", with the check
// of the right for a forbidden one.
func listError(scope string, err error) error {
	reason := util.Reason(err)
	msg := fmt.Sprintf("list %s %s: %s", resource, scope, reason)
	switch reason {
	case string(metav1.StatusReasonForbidden):
		msg += fmt.Sprintf("; check with kubectl auth can-i list %s.%s %s", resource, omev1beta1.GroupVersion.Group, scope)
	case "Unreachable":
		msg += "; is the API server of the selected context up?"
	}
	return errors.New(msg)
}
