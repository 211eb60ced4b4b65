package placement

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
)

// requestBudget bounds each API request.
const requestBudget = 10 * time.Second

var (
	errFlags      = errors.New("invalid placement flags; use --help")
	errOneService = errors.New("exactly one inference service is required")
	errName       = errors.New("invalid inference service name")
)

// NewCommand is `kubectl ome placement`.
func NewCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "placement",
		Short: "Read where a service is placed and how it is routed (read-only, alpha)",
		Example: `  # The routing of the service chat: conditions, and per cluster its weight, probe, gate and drains
  kubectl ome placement endpoint chat -n prod

  # Where the service is placed: each home, admitted or admitting, and its address
  kubectl ome placement status chat -n prod

  # Its routing settings and the registered workload clusters, with their readiness
  kubectl ome placement explain chat -n prod`,
	}
	util.Group(cmd)
	cmd.SetFlagErrorFunc(util.FlagErrors(errFlags.Error()))
	cmd.AddCommand(newStatusCommand(getter, streams))
	cmd.AddCommand(newExplainCommand(getter, streams))
	cmd.AddCommand(newEndpointCommand(getter, streams))
	return cmd
}

func newEndpointCommand(getter *util.ClientGetter, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "endpoint INFERENCESERVICE",
		Short: "Show the TrafficMap's conditions and, per route home, its endpoint, weight, probe, gate and drains",
		Long: `Show the TrafficMap's conditions and, per route home, its endpoint, weight, probe, gate and drains.

It reads the InferenceService and its TrafficMap and sends no probe. Routing freshness says
whether the map shows the service as it is now: built from its current generation, with its
current ome.io/traffic-drain annotation applied, a probe recorded within three probe periods,
and not frozen by a refused routing setting. "not observed yet" means the manager has not
written the map since the change, "last probe recorded ... ago" that it has stopped probing
(it may be stopped or behind), "frozen" that it refuses a setting (the Frozen row names it).
A long recorded probe message wraps onto further lines; -o wide also lists every route home
and its capacity. A map with failover tiers adds its tier split (each tier's load and
health) and each route home's tier.`,
		Example: `  # The routing of the service chat in namespace prod
  kubectl ome placement endpoint chat -n prod

  # Every route home, with its capacity, and probe messages on one line
  kubectl ome placement endpoint chat -n prod -o wide

  # Everything, uncut, for a script
  kubectl ome placement endpoint chat -n prod -o json`,
	}
	return ReadOnly(cmd, getter, streams, func(ctx context.Context, t util.Target, name string, now time.Time) (runtime.Object, func(bool) []util.Row, error) {
		report, err := collect(ctx, t, name, now)
		if err != nil {
			return nil, nil, err
		}
		return report, func(wide bool) []util.Row { return endpointRows(report, wide) }, nil
	})
}

// View builds one read-only view of a service: the report that -o json|yaml prints, and
// its rows for the table (wide or not).
type View func(ctx context.Context, t util.Target, name string, now time.Time) (runtime.Object, func(wide bool) []util.Row, error)

// ReadOnly gives cmd what every read-only view of a service shares (the `placement` subcommands and `traffic status`): one service name, checked
// before any request, -o table|wide|json|yaml with its completion, completion of the name,
// and the exit codes (1 only for a bad argument or an unreadable service).
func ReadOnly(cmd *cobra.Command, getter *util.ClientGetter, streams genericiooptions.IOStreams, build View) *cobra.Command {
	var output string
	cmd.Args = cobra.ArbitraryArgs
	cmd.ValidArgsFunction = util.CompleteServices(getter)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) != 1:
			return util.Explain(errOneService, "got %d arguments; pass the InferenceService's name once", len(args))
		case util.CheckOutput(output) != nil:
			return util.ErrOutput
		case !ValidName(args[0]):
			return errName
		}
		target, err := getter.Resolve()
		if err != nil {
			return err
		}
		report, rows, err := build(cmd.Context(), target, args[0], time.Now())
		if err != nil {
			return err
		}
		if output == util.OutputJSON || output == util.OutputYAML {
			return util.PrintObject(output, report, streams.Out)
		}
		return util.PrintFixedRows(streams.Out, rows(output == util.OutputWide))
	}
	cmd.Flags().StringVarP(&output, "output", "o", util.OutputTable, "Output: table, wide, json or yaml")
	util.CompleteFlagValues(cmd, "output", util.OutputTable, util.OutputWide, util.OutputJSON, util.OutputYAML)
	return cmd
}

// collect reads the service and its TrafficMap and builds the endpoint report.
func collect(ctx context.Context, target util.Target, name string, now time.Time) (*EndpointReport, error) {
	isvc, tm, tmErr, err := Read(ctx, target, name)
	if err != nil {
		return nil, err
	}
	return buildReport(isvc, tm, tmErr, now), nil
}

// Read reads the service and its TrafficMap, for every read-only view of a service. Only
// an unreadable service is an error, which keeps the documented "InferenceService read
// unavailable: <reason>" and names the request in parentheses; a missing or unreadable map
// is returned as tmErr, with tm nil, and is part of the view.
func Read(ctx context.Context, target util.Target, name string) (*omev1beta1.InferenceService, *omev1beta1.TrafficMap, error, error) {
	key := client.ObjectKey{Namespace: target.Namespace, Name: name}
	isvc := &omev1beta1.InferenceService{}
	if err := get(ctx, target.Client, key, isvc); err != nil {
		r := util.Request{Verb: "get", Resource: "inferenceservices", Group: omev1beta1.GroupVersion.Group, Namespace: target.Namespace, Name: name}
		msg := fmt.Sprintf("InferenceService read unavailable: %s (%s", readReason(err), r)
		if apierrors.IsForbidden(err) {
			msg += "; check with " + r.CanI()
		}
		return nil, nil, nil, errors.New(msg + ")")
	}
	tm := &omev1beta1.TrafficMap{}
	if err := get(ctx, target.Client, key, tm); err != nil {
		return isvc, nil, err, nil
	}
	return isvc, tm, nil, nil
}

func get(ctx context.Context, c client.Client, key client.ObjectKey, obj client.Object) error {
	ctx, cancel := context.WithTimeout(ctx, requestBudget)
	defer cancel()
	return c.Get(ctx, key, obj)
}

// readReason names why a read failed in one word.
func readReason(err error) string {
	switch {
	case apierrors.IsNotFound(err):
		return "NotFound"
	case apierrors.IsForbidden(err):
		return "Forbidden"
	case errors.Is(err, context.Canceled):
		return "Cancelled"
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return "Timeout"
	}
	return "Unreadable"
}

// controlledBy says whether the map belongs to this service.
func controlledBy(tm *omev1beta1.TrafficMap, isvc *omev1beta1.InferenceService) bool {
	ref := metav1.GetControllerOf(tm)
	return ref != nil && ref.UID == isvc.UID
}
