// Package phase is the shape both reconcilers share: a reconcile is a list of named
// phases over a scope (what the reconcile has learned so far), each of which may end it.
// cluster-api's reconcilers are built the same way; the list is the table of contents.
package phase

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
)

// Outcome ends a reconcile before its last phase when Done is set.
type Outcome struct {
	Done   bool
	Result ctrl.Result
	Err    error
}

// Proceed lets the next phase run.
var Proceed = Outcome{}

// Finish ends the reconcile with result and err; Finish(r.step(ctx)) ends it with what a
// step that returns (ctrl.Result, error) returned.
func Finish(result ctrl.Result, err error) Outcome {
	return Outcome{Done: true, Result: result, Err: err}
}

// Phase is one step of a reconcile over a scope S.
type Phase[S any] func(context.Context, *S) Outcome

// Run runs phases in order until one ends the reconcile, and says whether one did.
func Run[S any](ctx context.Context, s *S, phases []Phase[S]) Outcome {
	for _, p := range phases {
		if out := p(ctx, s); out.Done {
			return out
		}
	}
	return Proceed
}
