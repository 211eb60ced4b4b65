package util

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRequestDetail(t *testing.T) {
	isvc := Request{Verb: "get", Resource: "inferenceservices", Group: "ome.io", Namespace: "prod", Name: "chat"}
	wlc := Request{Verb: "get", Resource: "workloadclusters", Group: "ome.io", Name: "worker-a"}
	gr := schema.GroupResource{Group: "ome.io", Resource: "inferenceservices"}
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	cases := []struct {
		r    Request
		err  error
		want string
	}{
		{isvc, apierrors.NewNotFound(gr, "chat"), "get inferenceservices prod/chat: NotFound"},
		{isvc, apierrors.NewForbidden(gr, "chat", errors.New("no")),
			"get inferenceservices prod/chat: Forbidden; check with kubectl auth can-i get inferenceservices.ome.io -n prod"},
		{wlc, apierrors.NewForbidden(gr, "worker-a", errors.New("no")),
			"get workloadclusters worker-a: Forbidden; check with kubectl auth can-i get workloadclusters.ome.io"},
		{isvc, apierrors.NewUnauthorized("who"), "get inferenceservices prod/chat: Unauthorized"},
		{isvc, refused, "get inferenceservices prod/chat: Unreachable; is the API server of the selected context up?"},
		{isvc, fmt.Errorf("wrapped: %w", context.DeadlineExceeded), "get inferenceservices prod/chat: Timeout"},
		{isvc, errors.New("boom"), "get inferenceservices prod/chat: Unreadable"},
	}
	for _, tc := range cases {
		if got := tc.r.Detail(tc.err); got != tc.want {
			t.Errorf("Detail(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	documented := errors.New("required Kubernetes API request failed; check access and connectivity")
	err := RequestError(documented, isvc, apierrors.NewNotFound(gr, "chat"))
	if !errors.Is(err, documented) || err.Error() != documented.Error()+" (get inferenceservices prod/chat: NotFound)" {
		t.Errorf("RequestError = %v", err)
	}
}
