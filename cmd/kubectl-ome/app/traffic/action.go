package traffic

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
	"github.com/ome-routing/operator/pkg/drain"
)

const (
	actionDrain   = "traffic drain"
	actionUndrain = "traffic undrain"
)

// The command's time budget: the whole action, prompt included, and each API request.
const (
	totalBudget   = 45 * time.Second
	requestBudget = 10 * time.Second
)

// options are one invocation of drain or undrain.
type options struct {
	action  string
	getter  *util.ClientGetter
	streams genericiooptions.IOStreams

	args    []string
	id      string
	cluster string
	reason  string
	dryRun  string
	output  string
	yes     bool
	// force drains a cluster that is neither a WorkloadCluster nor in the map.
	force bool
}

// plan is what the preview shows and the patch does.
type plan struct {
	target   util.Target
	isvc     *omev1beta1.InferenceService
	override drain.Override
	before   int
	after    int
	// value is the annotation's new value; remove is true when the last drain goes and the
	// annotation with it.
	value  string
	remove bool
}

func (o *options) run(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, totalBudget)
	defer cancel()
	if err := o.checkFlags(); err != nil {
		return err
	}
	target, err := o.getter.Resolve()
	if err != nil {
		return err
	}
	isvc, err := read(ctx, target, o.args[0])
	if err != nil {
		return err
	}
	p, err := o.plan(target, isvc)
	if err != nil {
		return err
	}
	if o.action == actionDrain {
		if err := o.checkTarget(ctx, target, isvc); err != nil {
			return err
		}
	}
	if err := printPreview(o.streams.ErrOut, o.action, o.dryRun, p); err != nil {
		return errWriteResult
	}
	if !o.yes {
		if err := confirm(ctx, o.streams.In, o.streams.ErrOut); err != nil {
			return err
		}
	}
	res, err := o.apply(ctx, p)
	if err != nil {
		return err
	}
	if err := printResult(o.streams.Out, o.output, res); err != nil {
		return errWriteResult
	}
	return nil
}

// checkFlags runs the checks that need no API server, in the documented order. Each
// refusal keeps its documented text and says in parentheses which flag or rule it is.
func (o *options) checkFlags() error {
	switch {
	case len(o.args) != 1:
		return util.Explain(errOneService, "got %d arguments; pass the InferenceService's name once", len(o.args))
	case util.CheckOutput(o.output) != nil:
		return util.ErrOutput
	case util.CheckDryRun(o.dryRun) != nil:
		return util.ErrDryRun
	case !validName(o.args[0]):
		return util.Explain(errName, "%s", nameProblem(o.args[0], "the name"))
	case o.action == actionDrain && o.cluster == "":
		return errNeedCluster
	case !validID(o.id):
		return util.Explain(errID, "%s", idProblem(o.id))
	case o.action == actionDrain && !validCluster(o.cluster):
		return util.Explain(errCluster, "%s", nameProblem(o.cluster, "--workload-cluster"))
	case o.action == actionDrain && !validReason(o.reason):
		return util.Explain(errReason, "%s", reasonProblem(o.reason))
	}
	return nil
}

func read(ctx context.Context, target util.Target, name string) (*omev1beta1.InferenceService, error) {
	ctx, cancel := context.WithTimeout(ctx, requestBudget)
	defer cancel()
	isvc := &omev1beta1.InferenceService{}
	if err := target.Client.Get(ctx, client.ObjectKey{Namespace: target.Namespace, Name: name}, isvc); err != nil {
		return nil, requestError(ctx, isvcRequest("get", target.Namespace, name), err)
	}
	if isvc.Name != name || isvc.Namespace != target.Namespace {
		return nil, errResponseMismatch
	}
	return isvc, nil
}

func isvcRequest(verb, namespace, name string) util.Request {
	return util.Request{Verb: verb, Resource: "inferenceservices", Group: omev1beta1.GroupVersion.Group, Namespace: namespace, Name: name}
}

// requestError keeps a timeout or a Ctrl-C recognisable, as the bare documented error, and
// gives every other failure the documented message with the request and the reason
// (NotFound, Forbidden, ...) in parentheses. The API server's own text is left out: it can
// echo the request.
func requestError(ctx context.Context, r util.Request, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return util.RequestError(errReadFailed, r, err)
}

