package traffic

import (
	"fmt"
	"io"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
	"github.com/ome-routing/operator/pkg/drain"
)

// The result messages.
const (
	msgApplied      = "API accepted traffic annotation request; not TrafficMap convergence."
	msgClientDryRun = "Validated locally; no patch sent. TrafficMap convergence was not observed."
	msgServerDryRun = "API dry-run accepted; no changes persisted."
)

// previewFooter follows the preview table, in OME's words: the follow-up is `kubectl ome
// traffic status`.
var previewFooter = []string{
	"API acceptance is not TrafficMap convergence or data-plane realization.",
	"The exact InferenceService UID/resourceVersion is tested atomically.",
	"Other annotations and traffic-drain override IDs are preserved.",
	"Run the previewed traffic status command to observe controller evidence.",
}

// printPreview writes what is about to happen, before anything is sent.
func printPreview(w io.Writer, action, dryRun string, p plan) error {
	if _, err := fmt.Fprintln(w, "ALPHA guarded traffic action (not TrafficMap convergence)"); err != nil {
		return err
	}
	rows := []util.Row{
		{Field: "Action", Value: action},
		{Field: "Context", Value: p.target.Context},
		{Field: "Workload NS", Value: p.target.Namespace},
		{Field: "Target", Value: "InferenceService/" + p.isvc.Name},
		{Field: "UID", Value: string(p.isvc.UID)},
		{Field: "ResourceVersion", Value: p.isvc.ResourceVersion},
		{Field: "Dry-run", Value: dryRun},
		{Field: "Override ID", Value: p.override.ID},
		{Field: "Cluster", Value: p.override.Cluster},
		{Field: "Reason", Value: strconv.Quote(p.override.Reason)},
		{Field: "Override count", Value: fmt.Sprintf("%d -> %d", p.before, p.after)},
		{Field: "Annotation", Value: drain.Annotation},
		{Field: "Follow-up", Value: followUp(p)},
	}
	if err := util.PrintUncutRows(w, rows); err != nil {
		return err
	}
	for _, l := range previewFooter {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// result is the outcome of one action.
type result struct {
	action          string
	dryRun          string
	namespace, name string
	uid             string
	resourceVersion string
	accepted        bool
	applied         bool
	override        drain.Override
	before, after   int
	followUp        string
}

func newResult(action, dryRun string, p plan) result {
	return result{
		action: action, dryRun: dryRun,
		namespace: p.isvc.Namespace, name: p.isvc.Name, uid: string(p.isvc.UID), resourceVersion: p.isvc.ResourceVersion,
		override: p.override, before: p.before, after: p.after, followUp: followUp(p),
	}
}

func (r result) message() string {
	switch r.dryRun {
	case util.DryRunClient:
		return msgClientDryRun
	case util.DryRunServer:
		return msgServerDryRun
	}
	return msgApplied
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// printResult writes the result to stdout: a bounded table, or the full ActionResult.
func printResult(w io.Writer, output string, r result) error {
	if output == util.OutputJSON || output == util.OutputYAML {
		return util.PrintObject(output, r.object(time.Now()), w)
	}
	rows := []util.Row{
		{Field: "action", Value: r.action},
		{Field: "target", Value: "InferenceService/" + r.namespace + "/" + r.name},
	}
	if output == util.OutputWide {
		rows = append(rows, util.Row{Field: "uid", Value: r.uid}, util.Row{Field: "resource-version", Value: r.resourceVersion})
	}
	rows = append(rows,
		util.Row{Field: "dry-run", Value: r.dryRun},
		util.Row{Field: "accepted", Value: yesNo(r.accepted)},
		util.Row{Field: "applied", Value: yesNo(r.applied)},
		util.Row{Field: "override-id", Value: r.override.ID},
		util.Row{Field: "cluster", Value: r.override.Cluster},
		util.Row{Field: "overrides", Value: fmt.Sprintf("%d -> %d", r.before, r.after)},
		util.Row{Field: "message", Value: r.message()},
		util.Row{Field: "follow-up", Value: r.followUp},
		util.Row{Field: "hint", Value: "Use -o json or -o yaml for full values."},
	)
	return util.PrintRows(w, rows)
}

// ActionResult is the -o json|yaml form of a traffic action's outcome.
type ActionResult struct {
	metav1.TypeMeta `json:",inline"`
	CollectedAt     metav1.Time    `json:"collectedAt"`
	Action          string         `json:"action"`
	Target          ActionTarget   `json:"target"`
	DryRun          string         `json:"dryRun"`
	Accepted        bool           `json:"accepted"`
	Applied         bool           `json:"applied"`
	Message         string         `json:"message"`
	FollowUp        string         `json:"followUp"`
	Traffic         OverrideChange `json:"traffic"`
}

// ActionTarget is the exact object acted on.
type ActionTarget struct {
	Kind            string `json:"kind"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	UID             string `json:"uid"`
	ResourceVersion string `json:"resourceVersion"`
}

// OverrideChange is the override changed and the override count before and after.
type OverrideChange struct {
	OverrideID      string `json:"overrideID"`
	Cluster         string `json:"cluster"`
	OverridesBefore int    `json:"overridesBefore"`
	OverridesAfter  int    `json:"overridesAfter"`
}

// DeepCopyObject makes ActionResult a runtime.Object for cli-runtime's printers; it holds
// only values.
func (a *ActionResult) DeepCopyObject() runtime.Object {
	c := *a
	return &c
}

// ResultGroupVersion is the group and version of the plugin's own report kinds.
var ResultGroupVersion = schema.GroupVersion{Group: "cli.ome.io", Version: "v1alpha1"}

func (r result) object(now time.Time) *ActionResult {
	a := &ActionResult{
		CollectedAt: metav1.NewTime(now.UTC()),
		Action:      r.action,
		Target:      ActionTarget{Kind: "InferenceService", Namespace: r.namespace, Name: r.name, UID: r.uid, ResourceVersion: r.resourceVersion},
		DryRun:      r.dryRun,
		Accepted:    r.accepted,
		Applied:     r.applied,
		Message:     r.message(),
		FollowUp:    r.followUp,
		Traffic:     OverrideChange{OverrideID: r.override.ID, Cluster: r.override.Cluster, OverridesBefore: r.before, OverridesAfter: r.after},
	}
	a.SetGroupVersionKind(ResultGroupVersion.WithKind("ActionResult"))
	return a
}
