package observer

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// An installer's endpoint (the traffic signal's query API) may be on loopback or a private
// network however the guard is set, gets the request's headers, and still never reaches a
// metadata address.
func TestInstallerEndpointPassesTheGuardsSettingsOnly(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	o := newObserver(t, func(o *Options) { o.AllowLoopback = false })
	ctx := context.Background()

	member := o.Do(ctx, Request{URL: srv.URL, Timeout: longTimeout})
	var refused *RefusedError
	if member.Outcome != OutcomeTransportError || !errors.As(member.Err, &refused) || refused.Setting != LoopbackSetting {
		t.Fatalf("a member's loopback URL: got %+v, want the guard's refusal", member)
	}

	header := http.Header{"Authorization": {"Bearer s3cret"}}
	installer := o.Do(ctx, Request{URL: srv.URL, Timeout: longTimeout, Header: header, InstallerEndpoint: true})
	if installer.Outcome != OutcomeResponse || installer.StatusCode != http.StatusOK || auth != "Bearer s3cret" {
		t.Fatalf("the installer's loopback URL: got %+v (Authorization %q)", installer, auth)
	}

	for _, url := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://100.100.100.200/"} {
		res := o.Do(ctx, Request{URL: url, Timeout: longTimeout, InstallerEndpoint: true})
		if !errors.As(res.Err, &refused) || refused.Setting != "" {
			t.Fatalf("%s: got %+v, want a refusal no setting opens", url, res)
		}
	}
}
