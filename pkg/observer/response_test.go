package observer

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestStatuses(t *testing.T) {
	var elsewhere atomic.Int64
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/elsewhere":
			elsewhere.Add(1)
		case "/moved":
			http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
		case "/loop":
			// Redirects to itself forever; a client that followed it would come back
			// until its redirect limit.
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/early-hints":
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusOK)
			w.Write([]byte("after hints"))
		default:
			code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
			w.WriteHeader(code)
		}
	}))
	o := newObserver(t, nil)

	cases := []struct {
		path   string
		method string
		status int
		bytes  int64
	}{
		{path: "/200", status: 200},
		{path: "/204", status: 204},
		{path: "/401", status: 401},
		{path: "/429", status: 429},
		{path: "/503", status: 503},
		{path: "/503", method: http.MethodHead, status: 503},
		{path: "/moved", status: 301, bytes: int64(len("<a href=\"/elsewhere\">Moved Permanently</a>.\n\n"))},
		{path: "/loop", status: 302, bytes: int64(len("<a href=\"/loop\">Found</a>.\n\n"))},
		// net/http's client consumes 1xx informational responses (other than 101) and
		// returns the final one, so a 103 Early Hints is never seen by the caller.
		{path: "/early-hints", status: 200, bytes: int64(len("after hints"))},
	}
	for _, tc := range cases {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			res := o.Do(t.Context(), Request{Method: tc.method, URL: srv.URL + tc.path, Timeout: longTimeout})
			want(t, res, OutcomeResponse, tc.status)
			if res.BytesRead != tc.bytes || res.Truncated {
				t.Fatalf("BytesRead %d Truncated %v, want %d bytes, not truncated", res.BytesRead, res.Truncated, tc.bytes)
			}
		})
	}
	if got := elsewhere.Load(); got != 0 {
		t.Fatalf("the redirect target was requested %d times, want 0", got)
	}
}

func TestBodyCap(t *testing.T) {
	const limit = 1000
	// endlessWritten is what the endless handler managed to write before the client hung
	// up; the channel carries it once the handler is done.
	endlessWritten := make(chan int64, 1)
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/endless":
			// Streams until the client hangs up, or for up to 1 GiB.
			w.(http.Flusher).Flush()
			chunk := bytes.Repeat([]byte("y"), 32<<10)
			var written int64
			for written < 1<<30 {
				n, err := w.Write(chunk)
				written += int64(n)
				if err != nil {
					break
				}
			}
			endlessWritten <- written
		default:
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
			w.Header().Set("Content-Length", strconv.Itoa(n))
			w.Write(bytes.Repeat([]byte("x"), n))
		}
	}))
	o := newObserver(t, func(opts *Options) { opts.MaxResponseBytes = limit })

	cases := []struct {
		path      string
		bytesRead int64
		truncated bool
	}{
		{"/0", 0, false},
		{"/999", 999, false},
		{"/1000", 1000, false},
		{"/1001", 1000, true},
		{"/10485760", 1000, true}, // 10 MB
		{"/endless", 1000, true},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			res := o.Do(t.Context(), Request{URL: srv.URL + tc.path, Timeout: longTimeout})
			want(t, res, OutcomeResponse, http.StatusOK)
			if res.BytesRead != tc.bytesRead || res.Truncated != tc.truncated {
				t.Fatalf("BytesRead %d Truncated %v, want %d %v", res.BytesRead, res.Truncated, tc.bytesRead, tc.truncated)
			}
		})
	}
	// An observer that stopped at the cap left the server stuck once the socket buffers
	// (a few MiB on loopback) were full; one that kept reading let it write much more.
	written := <-endlessWritten
	t.Logf("the endless handler wrote %d KiB", written>>10)
	if written > 64<<20 {
		t.Fatalf("the endless handler wrote %d MiB before the client hung up; the observer read past its cap", written>>20)
	}
}

// TestTruncatedConnectionIsClosed shows the remainder of a long body is dropped with its
// connection rather than drained: the next request has to open a new one. A body read
// to its end leaves its connection for reuse.
func TestTruncatedConnectionIsClosed(t *testing.T) {
	srv, conns := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write(make([]byte, 10<<20))
			return
		}
		w.Write([]byte("ok"))
	}))
	o := newObserver(t, func(opts *Options) { opts.MaxResponseBytes = 1 << 10 })

	steps := []struct {
		path      string
		wantConns int64
	}{
		{"/small", 1},
		{"/small", 1}, // reused
		{"/big", 1},   // reused, then closed at the cap
		{"/small", 2}, // had to dial again
	}
	for i, step := range steps {
		res := o.Do(t.Context(), Request{URL: srv.URL + step.path, Timeout: longTimeout})
		want(t, res, OutcomeResponse, http.StatusOK)
		if got := conns.Load(); got != step.wantConns {
			t.Fatalf("step %d (%s): %d connections opened, want %d", i, step.path, got, step.wantConns)
		}
	}
}

func TestKeepAliveAndClose(t *testing.T) {
	srv, conns := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[]}`))
	}))
	o := newObserver(t, nil)
	for range 5 {
		want(t, o.Do(t.Context(), Request{URL: srv.URL + "/v1/models", Timeout: longTimeout}), OutcomeResponse, 200)
	}
	if got := conns.Load(); got != 1 {
		t.Fatalf("5 sequential requests opened %d connections, want 1", got)
	}
	o.Close()
	want(t, o.Do(t.Context(), Request{URL: srv.URL + "/v1/models", Timeout: longTimeout}), OutcomeResponse, 200)
	if got := conns.Load(); got != 2 {
		t.Fatalf("after Close, %d connections opened in all, want 2", got)
	}
}

func TestBodyErrors(t *testing.T) {
	release := releaseOnCleanup(t)
	srv, _ := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/trickle":
			// One byte every 20 ms: the body outlives the timeout long before the cap.
			for range 1000 {
				if _, err := w.Write([]byte("z")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-release:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		case "/reset":
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + strings.Repeat("r", 100))
			buf.Flush()
			time.Sleep(20 * time.Millisecond)
			conn.(*net.TCPConn).SetLinger(0) // close with RST, not FIN
			conn.Close()
		case "/short":
			// Promises 1000 bytes, sends 100 and closes cleanly.
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + strings.Repeat("s", 100))
			buf.Flush()
			conn.Close()
		}
	}))
	o := newObserver(t, nil)

	cases := []struct {
		path     string
		timeout  time.Duration
		errParts []string
		anyOf    []string
	}{
		{path: "/trickle", timeout: shortTimeout, errParts: []string{`Get "` + srv.URL + `/trickle": reading the response body`, "context deadline exceeded"}},
		{path: "/reset", timeout: longTimeout, errParts: []string{"reading the response body"}, anyOf: []string{"connection reset by peer", "unexpected EOF"}},
		{path: "/short", timeout: longTimeout, errParts: []string{"reading the response body", "unexpected EOF"}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			res := o.Do(t.Context(), Request{URL: srv.URL + tc.path, Timeout: tc.timeout})
			want(t, res, OutcomeBodyError, http.StatusOK, tc.errParts...)
			if res.BytesRead == 0 || res.Truncated {
				t.Fatalf("BytesRead %d Truncated %v: want the bytes that did arrive, not truncated", res.BytesRead, res.Truncated)
			}
			if tc.anyOf != nil && !containsAny(res.Err.Error(), tc.anyOf) {
				t.Fatalf("error %q contains none of %q", res.Err, tc.anyOf)
			}
		})
	}
}

func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
