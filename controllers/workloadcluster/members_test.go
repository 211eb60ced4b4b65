package workloadcluster

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// memberServer is a loopback TLS server standing in for a member's API server, answering
// /version with answer.
func memberServer(t *testing.T, answer http.HandlerFunc) (*httptest.Server, []byte) {
	t.Helper()
	srv := httptest.NewTLSServer(answer)
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	data := kubeconfig(t, func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
		c.Server, c.CertificateAuthorityData = srv.URL, ca
	})
	return srv, data
}

// A member whose /version answer never completes costs its reconcile at most the member
// timeout, whatever it sends, although the reconcile's context has no deadline: a 101
// Switching Protocols that then stays silent, headers and then a body that never ends,
// and no answer at all.
func TestMemberPingIsBoundedWhateverTheServerSends(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := omev1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	hold := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-t.Context().Done():
		}
	}
	cases := []struct {
		name    string
		answer  http.HandlerFunc
		wantErr string
	}{
		{"101 then silence", func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
			done := make(chan struct{})
			go func() { _, _ = io.Copy(io.Discard, buf); close(done) }()
			select {
			case <-done:
			case <-t.Context().Done():
			}
		}, "the member's API server answered HTTP 101, which no request of the control plane asks for"},
		{"a body that never ends", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"major":"1",`)
			w.(http.Flusher).Flush()
			hold(r)
		}, "GET /version"},
		{"no answer", func(w http.ResponseWriter, r *http.Request) { hold(r) }, "GET /version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, data := memberServer(t, tc.answer)
			cfg, err := memberConfig(data, ExecPolicy{})
			if err != nil {
				t.Fatal(err)
			}
			m := NewMembers(scheme, 500*time.Millisecond, loopbackObserver(t))
			t.Cleanup(m.stop)
			got := make(chan error, 1)
			go func() { got <- m.Connect(context.Background(), "worker-a", data, cfg) }()
			select {
			case err := <-got:
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Connect = %v, want an error containing %q", err, tc.wantErr)
				}
				t.Logf("Connect: %v", err)
			case <-time.After(30 * time.Second):
				t.Fatal("Connect did not return: the ping is not bounded by the member timeout")
			}
		})
	}
}
