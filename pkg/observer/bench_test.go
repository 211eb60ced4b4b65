package observer

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Both benchmarks send the same serial GETs to the same kind of loopback keep-alive
// server, so the difference is what the observer adds: the slot, the timeout context,
// the guarded dialer (once) and the capped read.

const benchBody = `{"object":"list","data":[{"id":"llama","object":"model"}]}`

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(benchBody))
	}))
	b.Cleanup(srv.Close)
	return srv
}

func BenchmarkObserver(b *testing.B) {
	srv := benchServer(b)
	o, err := New(Options{
		MaxConcurrentRequests: 64,
		MaxResponseBytes:      64 << 10,
		AllowLoopback:         true,
		Metrics:               NewMetrics(),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(o.Close)
	req := Request{URL: srv.URL + "/v1/models", Timeout: longTimeout}
	b.ReportAllocs()
	for b.Loop() {
		res := o.Do(b.Context(), req)
		if res.Outcome != OutcomeResponse || res.BytesRead != int64(len(benchBody)) {
			b.Fatalf("%s %d: %v", res.Outcome, res.BytesRead, res.Err)
		}
	}
}

func BenchmarkBareClient(b *testing.B) {
	srv := benchServer(b)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	b.Cleanup(client.CloseIdleConnections)
	url := srv.URL + "/v1/models"
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequestWithContext(b.Context(), http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || n != int64(len(benchBody)) {
			b.Fatalf("read %d: %v", n, err)
		}
	}
}
