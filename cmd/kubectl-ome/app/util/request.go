package util

import (
	"context"
	"errors"
	"fmt"
	"net"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Request is one API request a command makes, as its errors name it: the verb, the
// resource, and the object (namespace/name, or the name alone for a cluster-scoped kind).
type Request struct {
	Verb      string
	Resource  string
	Group     string
	Namespace string
	Name      string
}

// String is "get inferenceservices prod/chat", the form `kubectl ome get` errors use.
func (r Request) String() string {
	obj := r.Name
	if r.Namespace != "" {
		obj = r.Namespace + "/" + r.Name
	}
	return r.Verb + " " + r.Resource + " " + obj
}

// CanI is the kubectl command that checks the right this request needs.
func (r Request) CanI() string {
	s := "kubectl auth can-i " + r.Verb + " " + r.Resource
	if r.Group != "" {
		s += "." + r.Group
	}
	if r.Namespace != "" {
		s += " -n " + r.Namespace
	}
	return s
}

// Reason names why a request failed in one word: the API server's reason (NotFound,
// Forbidden, Unauthorized, Conflict, ...), Timeout or Cancelled for the command's own
// deadline or Ctrl-C, Unreachable when no API server answered, and Unreadable otherwise.
// The API server's message is left out: it can echo the request, and the word plus the
// request is what a person acts on.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "Cancelled"
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return "Timeout"
	}
	if r := apierrors.ReasonForError(err); r != metav1.StatusReasonUnknown {
		return string(r)
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return "Unreachable"
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return "Unreachable"
	}
	return "Unreadable"
}

// Detail is what a failed request adds to a command's documented error, in parentheses:
// the request and the reason, and for a forbidden one the command that checks the right.
func (r Request) Detail(err error) string {
	reason := Reason(err)
	s := r.String() + ": " + reason
	switch reason {
	case string(metav1.StatusReasonForbidden):
		s += "; check with " + r.CanI()
	case "Unreachable":
		s += "; is the API server of the selected context up?"
	}
	return s
}

// RequestError is a documented error with the failed request's detail; errors.Is still
// finds the documented one.
func RequestError(documented error, r Request, err error) error {
	return fmt.Errorf("%w (%s)", documented, r.Detail(err))
}