// plan runs the refusals that need the service and works out the new annotation.
func (o *options) plan(target util.Target, isvc *omev1beta1.InferenceService) (plan, error) {
	p := plan{target: target, isvc: isvc}
	overrides, parseErr := existingDrains(isvc)
	value, present := isvc.Annotations[drain.Annotation]
	p.before = len(overrides)
	var editErr error
	switch o.action {
	case actionDrain:
		p.override = drain.Override{ID: o.id, Cluster: o.cluster, Reason: o.reason}
		p.after = p.before + 1
		p.value, editErr = drain.Add(value, present, p.override)
	case actionUndrain:
		p.after = p.before - 1
		for _, ov := range overrides {
			if ov.ID == o.id {
				p.override = ov
			}
		}
		if p.override.ID != "" {
			p.value, p.remove, editErr = drain.Remove(value, o.id)
		}
	}
	switch {
	case !withinBounds(isvc, p.value, p.remove):
		return p, errBounds
	case !eligible(isvc):
		return p, errNotEligible
	case isvc.UID == "" || isvc.ResourceVersion == "" || !validName(isvc.Name):
		return p, errIdentity
	case isvc.DeletionTimestamp != nil:
		return p, errDeleting
	case parseErr != nil || editErr != nil:
		return p, errMalformed
	}
	exists := false
	for _, ov := range overrides {
		exists = exists || ov.ID == o.id
	}
	if o.action == actionDrain && exists {
		return p, errExists
	}
	if o.action == actionUndrain && !exists {
		return p, errMissing
	}
	return p, nil
}

// apply sends the guarded patch (or, for a client dry run, nothing) and describes the
// outcome.
func (o *options) apply(ctx context.Context, p plan) (result, error) {
	res := newResult(o.action, o.dryRun, p)
	if o.dryRun == util.DryRunClient {
		return res, nil
	}
	patch, err := guardedPatch(p)
	if err != nil {
		return res, err
	}
	opts := []client.PatchOption{client.FieldOwner("kubectl-ome")}
	if o.dryRun == util.DryRunServer {
		opts = append(opts, client.DryRunAll)
	}
	reqCtx, cancel := context.WithTimeout(ctx, requestBudget)
	defer cancel()
	got := p.isvc.DeepCopy()
	if err := p.target.Client.Patch(reqCtx, got, client.RawPatch(jsonPatchType, patch), opts...); err != nil {
		if conflict(reqCtx, p.target.Client, err, p.isvc) {
			return res, &util.ExitError{Code: util.ExitConflict, Msg: errConflictMessage}
		}
		return res, requestError(reqCtx, isvcRequest("patch", p.isvc.Namespace, p.isvc.Name), err)
	}
	if got.UID != p.isvc.UID || got.Name != p.isvc.Name || got.Namespace != p.isvc.Namespace {
		return res, errResponseUnbound
	}
	res.accepted = true
	res.applied = o.dryRun == util.DryRunNone
	res.resourceVersion = got.ResourceVersion
	return res, nil
}

// conflict says whether a rejected patch lost a race: the API server called it a conflict,
// or it failed to apply (a failed "test" operation comes back as 422 Invalid with a generic
// message and, unlike a validation error, no causes) and the service is no longer the one
// previewed. The extra read tells a lost race from any other reason a patch cannot apply.
func conflict(ctx context.Context, c client.Client, err error, previewed *omev1beta1.InferenceService) bool {
	if apierrors.IsConflict(err) {
		return true
	}
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		return false
	}
	if d := status.Status().Details; d != nil && len(d.Causes) > 0 {
		return false
	}
	now := &omev1beta1.InferenceService{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(previewed), now); err != nil {
		return apierrors.IsNotFound(err)
	}
	return now.UID != previewed.UID || now.ResourceVersion != previewed.ResourceVersion
}

func followUp(p plan) string {
	return fmt.Sprintf("kubectl ome traffic status %s -n %s --context=%s", p.isvc.Name, p.target.Namespace, p.target.Context)
}
