package modelserver

import (
	"net/http"
	"time"
)

// ServedByHeader is the response header in which a named Endpoint gives its name, so that
// a client sending through a gateway can count which server answered, and tell the
// gateway's own answers (which lack it) from the servers'.
const ServedByHeader = "X-Ome-Served-By"

// Answer is one request an Endpoint answered, as an OnAnswer hook sees it.
type Answer struct {
	// At is when the answer was written.
	At time.Time
	// Request is the request; its body has been read or closed.
	Request *http.Request
	// Status is the status the endpoint answered with.
	Status int
}

// OnAnswer has fn called after every answer from now on (nil stops it), metrics scrapes
// aside. fn runs on the request's goroutine, so it must be quick and safe for concurrent
// use.
func (e *Endpoint) OnAnswer(fn func(Answer)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.onAnswer = fn
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
